import test from "ava";
import { splitMarkdownBlocks } from "../../core/text/markdown-blocks.js";

const kinds = (text: string) =>
  splitMarkdownBlocks(text).map((block) => [block.kind, text.slice(block.start, block.end).trimEnd()]);

test("blocks tile the text, leading blank lines belong to the first block", (t) => {
  const text = "\n\n# Titel\n\nAbsatz eins.\nNoch eine Zeile.\n\n\nAbsatz zwei.";
  const blocks = splitMarkdownBlocks(text);
  t.is(blocks[0]?.start, 0);
  t.is(blocks.at(-1)?.end, text.length);
  for (const [i, block] of blocks.slice(1).entries()) t.is(blocks[i]?.end, block.start);
  t.deepEqual(kinds(text), [
    ["heading", "\n\n# Titel"],
    ["paragraph", "Absatz eins.\nNoch eine Zeile."],
    ["paragraph", "Absatz zwei."],
  ]);
});

test("a fenced code block is one block even with headings and blank lines inside", (t) => {
  const text = "Vorher.\n\n```python\n# kein Titel\n\nx = 1\n```\nNachher.";
  t.deepEqual(kinds(text), [
    ["paragraph", "Vorher."],
    ["code", "```python\n# kein Titel\n\nx = 1\n```"],
    ["paragraph", "Nachher."],
  ]);
});

test("a list with continuation lines, blank lines between items and a nested fence is one block", (t) => {
  const text = "- eins\n  weiter\n\n- zwei\n\n  ```\n  # code\n  ```\n1. drei\n\nDanach ein Absatz.";
  t.deepEqual(kinds(text), [
    ["list", "- eins\n  weiter\n\n- zwei\n\n  ```\n  # code\n  ```\n1. drei"],
    ["paragraph", "Danach ein Absatz."],
  ]);
});

test("setext headings, tables, quotes and thematic breaks are recognised", (t) => {
  const text = "Titel\n=====\n\n| a | b |\n|---|---|\n\n> Zitat\nweiter\n\n---\n\nText";
  const blocks = splitMarkdownBlocks(text);
  t.deepEqual(
    blocks.map((block) => [block.kind, block.headingLevel]),
    [
      ["heading", 1],
      ["table", 0],
      ["quote", 0],
      ["paragraph", 0],
      ["paragraph", 0],
    ],
  );
});

test("heading levels are read from ATX headings", (t) => {
  const levels = splitMarkdownBlocks("# a\n## b\n### c\n#nope").map((block) => [
    block.kind,
    block.headingLevel,
  ]);
  t.deepEqual(levels, [
    ["heading", 1],
    ["heading", 2],
    ["heading", 3],
    ["paragraph", 0],
  ]);
});
