import test from "ava";
import fc from "fast-check";
import { stemGermanLikeIndex } from "../../core/models/builtin/stem-like-index.js";
import { trimSnippet } from "../../core/recall/snippet/trim-snippet.js";

const stem = stemGermanLikeIndex;

test("a long text is cut to the window holding the query's terms, at word edges, marked with …", (t) => {
  const text = `${"Anfang des Textes ohne Bezug. ".repeat(20)}Die Katze schläft auf dem Sofa im Wohnzimmer. ${"Ende ohne Bezug. ".repeat(20)}`;
  const snippet = trimSnippet(text, { terms: new Set(["katz", "sofa"]), stem, maxChars: 120 });
  t.regex(snippet, /Katze schläft auf dem Sofa/);
  t.true(snippet.startsWith("…") && snippet.endsWith("…"));
  t.true(snippet.length <= 122);
});

test("short texts come back whole; without matches the text's start is kept", (t) => {
  t.is(trimSnippet("Kurzer Text.", { terms: new Set(["x"]), stem }), "Kurzer Text.");
  const long = "Wort ".repeat(200);
  t.true(trimSnippet(long, { terms: new Set(["nichts"]), stem, maxChars: 50 }).startsWith("Wort"));
});

test("the snippet is always a contiguous piece of the normalised text, within the limit", (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 800 }), fc.integer({ min: 10, max: 200 }), (text, maxChars) => {
      const snippet = trimSnippet(text, { terms: new Set(["a", "e"]), stem, maxChars });
      const inner = snippet.replace(/^…/, "").replace(/…$/, "");
      t.true(text.replace(/\s+/g, " ").trim().includes(inner));
      t.true(inner.length <= maxChars);
    }),
    { numRuns: 200 },
  );
});
