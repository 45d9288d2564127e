import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import fc from "fast-check";
import { graphPaths } from "../../core/recall/explain/graph-paths.js";
import { prefixUpperBound } from "../../core/recall/filter/memory-filter-sql.js";
import { overfetchFactors } from "../../core/recall/filter/overfetch-factors.js";
import { recallFilterOf } from "../../core/recall/filter/recall-filter.js";
import { MemoryKind, MemoryType } from "../../gen/memory/v1/memory_pb.js";
import { RecallFilterSchema, TagMatch } from "../../gen/memory/v1/recall_service_pb.js";

/** Code point order, which is PostgreSQL's byte order (text_pattern_ops) of UTF-8. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}

test("every string with the prefix lies in [prefix, upper bound) in byte order", (t) => {
  fc.assert(
    fc.property(
      fc.string({ unit: "grapheme", minLength: 1 }),
      fc.string({ unit: "grapheme" }),
      (prefix, rest) => {
        const upper = prefixUpperBound(prefix);
        const s = prefix + rest;
        if (compareCodePoints(s, prefix) < 0) return false;
        return upper === undefined || compareCodePoints(s, upper) < 0;
      },
    ),
  );
  t.is(prefixUpperBound("https://a/"), "https://a0");
  t.is(prefixUpperBound("\u{10FFFF}"), undefined);
  t.is(prefixUpperBound("a\uD7FF"), "a\uE000");
  t.is(compareCodePoints("https://b", prefixUpperBound("https://a") ?? ""), 0);
});

test("recallFilterOf: an empty filter restricts nothing; words are the database's", (t) => {
  t.is(recallFilterOf(undefined), undefined);
  t.is(recallFilterOf(create(RecallFilterSchema, {})), undefined);
  const after = new Date("2026-01-01T00:00:00Z");
  t.deepEqual(
    recallFilterOf(
      create(RecallFilterSchema, {
        memoryTypes: [MemoryType.EPISODIC, MemoryType.EPISODIC, MemoryType.ENTITY],
        tags: ["a", "b", "a"],
        tagsMatch: TagMatch.ALL,
        origin: "https://",
        createdAfter: timestampFromDate(after),
        kinds: [MemoryKind.DOCUMENT],
      }),
    ),
    {
      memoryTypes: ["episodic", "entity"],
      tags: { values: ["a", "b"], match: "all" },
      origin: "https://",
      createdAfter: after,
      kinds: ["document"],
    },
  );
  t.deepEqual(recallFilterOf(create(RecallFilterSchema, { tags: ["x"] }))?.tags, {
    values: ["x"],
    match: "any",
  });
});

test("recallFilterOf refuses an empty or reversed time range and tags_match all without tags", (t) => {
  const at = (iso: string) => timestampFromDate(new Date(iso));
  for (const [filter, field] of [
    [
      { createdAfter: at("2026-01-02T00:00:00Z"), createdBefore: at("2026-01-01T00:00:00Z") },
      "filter.created_after",
    ],
    [
      { createdAfter: at("2026-01-01T00:00:00Z"), createdBefore: at("2026-01-01T00:00:00Z") },
      "filter.created_after",
    ],
    [{ tagsMatch: TagMatch.ALL }, "filter.tags"],
  ] as const) {
    const error = t.throws(() => recallFilterOf(create(RecallFilterSchema, filter)));
    t.true(error instanceof ConnectError && error.code === Code.InvalidArgument, field);
    t.regex(error?.message ?? "", new RegExp(field.replace(".", "\\.")));
  }
});

test("over-fetch factors: none for a selective share, about 2 / share for a broad one", (t) => {
  t.deepEqual(overfetchFactors(undefined), [4, 16]);
  t.deepEqual(overfetchFactors(0.05), []);
  t.deepEqual(overfetchFactors(0.5), [4, 16]);
  t.deepEqual(overfetchFactors(1), [2, 8]);
});

test("graph paths follow each node back to its seed, relation types in walking order", (t) => {
  const paths = graphPaths([
    { memoryId: "b", viaRelType: "OWNS", fromId: "seed" },
    { memoryId: "c", viaRelType: "FOR_CLIENT", fromId: "b" },
    { memoryId: "d", viaRelType: "REFERENCES", fromId: "other-seed" },
  ]);
  t.deepEqual(paths.get("b"), { relTypes: ["OWNS"], seedId: "seed" });
  t.deepEqual(paths.get("c"), { relTypes: ["OWNS", "FOR_CLIENT"], seedId: "seed" });
  t.deepEqual(paths.get("d"), { relTypes: ["REFERENCES"], seedId: "other-seed" });
});
