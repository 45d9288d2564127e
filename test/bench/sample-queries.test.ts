import test from "ava";
import fc from "fast-check";
import { sampleQueries } from "../../bench/eval/sample-queries.js";

const arbQueries = fc
  .uniqueArray(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      group: fc.constantFrom("", "a", "b", "c"),
      lang: fc.constantFrom("de", "en"),
    }),
    { selector: (q) => q.id, maxLength: 120 },
  )
  .map((qs) => qs);

test("a sample has exactly min(limit, n) distinct queries in their original order", (t) => {
  fc.assert(
    fc.property(arbQueries, fc.integer({ min: 0, max: 150 }), (queries, limit) => {
      const sample = sampleQueries(queries, limit);
      const ids = sample.map((q) => q.id);
      const positions = ids.map((id) => queries.findIndex((q) => q.id === id));
      return (
        sample.length === Math.min(limit, queries.length) &&
        new Set(ids).size === ids.length &&
        positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] ?? -1)))
      );
    }),
  );
  t.pass();
});

test("sampling is deterministic and every stratum gets its proportional share", (t) => {
  fc.assert(
    fc.property(arbQueries, fc.integer({ min: 1, max: 150 }), (queries, limit) => {
      const a = sampleQueries(queries, limit).map((q) => q.id);
      const b = sampleQueries([...queries].reverse(), limit).map((q) => q.id);
      if (new Set(a).size !== new Set(b).size || !a.every((id) => b.includes(id))) return false;
      const n = Math.min(limit, queries.length);
      const strata = new Set(queries.map((q) => `${q.group}/${q.lang}`));
      for (const s of strata) {
        const size = queries.filter((q) => `${q.group}/${q.lang}` === s).length;
        const got = sampleQueries(queries, limit).filter((q) => `${q.group}/${q.lang}` === s).length;
        const share = (size * n) / queries.length;
        if (got < Math.floor(share) || got > Math.ceil(share) + 1) return false;
      }
      return true;
    }),
  );
  t.pass();
});

test("a bilingual set sampled to 10 is not one language", (t) => {
  const queries = [
    ...Array.from({ length: 50 }, (_, i) => ({ id: `de${i}`, group: "", lang: "de" })),
    ...Array.from({ length: 50 }, (_, i) => ({ id: `en${i}`, group: "", lang: "en" })),
  ];
  const sample = sampleQueries(queries, 10);
  t.is(sample.filter((q) => q.lang === "de").length, 5);
  t.is(sample.filter((q) => q.lang === "en").length, 5);
  t.notDeepEqual(
    sample.map((q) => q.id),
    queries.slice(0, 10).map((q) => q.id),
  );
});
