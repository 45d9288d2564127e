import test from "ava";
import fc from "fast-check";
import { buildSortedStringTable } from "../../core/models/lexicon/sorted-string-table.js";

// The lexicon's in-memory table answers by a binary search over UTF-8 key bytes: every key must be
// found exactly as a Map of the entries the builder keeps would find it — umlauts, ß, three-byte
// characters, lone surrogates (which UTF-8 turns into U+FFFD), astral characters (never kept), keys
// longer than any stored one.

const unit = fc.constantFrom(
  "a",
  "b",
  "z",
  " ",
  "ä",
  "ß",
  "é",
  "€",
  "中",
  "\uFFFD",
  "\uD800",
  "\uDC00",
  "😀",
);
const key = fc.string({ unit, maxLength: 10 });

/** What a lookup must answer: the builder's rule (no tab, newline or surrogate in a key) over a Map. */
function reference(entries: Map<string, string>) {
  const kept = new Map([...entries].filter(([k, v]) => !/[\t\n\uD800-\uDFFF]/.test(k) && !v.includes("\n")));
  // Buffer.from writes a lone surrogate as U+FFFD, so such a probe finds the key with U+FFFD there.
  const asStored = (probe: string) =>
    /[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(probe) ? undefined : probe.replace(/[\uD800-\uDFFF]/g, "\uFFFD");
  return (probe: string) => {
    const stored = asStored(probe);
    const value = stored === undefined ? undefined : kept.get(stored);
    // Values are stored as UTF-8 too: a lone surrogate in a value comes back as U+FFFD.
    return value === undefined ? undefined : Buffer.from(value, "utf8").toString("utf8");
  };
}

test("every key, and every probe, is answered as a Map of the kept entries answers it", (t) => {
  fc.assert(
    fc.property(
      fc.dictionary(key, key, { maxKeys: 50 }),
      fc.array(key, { maxLength: 30 }),
      (record, probes) => {
        const entries = new Map(Object.entries(record));
        const table = buildSortedStringTable(entries);
        const expected = reference(entries);
        for (const probe of [...entries.keys(), ...probes, "x".repeat(40), ...entries.keys()]) {
          if (table.get(probe) !== expected(probe)) return false;
          if (table.has(probe) !== (expected(probe) !== undefined)) return false;
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.pass();
});

test("a prefix is reported exactly when some kept key starts with it", (t) => {
  fc.assert(
    fc.property(
      fc.dictionary(key, key, { maxKeys: 50 }),
      fc.array(key, { maxLength: 30 }),
      (record, probes) => {
        const entries = new Map(Object.entries(record));
        const table = buildSortedStringTable(entries);
        const stored = [...table.bytes.toString("utf8").split("\n")].filter((line) => line.length > 0);
        const keys = stored.map((line) => line.slice(0, line.indexOf("\t")));
        // Probes without surrogates (a lone one is looked up as U+FFFD, as `get` does): prefixes of keys too.
        const candidates = [...probes, ...keys.map((k) => k.slice(0, Math.ceil(k.length / 2))), ...keys];
        for (const probe of candidates.filter((p) => !/[\uD800-\uDFFF]/.test(p))) {
          if (table.hasKeyStartingWith(probe) !== keys.some((k) => k.startsWith(probe))) return false;
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.pass();
});

test("German words and phrases are found; a prefix, an extension or another case is not", (t) => {
  const table = buildSortedStringTable(
    new Map([
      ["straße", "street"],
      ["größe", "size"],
      ["national anthem", "Nationalhymne"],
      ["über", "over"],
    ]),
  );
  t.is(table.get("straße"), "street");
  t.is(table.get("größe"), "size");
  t.true(table.has("national anthem"));
  t.true(table.has("über"));
  t.false(table.has("stra"));
  t.false(table.has("straßen"));
  t.false(table.has("Straße"));
  t.false(table.has("national anthems and more words than any key has"));
  t.true(table.hasKeyStartingWith("national "));
  t.true(table.hasKeyStartingWith("über"));
  t.false(table.hasKeyStartingWith("nationalhymne"));
  t.false(table.hasKeyStartingWith("zz"));
});
