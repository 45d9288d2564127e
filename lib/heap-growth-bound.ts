import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Garbage V8 may leave in the heap before a bulk operation collects it. The import's batches live
 * across awaits (PostgreSQL, LanceDB), so their records, JSON parameters and result rows survive
 * young-generation collections and are promoted: ≈ 3.6 MB of dead objects per 1,000 memories. V8
 * collects the old generation only once it has grown to up to 4× the live heap after the last full
 * collection (≈ 60 MB live → heap total 200–290 MB, ADR 0201), which put the import's peak far above
 * the service's own memory whatever the bundle's size. Collecting after every 16 MB keeps it near
 * live; the Arrow buffers each LanceDB append leaves (≈ 1 MB per batch, outside the heap) go too.
 */
export const HEAP_GROWTH_STEP_BYTES = 16 * 2 ** 20;

type FullGc = () => void;

let fullGc: FullGc | undefined;

/**
 * V8's full collection. `--expose-gc` in the command line gives it to everyone; without it, a
 * context created while the flag is set receives it (the flag is reset at once, so no other code
 * sees a `gc` global). Undefined if V8 refuses: the bound then never collects, and the import or
 * export runs as before instead of failing over a memory optimisation.
 */
function collector(): FullGc | undefined {
  if (fullGc) return fullGc;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === "function") {
    fullGc = exposed as FullGc;
    return fullGc;
  }
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("gc");
    if (typeof gc === "function") fullGc = gc as FullGc;
  } catch {
    // Left undefined: see above.
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  return fullGc;
}

/** The V8 heap in use plus memory held by JS objects outside it (Arrow's IPC buffers for LanceDB). */
const jsMemory = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};

/**
 * A check for a long bulk operation (import, export) to call between its batches, never inside a
 * request's hot path: when the V8 heap and the buffers JS objects hold outside it have grown by
 * `stepBytes` since the last collection, it runs a full collection (tens of milliseconds for the
 * service's ≈ 60 MB live heap) and answers true. `collectFirst` starts from the live heap instead of
 * from whatever garbage earlier requests left (an import right after a large export: +100 MB).
 */
export function createHeapGrowthBound(
  options: { readonly stepBytes?: number; readonly collectFirst?: boolean } = {},
): () => boolean {
  const stepBytes = options.stepBytes ?? HEAP_GROWTH_STEP_BYTES;
  const gc = collector();
  if (!gc) return () => false;
  if (options.collectFirst) gc();
  let baseline = jsMemory();
  return () => {
    if (jsMemory() - baseline < stepBytes) return false;
    gc();
    baseline = jsMemory();
    return true;
  };
}

/**
 * One full collection once a process has started. Start-up (module compilation, the lexicon's cache
 * file, the models) leaves dead buffers and heap that V8 keeps until the heap has grown several times
 * over, which an idle service never does: `npm start` with an HTTP embedder idled at 524 MB RSS
 * (V8 heap total 154 MB, external 107 MB) and at 400 MB after this (104 MB, 58 MB); with the
 * built-in models 440 → 370 MB. Returns whether a collection ran.
 */
export function collectStartupGarbage(): boolean {
  const gc = collector();
  if (!gc) return false;
  gc();
  return true;
}
