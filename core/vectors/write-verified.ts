import type * as lancedb from "@lancedb/lancedb";
import type { Table as ArrowTable } from "apache-arrow";
import { idListFilter, inBatches } from "./vector-filters.js";

/** Attempts per write before the conflict (or the missing rows) is reported to the caller. */
const MAX_ATTEMPTS = 6;

/** Lance's optimistic concurrency: a commit that lost to a concurrent one and may be retried. */
export function isCommitConflict(error: unknown): boolean {
  return /commit conflict|incompatible with concurrent transaction|preempted by concurrent|please retry/i.test(
    String(error),
  );
}

/** Rows LanceDB acknowledged but that are not in the table: the chunks must not be marked stored. */
export class VectorWriteUnverifiedError extends Error {
  constructor(
    readonly table: string,
    readonly missing: number,
    readonly expected: number,
  ) {
    super(`${missing} of ${expected} vectors written to ${table} are not in the table after the write`);
    this.name = "VectorWriteUnverifiedError";
  }
}

export interface WriteVerifiedOptions {
  readonly mode: "append" | "merge";
  /** false: answer once the commit landed, without reading the rows back (the caller counts). */
  readonly readBack?: boolean;
  /** Called for each commit conflict that is retried (metrics, logs). */
  readonly onConflict?: (table: string, attempt: number) => void;
}

/** Which of the chunk ids have a row in the table now (batched list filters, chunk ids only). */
export async function presentChunkIds(
  table: lancedb.Table,
  chunkIds: readonly string[],
): Promise<Set<string>> {
  const present = new Set<string>();
  for (const batch of inBatches(chunkIds)) {
    const rows = (await table
      .query()
      .where(idListFilter("chunk_id", batch))
      .select(["chunk_id"])
      .toArray()) as {
      chunk_id: string;
    }[];
    for (const row of rows) present.add(row.chunk_id);
  }
  return present;
}

/**
 * Writes rows and reads back their chunk ids before answering (DESIGN "Storage": a chunk is indexed
 * only when its vector is stored). A commit conflict is retried with backoff; rows that are missing
 * after an acknowledged write are written again. Retries merge on chunk_id, so a write whose commit
 * did land is never duplicated.
 */
export async function writeVerified(
  table: lancedb.Table,
  data: ArrowTable,
  chunkIds: readonly string[],
  options: WriteVerifiedOptions,
): Promise<{ version: number }> {
  let missing = chunkIds.length;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const { version } =
        attempt === 1 && options.mode === "append"
          ? await table.add(data)
          : await table
              .mergeInsert("chunk_id")
              .whenMatchedUpdateAll()
              .whenNotMatchedInsertAll()
              .execute(data);
      if (options.readBack === false) return { version };
      const present = await presentChunkIds(table, chunkIds);
      missing = chunkIds.filter((id) => !present.has(id)).length;
      if (missing === 0) return { version };
    } catch (error) {
      if (!isCommitConflict(error) || attempt === MAX_ATTEMPTS) throw error;
      options.onConflict?.(table.name, attempt);
    }
    // Jittered backoff: the competing writer is usually done within a few milliseconds.
    await new Promise((r) => setTimeout(r, 10 * 2 ** attempt * (0.5 + Math.random())));
  }
  throw new VectorWriteUnverifiedError(table.name, missing, chunkIds.length);
}
