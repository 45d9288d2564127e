import test from "ava";
import { type Chunk, chunkText } from "../../core/text/chunk-text.js";
import {
  ENGLISH_MARKDOWN,
  GERMAN_MARKDOWN,
  largeDocument,
  wordTokenizer,
} from "../helpers/sample-documents.js";

const tokenizer = wordTokenizer;

function assertTiles(t: import("ava").ExecutionContext, text: string, chunks: readonly Chunk[]) {
  t.is(chunks[0]?.charStart, 0);
  t.is(chunks.at(-1)?.charEnd, text.length);
  chunks.forEach((chunk, i) => {
    t.is(chunk.ordinal, i);
    t.is(chunk.text, text.slice(chunk.charStart, chunk.charEnd));
    const next = chunks[i + 1];
    if (next !== undefined) t.true(next.charStart <= chunk.charEnd && next.charStart > chunk.charStart);
  });
}

/** The last non-blank line of a chunk. */
const lastLine = (chunk: Chunk) => chunk.text.trimEnd().split("\n").at(-1) ?? "";

test("a short text is one chunk holding all of it", (t) => {
  const text = "Die Katze schläft auf dem Sofa.";
  t.deepEqual(chunkText(text, { tokenizer }), [
    { ordinal: 0, text, charStart: 0, charEnd: text.length, tokenCount: tokenizer.countTokens(text) },
  ]);
});

test("empty and whitespace-only texts have no chunks", (t) => {
  t.deepEqual(chunkText("", { tokenizer }), []);
  t.deepEqual(chunkText(" \n\t\n ", { tokenizer }), []);
});

test("options out of range are refused", (t) => {
  t.throws(() => chunkText("x", { tokenizer, maxTokens: 1 }), { instanceOf: RangeError });
  t.throws(() => chunkText("x", { tokenizer, maxTokens: 100, overlapTokens: 50 }), {
    instanceOf: RangeError,
  });
  t.throws(() => chunkText("x", { tokenizer, overlapTokens: -1 }), { instanceOf: RangeError });
  t.throws(() => chunkText("x", { tokenizer, maxTokens: 10.5 }), { instanceOf: RangeError });
});

for (const [language, document] of [
  ["German", GERMAN_MARKDOWN],
  ["English", ENGLISH_MARKDOWN],
] as const) {
  test(`${language} Markdown: chunks tile the text, stay under the limit and never end right after a heading`, (t) => {
    const chunks = chunkText(document, { tokenizer, maxTokens: 80, overlapTokens: 10 });
    t.true(chunks.length > 3);
    assertTiles(t, document, chunks);
    for (const chunk of chunks) {
      t.true(chunk.tokenCount <= 80);
      t.is(chunk.tokenCount, tokenizer.countTokens(chunk.text));
      t.false(/^#{1,6} /.test(lastLine(chunk)), `chunk ${chunk.ordinal} ends with a heading`);
    }
  });

  test(`${language} Markdown: the fenced code block is kept whole in one chunk`, (t) => {
    const fence = /```[a-z]*\n[\s\S]*?```/.exec(document)?.[0] ?? "";
    t.true(fence.length > 0);
    const chunks = chunkText(document, { tokenizer, maxTokens: 80, overlapTokens: 10 });
    t.true(chunks.some((chunk) => chunk.text.includes(fence)));
  });
}

test("German: a long paragraph is cut at sentence ends, not after abbreviations or ordinals", (t) => {
  const paragraph =
    "Am 3. Oktober trat die Richtlinie in Kraft. Dr. Müller erläuterte sie z. B. in der Betriebsversammlung. ".repeat(
      12,
    );
  const chunks = chunkText(paragraph, { tokenizer, maxTokens: 60, overlapTokens: 8 });
  t.true(chunks.length > 2);
  for (const chunk of chunks.slice(0, -1)) {
    const end = chunk.text.trimEnd();
    t.true(end.endsWith("Kraft.") || end.endsWith("Betriebsversammlung."), `cut after "${end.slice(-20)}"`);
  }
});

test("English: chunks end between blocks, list items or sentences rather than between words", (t) => {
  const chunks = chunkText(ENGLISH_MARKDOWN, { tokenizer, maxTokens: 60, overlapTokens: 6 });
  t.true(chunks.length > 4);
  for (const chunk of chunks.slice(0, -1)) {
    t.regex(lastLine(chunk), /[.!?`]$/, `chunk ${chunk.ordinal} ends mid-sentence`);
  }
});

test("a whitespace-free run longer than a chunk is cut into pieces under the limit", (t) => {
  const blob = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(300);
  const text = `Anhang:\n\n${blob}\n\nEnde des Anhangs.`;
  const chunks = chunkText(text, { tokenizer, maxTokens: 100, overlapTokens: 10 });
  assertTiles(t, text, chunks);
  t.true(chunks.length >= Math.floor(tokenizer.countTokens(blob) / 100));
  for (const chunk of chunks) t.true(chunk.tokenCount <= 100);
});

test("surrogate pairs in a cut run are never split", (t) => {
  const text = "😀".repeat(2000);
  const counter = { countTokens: (s: string) => Math.ceil(s.length / 2) };
  const chunks = chunkText(text, { tokenizer: counter, maxTokens: 64, overlapTokens: 0 });
  assertTiles(t, text, chunks);
  for (const chunk of chunks) t.false(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(chunk.text));
});

test("with the defaults a 250k-character document becomes full chunks of at most 500 tokens", (t) => {
  const text = largeDocument(GERMAN_MARKDOWN, 250_000);
  const chunks = chunkText(text, { tokenizer });
  assertTiles(t, text, chunks);
  const sizes = chunks.map((chunk) => chunk.tokenCount);
  t.true(Math.max(...sizes) <= 500);
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  t.true(mean > 400, `mean chunk size ${mean}`);
  for (const [i, chunk] of chunks.entries()) {
    const next = chunks[i + 1];
    if (next === undefined) continue;
    const overlap = tokenizer.countTokens(text.slice(next.charStart, chunk.charEnd));
    t.true(Math.abs(overlap - 50) <= 10, `overlap ${overlap} between chunks ${i} and ${i + 1}`);
  }
});
