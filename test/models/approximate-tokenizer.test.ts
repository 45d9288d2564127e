import test from "ava";
import { approximateTokenizer } from "../../core/models/approximate-tokenizer.js";

const count = (text: string) => approximateTokenizer.countTokens(text);

test("a word costs ceil(length / 4) tokens, punctuation one each, whitespace nothing", (t) => {
  t.is(count(""), 0);
  t.is(count("   \n"), 0);
  t.is(count("Die"), 1);
  t.is(count("Katze"), 2);
  t.is(count("Datenschutzbeauftragter"), 6);
  t.is(count("Hallo, Welt!"), 5); // Hallo 2, "," 1, Welt 1, "!" 1
  t.is(count("ÄÖÜ äöü ß"), 3);
});

test("counts add up across whitespace, as the chunker's estimates assume", (t) => {
  const a = "Der Datenschutzbeauftragte berät. ";
  const b = "The release manager tags the commit.";
  t.is(count(a + b), count(a) + count(b));
});
