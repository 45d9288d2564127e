import test from "ava";
import fc from "fast-check";
import { LexemeDictionary, mergeLexemes } from "../../core/recall/bm25/lexeme-dictionary.js";

// The compacted BM25 index finds a lexeme's postings by binary search in one sorted string: every
// lexeme it holds is found at its own slot, nothing else is, and a compaction's merge keeps the order.

const lexeme = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom("straße", "über", "ü", "u", "uber"),
);

test("every lexeme is found at its slot, absent ones are not (any text, umlauts, prefixes)", (t) => {
  fc.assert(
    fc.property(
      fc.uniqueArray(lexeme, { maxLength: 200 }),
      fc.array(lexeme, { maxLength: 50 }),
      (words, probes) => {
        const sorted = [...words].sort();
        const dictionary = new LexemeDictionary(sorted);
        t.is(dictionary.size, sorted.length);
        sorted.forEach((word, slot) => {
          if (dictionary.slotOf(word) !== slot || dictionary.lexemeAt(slot) !== word) throw new Error(word);
        });
        for (const probe of probes)
          if (dictionary.slotOf(probe) >= 0 !== sorted.includes(probe)) throw new Error(probe);
      },
    ),
  );
  t.is(LexemeDictionary.EMPTY.slotOf("hund"), -1);
});

test("mergeLexemes is the sorted union without duplicates", (t) => {
  fc.assert(
    fc.property(
      fc.uniqueArray(lexeme, { maxLength: 100 }),
      fc.array(lexeme, { maxLength: 100 }),
      (words, more) => {
        const merged = mergeLexemes(new LexemeDictionary([...words].sort()), more);
        const expected = [...new Set([...words, ...more])].sort();
        if (JSON.stringify(merged) !== JSON.stringify(expected)) throw new Error("merge");
      },
    ),
  );
  t.pass();
});
