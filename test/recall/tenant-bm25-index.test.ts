import test from "ava";
import fc from "fast-check";
import { B, tfPart } from "../../core/recall/bm25/bm25-parameters.js";
import { decodeSegment, encodeSegment } from "../../core/recall/bm25/bm25-segment-file.js";
import { type ChunkLexemes, TenantBm25Index } from "../../core/recall/bm25/tenant-bm25-index.js";

// The mutable in-process index recall serves BM25 from (ADR 0230): after any sequence of puts
// (new chunks, re-indexed ones), removals and compactions, its top k equals BM25 computed chunk by
// chunk over the chunks still current — scores, order, ties by chunk id, allowed-chunk sets, and
// chunks valid at a point in time (valid_from at or before it).

const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const LEXEMES = ["hund", "katz", "buro", "regel", "milch", "mehl", "ei", "straße"];
const TENANT = "11111111-2222-4333-8444-555555555555";

function bruteForce(
  chunks: ReadonlyMap<string, ChunkLexemes>,
  terms: readonly { term: string; weight: number }[],
  avgdl: number,
  k: number,
  allowed?: ReadonlySet<string>,
  validAtUs?: number,
) {
  return [...chunks.values()]
    .filter((c) => allowed === undefined || allowed.has(c.chunkId))
    .filter((c) => validAtUs === undefined || c.validFromUs <= validAtUs)
    .map((c) => {
      const len = c.tfs.reduce((a, b) => a + b, 0);
      const score = terms.reduce((sum, t) => {
        const at = c.lexemes.indexOf(t.term);
        return sum + t.weight * tfPart(at < 0 ? 0 : (c.tfs[at] ?? 0), len, { avgdl, b: B });
      }, 0);
      return { chunkId: c.chunkId, score };
    })
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : 1))
    .slice(0, k);
}

const chunkOf = (n: number, tfs: readonly number[], validFromUs = 0): ChunkLexemes => {
  const lexemes: string[] = [];
  const counts: number[] = [];
  for (const [i, tf] of tfs.entries()) {
    if (tf > 0) {
      lexemes.push(LEXEMES[i] as string);
      counts.push(tf);
    }
  }
  return { chunkId: id(n), lexemes, tfs: counts, validFromUs };
};

const operation = fc.oneof(
  fc.record({
    op: fc.constant("put" as const),
    chunk: fc.integer({ min: 0, max: 30 }),
    tfs: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: LEXEMES.length, maxLength: LEXEMES.length }),
    // Microseconds around 2026 (above 2^50): the comparison must hold at µs resolution.
    validFromUs: fc.integer({ min: 0, max: 6 }).map((n) => 1_780_000_000_000_000 + n),
  }),
  fc.record({ op: fc.constant("remove" as const), chunk: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ op: fc.constant("compact" as const) }),
);

