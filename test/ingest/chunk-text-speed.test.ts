import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import test from "ava";
import { approximateTokenizer } from "../../core/models/approximate-tokenizer.js";
import type { Tokenizer } from "../../core/models/embedding-provider.js";
import { chunkText } from "../../core/text/chunk-text.js";
import { createTinyModel, tokenizerJson } from "../helpers/onnx-models.js";
import {
  ENGLISH_MARKDOWN,
  GERMAN_MARKDOWN,
  largeDocument,
  wordTokenizer,
} from "../helpers/sample-documents.js";

/**
 * Issue 5 asks for a 100-page document (~250k characters) to be indexed in under 30 s; chunking must be
 * a small part of that. Measured here while idle: 20–50 ms with the simple tokenizers, 400–600 ms with
 * the WordPiece tokenizer (whose own single pass takes 130–250 ms). The bound asserted is loose because
 * other test files share the two cores; the measured times are logged.
 */
const hf = new HfTokenizer(tokenizerJson(createTinyModel()), {});
const wordPiece: Tokenizer = {
  countTokens: (text) => hf.tokenize(text, { add_special_tokens: false }).length,
};

const documents = {
  German: largeDocument(GERMAN_MARKDOWN, 250_000),
  English: largeDocument(ENGLISH_MARKDOWN, 250_000),
  "one paragraph": "Das ist ein Satz mit einigen Wörtern, die Datenschutzbeauftragter heißen. ".repeat(3400),
};
const tokenizers: Record<string, Tokenizer> = {
  "word tokenizer": wordTokenizer,
  approximateTokenizer,
  "WordPiece (@huggingface/tokenizers)": wordPiece,
};

/** Fastest of `runs` runs: the least disturbed by whatever else shares the cores. */
function fastest(runs: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

for (const [documentName, text] of Object.entries(documents)) {
  for (const [tokenizerName, tokenizer] of Object.entries(tokenizers)) {
    test.serial(
      `${documentName}, ${text.length} characters, ${tokenizerName}: chunked in under a second`,
      (t) => {
        chunkText(text.slice(0, 20_000), { tokenizer }); // warm up the JIT
        let chunks = 0;
        const chunkMs = fastest(2, () => {
          chunks = chunkText(text, { tokenizer }).length;
        });
        const passMs = fastest(2, () => tokenizer.countTokens(text));
        t.log(
          `${chunks} chunks in ${chunkMs.toFixed(0)} ms; one tokenizer pass over the text: ${passMs.toFixed(0)} ms`,
        );
        // The chunker counts the text about twice (segments, then each chunk whole); allow four passes plus
        // a fixed overhead, so the bound holds on a loaded machine and still catches an accidental O(n²).
        t.true(chunkMs < Math.max(1000, 4 * passMs + 250), `${chunkMs.toFixed(0)} ms`);
      },
    );
  }
}
