/**
 * Lets one process or worker thread build the lexicon cache while the others wait for its file, instead of
 * every worker of a pool parsing the dictionaries at once (≈ 1 GB each). A lock file marks the builder; a
 * lock older than `STALE_LOCK_MS` is taken to belong to a builder that died.
 */
import { mkdir, open, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { LexiconLookups } from "./build-lexicon-tables.js";

const STALE_LOCK_MS = 5 * 60_000;
const WAIT_DEADLINE_MS = 3 * 60_000;
const POLL_MS = 250;

export interface CacheClaim {
  /** The cached tables, when they exist or another builder finished them while we waited. */
  readonly tables?: LexiconLookups;
  /** Call after building (and writing) the tables, to release the lock we hold. */
  release(): Promise<void>;
}

async function tryLock(lockPath: string): Promise<"locked" | "busy" | "unavailable"> {
  try {
    await mkdir(dirname(lockPath), { recursive: true });
    const handle = await open(lockPath, "wx");
    await handle.close();
    return "locked";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return "unavailable";
    try {
      const info = await stat(lockPath);
      if (Date.now() - info.mtimeMs > STALE_LOCK_MS) {
        await unlink(lockPath);
        return tryLock(lockPath);
      }
    } catch {
      // The builder released the lock between our open and stat: look again.
      return tryLock(lockPath);
    }
    return "busy";
  }
}

const NO_LOCK: CacheClaim = { release: async () => {} };

export async function waitForCacheBuilder(
  cachePath: string,
  readCache: () => Promise<LexiconLookups | undefined>,
): Promise<CacheClaim> {
  const deadline = Date.now() + WAIT_DEADLINE_MS;
  const lockPath = `${cachePath}.lock`;
  for (;;) {
    const tables = await readCache();
    if (tables !== undefined) return { tables, release: NO_LOCK.release };
    const lock = await tryLock(lockPath);
    if (lock === "locked") {
      return {
        release: async () => {
          await unlink(lockPath).catch(() => {});
        },
      };
    }
    // No writable cache directory, or a builder that takes too long: build without the cache.
    if (lock === "unavailable" || Date.now() > deadline) return NO_LOCK;
    await sleep(POLL_MS);
  }
}
