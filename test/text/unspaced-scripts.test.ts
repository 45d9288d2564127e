import test from "ava";
import fc from "fast-check";
import {
  approximateTokenCount,
  approximateTokenizer,
} from "../../core/models/builtin/approximate-token-count.js";
import { tokenizeWords } from "../../core/models/builtin/tokenize-words.js";
import { matchedTerms } from "../../core/recall/explain/matched-terms.js";
import { trimSnippet } from "../../core/recall/snippet/trim-snippet.js";
import { chunkText } from "../../core/text/chunk-text.js";
import { hasUnspacedScript, spaceUnspacedWords, wordSpans } from "../../core/text/unspaced-scripts.js";

// Scripts written without spaces between words (ADR 0670): Chinese, Japanese and Korean runs become
// overlapping bigrams, Thai, Lao, Khmer and Burmese runs their dictionary words, for the index and the
// built-in models; text in other scripts is left exactly as it was.

const identity = (word: string) => word;

test("a CJK run becomes its overlapping bigrams, a lone letter stays, other words stay", (t) => {
  t.is(spaceUnspacedWords("发布计划"), " 发布 布计 计划 ");
  t.deepEqual(tokenizeWords("我们讨论发布计划。猫 iPhone手机"), [
    "我们",
    "们讨",
    "讨论",
    "论发",
    "发布",
    "布计",
    "计划",
    "猫",
    "iphone",
    "手机",
  ]);
  // Katakana's prolonged sound mark and Hangul belong to their runs; the ideographic full stop does not.
  t.deepEqual(tokenizeWords("コーヒー。회의"), ["コー", "ーヒ", "ヒー", "회의"]);
});

test("text without CJK letters is analysed as before", (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      const latin = text.replace(/[^ -\u024f\s]/gu, "");
      t.is(spaceUnspacedWords(latin), latin);
      t.deepEqual(
        tokenizeWords(latin),
        latin
          .normalize("NFC")
          .toLowerCase()
          .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [],
      );
    }),
    { numRuns: 300 },
  );
});

test("word spans point at their bigrams in the text, surrogate pairs included", (t) => {
  const text = "Anna: 发布计划 𠀀𠀁好 abc";
  const spans = wordSpans(text);
  for (const span of spans) t.is(text.slice(span.start, span.end), span.word);
  t.deepEqual(
    spans.map((s) => s.word),
    ["Anna", "发布", "布计", "计划", "𠀀𠀁", "𠀁好", "abc"],
  );
});

test("explanations and snippets find the bigrams a query matched", (t) => {
  t.deepEqual(matchedTerms("我们下周二讨论发布计划", ["计划", "预算", "讨论"], identity), ["计划", "讨论"]);
  const text = `${"今天天气很好，我们去公园散步。".repeat(30)}财务部门明天提交年度预算报告。${"晚上吃饭。".repeat(30)}`;
  const snippet = trimSnippet(text, { terms: new Set(["预算", "报告"]), stem: identity, maxChars: 60 });
  t.true(snippet.includes("预算报告"), snippet);
});

test("a long Chinese text is cut into chunks a real model's 500 tokens hold", (t) => {
  const sentence = "我们下周二在北京讨论新版本的发布计划和年度预算。";
  const text = sentence.repeat(150);
  const chunks = chunkText(text, { tokenizer: approximateTokenizer });
  t.true(chunks.length >= 6, `${chunks.length} chunks`);
  for (const chunk of chunks) {
    t.true(approximateTokenCount(chunk.text) <= 500);
    // About a character a token: a chunk is not thousands of characters of one "word".
    t.true(chunk.text.length <= 520, `${chunk.text.length} characters`);
  }
});

test("the fast pre-check lets through every letter of these scripts Unicode knows", (t) => {
  const letter =
    /(?=[\p{L}\p{M}])[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}\p{sc=Thai}\p{sc=Laoo}\p{sc=Khmr}\p{sc=Mymr}]/u;
  const missed: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    // A CJK mark alone is no letter (the CJK runs are letters only); every Thai-like mark is checked.
    if (letter.test(c) && !hasUnspacedScript(`abc ${c}`) && !/\p{M}/u.test(c)) missed.push(cp.toString(16));
    if (
      /\p{M}/u.test(c) &&
      /[\p{sc=Thai}\p{sc=Laoo}\p{sc=Khmr}\p{sc=Mymr}]/u.test(c) &&
      !hasUnspacedScript(c)
    )
      missed.push(cp.toString(16));
  }
  t.deepEqual(missed, []);
});

test("Thai, Lao, Khmer and Burmese runs become their dictionary words", (t) => {
  t.deepEqual(tokenizeWords("ผมไปโรงเรียนทุกวัน"), ["ผม", "ไป", "โรงเรียน", "ทุก", "วัน"]);
  t.deepEqual(tokenizeWords("ຂ້ອຍໄປໂຮງຮຽນ"), ["ຂ້ອຍ", "ໄປ", "ໂຮງຮຽນ"]);
  t.deepEqual(tokenizeWords("ខ្ញុំទៅសាលារៀន"), ["ខ្ញុំ", "ទៅ", "សាលារៀន"]);
  t.is(spaceUnspacedWords("Anna: ผมไปโรงเรียน"), "Anna:  ผม ไป โรงเรียน ");
  const text = "Anna ผมไปโรงเรียน 2026";
  for (const span of wordSpans(text)) t.is(text.slice(span.start, span.end), span.word);
});
