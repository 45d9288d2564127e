import { createHeapGrowthBound } from "../../lib/heap-growth-bound.js";
import type { BundleSection } from "./bundle-format.js";
import type { BundleCounts, BundleHead, BundleRecords } from "./bundle-types.js";

/** Sends text on (the caller streams it out, waiting for the receiver as it must). */
export type WriteBundleText = (text: string) => Promise<void>;

/**
 * Writes a bundle in its line layout (bundle-format.ts) from parts the caller reads as it goes, so a
 * large workspace never sits in memory: the head, then each array from batches of rows mapped to
 * records one by one, then the counts. Returns the counts written.
 */
export async function writeBundle<M, E, A>(
  write: WriteBundleText,
  head: BundleHead,
  sections: {
    readonly memories: BundleSectionSource<M, "memories">;
    readonly edges: BundleSectionSource<E, "edges">;
    readonly audit: BundleSectionSource<A, "audit">;
  },
): Promise<BundleCounts> {
  const text = JSON.stringify(head);
  // The head object without its closing brace; the arrays and counts follow as members.
  await write(`${text.slice(0, -1)},\n`);
  const memories = await writeSection(write, "memories", sections.memories);
  await write(",\n");
  const edges = await writeSection(write, "edges", sections.edges);
  await write(",\n");
  const audit = await writeSection(write, "audit", sections.audit);
  const counts: BundleCounts = { memories, edges, audit };
  // Last, so a reader can check it received everything the server sent.
  await write(`,\n"counts":${JSON.stringify(counts)}}\n`);
  return counts;
}

/** One array's rows, in batches as they are read, and how a row becomes its record. */
export interface BundleSectionSource<Row, S extends BundleSection> {
  readonly batches: AsyncIterable<readonly Row[]>;
  readonly record: (row: Row) => BundleRecords[S];
}

/** Writes `"name":[` + one record per line + `]`; returns how many records were written. */
async function writeSection<Row, S extends BundleSection>(
  write: WriteBundleText,
  name: S,
  source: BundleSectionSource<Row, S>,
): Promise<number> {
  await write(`${JSON.stringify(name)}:[`);
  let count = 0;
  // Sent batches are garbage V8 would let grow the heap to 190 MB in a 100k export (ADR 0201).
  const boundHeap = createHeapGrowthBound();
  for await (const rows of source.batches) {
    for (const row of rows) {
      await write(`${count === 0 ? "" : ","}\n${JSON.stringify(source.record(row))}`);
      count++;
    }
    boundHeap();
  }
  await write(count === 0 ? "]" : "\n]");
  return count;
}