test("after any puts, removals and compactions the top k equals BM25 over the current chunks", (t) => {
  fc.assert(
    fc.property(
      fc.array(operation, { minLength: 1, maxLength: 80 }),
      fc.subarray(["hund", "katz", "buro", "ei", "fehlt"], { minLength: 1 }),
      fc.integer({ min: 1, max: 12 }),
      fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 12 }), { nil: undefined }),
      fc.option(
        fc.integer({ min: -1, max: 7 }).map((n) => 1_780_000_000_000_000 + n),
        { nil: undefined },
      ),
      (operations, words, k, allowedNumbers, validAtUs) => {
        const index = new TenantBm25Index();
        const current = new Map<string, ChunkLexemes>();
        for (const o of operations) {
          if (o.op === "put") {
            const chunk = chunkOf(o.chunk, o.tfs, o.validFromUs);
            index.put(chunk);
            current.set(chunk.chunkId, chunk);
          } else if (o.op === "remove") {
            index.remove(id(o.chunk));
            current.delete(id(o.chunk));
          } else index.compact();
        }
        t.is(index.size, current.size);
        const terms = words.map((term, i) => ({ term, weight: 1 + i / 3 }));
        const avgdl = 3.5;
        const allowed = allowedNumbers === undefined ? undefined : new Set(allowedNumbers.map(id));
        const got = index.search(terms, { avgdl, b: B }, k, {
          allowed: allowed === undefined ? undefined : index.allow(allowed),
          validAtUs,
        });
        const want = bruteForce(current, terms, avgdl, k, allowed, validAtUs);
        t.deepEqual(
          got.map((h) => h.chunkId),
          want.map((h) => h.chunkId),
        );
        for (const [i, h] of got.entries()) t.true(Math.abs(h.score - (want[i]?.score ?? 0)) < 1e-9);
        // Written to a segment file's bytes and read back (ADR 0370), it answers the same.
        const feed = { watermark: 7, horizon: 5, applied: [5, 6] };
        const segment = decodeSegment(TENANT, encodeSegment(TENANT, feed, index.parts()));
        t.deepEqual(segment.feed, feed);
        const restored = TenantBm25Index.fromParts(segment.parts);
        t.is(restored.size, current.size);
        const again = restored.search(terms, { avgdl, b: B }, k, {
          allowed: allowed === undefined ? undefined : restored.allow(allowed),
          validAtUs,
        });
        t.deepEqual(
          again,
          index.search(terms, { avgdl, b: B }, k, {
            allowed: allowed === undefined ? undefined : index.allow(allowed),
            validAtUs,
          }),
        );
        t.deepEqual(
          again.map((h) => h.chunkId),
          want.map((h) => h.chunkId),
        );
      },
    ),
    { numRuns: 300 },
  );
});

test("compaction frees the postings of removed chunks", (t) => {
  const index = new TenantBm25Index([
    { chunkId: id(1), lexemes: ["geheim", "hund"], tfs: [1, 2], validFromUs: 0 },
    { chunkId: id(2), lexemes: ["hund"], tfs: [1], validFromUs: 0 },
  ]);
  index.remove(id(1));
  t.is(index.postingsOf("geheim"), 1, "a removal only marks the chunk");
  t.deepEqual(index.search([{ term: "geheim", weight: 1 }], { avgdl: 2, b: B }, 5), []);
  index.compact();
  t.is(index.postingsOf("geheim"), 0);
  t.is(index.postingsOf("hund"), 1);
  t.deepEqual(index.chunkIds(), [id(2)]);
});

test("a segment that is damaged, cut short or another tenant's is refused, never served", (t) => {
  const index = new TenantBm25Index([
    { chunkId: id(1), lexemes: ["hund", "straße"], tfs: [1, 2], validFromUs: 3 },
    { chunkId: id(2), lexemes: ["hund"], tfs: [1], validFromUs: 4 },
  ]);
  const bytes = encodeSegment(TENANT, { watermark: 1, horizon: 1, applied: [] }, index.parts());
  t.notThrows(() => TenantBm25Index.fromParts(decodeSegment(TENANT, bytes).parts));
  t.throws(() => decodeSegment("99999999-2222-4333-8444-555555555555", bytes), { message: /another tenant/ });
  t.throws(() => decodeSegment(TENANT, bytes.subarray(0, bytes.length - 9)), { message: /truncated/ });
  const badMagic = Buffer.from(bytes);
  badMagic[0] = 0;
  t.throws(() => decodeSegment(TENANT, badMagic), { message: /not a BM25 segment/ });
  // A posting that names a chunk the index does not have.
  const parts = decodeSegment(TENANT, bytes).parts;
  const docs = Int32Array.from(parts.docs);
  docs[0] = 99;
  t.throws(() => TenantBm25Index.fromParts({ ...parts, docs }), { message: /names no chunk/ });
  const lexemeOffsets = Int32Array.from(parts.lexemeOffsets);
  lexemeOffsets[1] = 0;
  t.throws(() => TenantBm25Index.fromParts({ ...parts, lexemeOffsets }), { message: /not increasing/ });
});
