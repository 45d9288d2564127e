import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import test from "ava";
import fc from "fast-check";
import type { Tokenizer } from "../../core/models/embedding-provider.js";
import { type Chunk, chunkText } from "../../core/text/chunk-text.js";
import { createTinyModel, tokenizerJson } from "../helpers/onnx-models.js";
import { wordTokenizer } from "../helpers/sample-documents.js";

/**
 * Properties of chunkText over generated Markdown (German and English letters, headings, paragraphs,
 * lists, code fences) and over arbitrary Unicode.
 *
 * Overlap tolerance: with an additive tokenizer, the overlap between consecutive chunks is within
 * max(one word's tokens, 20 % of the target) of the target — it starts at a word start (closest to the
 * target, or a sentence start within ±20 %). Words here are at most 12 characters = 4 tokens.
 */

const MAX_WORD_TOKENS = 4;
const LETTERS = [..."abcdefghijklmnopqrstuvwxyzäöüßABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ0123456789"];

const word = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 12 });
const words = (min: number, max: number) =>
  fc.array(word, { minLength: min, maxLength: max }).map((list) => list.join(" "));
const sentence = fc
  .tuple(words(1, 15), fc.constantFrom(".", "!", "?", ",", "", ":", "."))
  .map(([text, end]) => text + end);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 6 }).map((list) => list.join(" "));
const heading = fc
  .tuple(fc.integer({ min: 1, max: 4 }), words(1, 5))
  .map(([level, text]) => `${"#".repeat(level)} ${text}`);
const list = fc
  .array(sentence, { minLength: 1, maxLength: 6 })
  .map((items) => items.map((item) => `- ${item}`).join("\n"));
const code = fc
  .array(words(0, 8), { minLength: 1, maxLength: 8 })
  .map((lines) => `\`\`\`\n${lines.join("\n")}\n\`\`\``);
const block = fc.oneof(
  { arbitrary: paragraph, weight: 4 },
  { arbitrary: heading, weight: 1 },
  { arbitrary: list, weight: 1 },
  { arbitrary: code, weight: 1 },
);
const separator = fc.constantFrom("\n\n", "\n", "\n\n\n", " \n\n", "\n\n  ");
const markdown = fc
  .tuple(
    fc.constantFrom("", "\n", "  "),
    fc.array(fc.tuple(block, separator), { minLength: 1, maxLength: 30 }),
  )
  .map(([lead, parts]) => lead + parts.map(([text, sep]) => text + sep).join(""));

const limits = fc.integer({ min: 16, max: 200 }).chain((maxTokens) =>
  fc.record({
    maxTokens: fc.constant(maxTokens),
    overlapTokens: fc.integer({ min: 0, max: Math.floor(maxTokens / 4) }),
  }),
);

const anyText = fc
  .array(
    fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: fc.constantFrom(...LETTERS), maxLength: 300 }),
      fc.constantFrom(" ", "\n", "\n\n", "# ", "- ", "```\n", ". ", "\u00a0"),
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(""));

const hf = new HfTokenizer(tokenizerJson(createTinyModel()), {});
const modelTokenizer: Tokenizer = {
  countTokens: (text) => hf.tokenize(text, { add_special_tokens: false }).length,
};

const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/** Chunks tile the text: start at 0, end at its end, each next chunk starts inside or at the end of the previous. */
function tiles(text: string, chunks: readonly Chunk[], tokenizer: Tokenizer, maxTokens: number): boolean {
  if (!/\S/.test(text)) return chunks.length === 0;
  if (chunks[0]?.charStart !== 0 || chunks.at(-1)?.charEnd !== text.length) return false;
  return chunks.every((chunk, i) => {
    const next = chunks[i + 1];
    return (
      chunk.ordinal === i &&
      chunk.text === text.slice(chunk.charStart, chunk.charEnd) &&
      chunk.charEnd > chunk.charStart &&
      chunk.tokenCount === tokenizer.countTokens(chunk.text) &&
      chunk.tokenCount <= maxTokens &&
      (next === undefined ||
        (next.charStart > chunk.charStart && next.charStart <= chunk.charEnd && next.charEnd > chunk.charEnd))
    );
  });
}

test("every character is covered, chunks are exact slices, none is over the limit (additive tokenizer)", (t) => {
  fc.assert(
    fc.property(markdown, limits, (text, { maxTokens, overlapTokens }) => {
      const chunks = chunkText(text, { tokenizer: wordTokenizer, maxTokens, overlapTokens });
      return tiles(text, chunks, wordTokenizer, maxTokens);
    }),
  );
  t.pass();
});

test("no chunk is over the limit counted by a real WordPiece tokenizer (not additive across boundaries)", (t) => {
  fc.assert(
    fc.property(markdown, limits, (text, { maxTokens, overlapTokens }) => {
      const chunks = chunkText(text, { tokenizer: modelTokenizer, maxTokens, overlapTokens });
      return tiles(text, chunks, modelTokenizer, maxTokens);
    }),
  );
  t.pass();
});

test("chunk boundaries never fall inside a word", (t) => {
  fc.assert(
    fc.property(markdown, limits, (text, { maxTokens, overlapTokens }) => {
      const chunks = chunkText(text, { tokenizer: wordTokenizer, maxTokens, overlapTokens });
      return chunks.every((chunk) =>
        [chunk.charStart, chunk.charEnd].every(
          (pos) => pos === 0 || pos === text.length || isSpace(text[pos - 1]) || isSpace(text[pos]),
        ),
      );
    }),
  );
  t.pass();
});

test("consecutive chunks overlap by the target within max(one word, 20 %)", (t) => {
  fc.assert(
    fc.property(markdown, limits, (text, { maxTokens, overlapTokens }) => {
      const chunks = chunkText(text, { tokenizer: wordTokenizer, maxTokens, overlapTokens });
      const tolerance = Math.max(MAX_WORD_TOKENS, Math.ceil(0.2 * overlapTokens));
      return chunks.slice(1).every((next, i) => {
        const previous = chunks[i] as Chunk;
        if (overlapTokens === 0) return next.charStart === previous.charEnd;
        const overlap = wordTokenizer.countTokens(text.slice(next.charStart, previous.charEnd));
        return Math.abs(overlap - overlapTokens) <= tolerance;
      });
    }),
  );
  t.pass();
});

test("chunking is deterministic", (t) => {
  fc.assert(
    fc.property(markdown, limits, (text, { maxTokens, overlapTokens }) => {
      const options = { tokenizer: modelTokenizer, maxTokens, overlapTokens };
      t.deepEqual(chunkText(text, options), chunkText(text, options));
    }),
  );
});

test("arbitrary Unicode (lone surrogates, no-break spaces, long runs) still tiles under the limit", (t) => {
  fc.assert(
    fc.property(anyText, limits, (text, { maxTokens, overlapTokens }) => {
      const chunks = chunkText(text, { tokenizer: wordTokenizer, maxTokens, overlapTokens });
      return tiles(text, chunks, wordTokenizer, maxTokens);
    }),
  );
  t.pass();
});
