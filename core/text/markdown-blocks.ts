/**
 * A line-based reading of Markdown's block structure — enough to cut between blocks rather than inside
 * them, not a renderer. Blocks tile the text: each block runs to the start of the next one, so blank lines
 * belong to the block before them and leading blank lines to the first block.
 */

export type BlockKind = "heading" | "paragraph" | "list" | "code" | "table" | "quote";

export interface MarkdownBlock {
  readonly start: number;
  readonly end: number;
  readonly kind: BlockKind;
  /** 1–6 for headings, 0 otherwise. */
  readonly headingLevel: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
export const LIST_ITEM = /^( {0,3})(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const TABLE_ROW = /^ {0,3}\|/;
const QUOTE = /^ {0,3}>/;
const BLANK = /^[ \t]*\r?$/;

interface OpenBlock {
  start: number;
  kind: BlockKind;
  headingLevel: number;
  /** False once a blank line (or a one-line block's end) closed it to continuation lines. */
  open: boolean;
  /** Set inside a fenced code block (also one nested in a list): the closing fence it waits for. */
  fence: string | null;
}

export function splitMarkdownBlocks(text: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let current: OpenBlock | null = null;
  const startBlock = (start: number, kind: BlockKind, headingLevel = 0): OpenBlock => {
    if (current !== null) {
      blocks.push({
        start: current.start,
        end: start,
        kind: current.kind,
        headingLevel: current.headingLevel,
      });
    }
    // The first block also owns any blank lines before it, so blocks cover the text from offset 0.
    return {
      start: blocks.length === 0 && current === null ? 0 : start,
      kind,
      headingLevel,
      open: true,
      fence: null,
    };
  };

  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, newline === -1 ? text.length : newline);
    current = classifyLine(line, lineStart, current, startBlock);
    lineStart = lineEnd;
  }
  if (current !== null) {
    const last: OpenBlock = current;
    blocks.push({ start: last.start, end: text.length, kind: last.kind, headingLevel: last.headingLevel });
  }
  return blocks;
}

type StartBlock = (start: number, kind: BlockKind, headingLevel?: number) => OpenBlock;

/** Decides whether a line continues the current block or starts a new one; returns the current block. */
function classifyLine(
  line: string,
  lineStart: number,
  current: OpenBlock | null,
  startBlock: StartBlock,
): OpenBlock | null {
  if (current?.fence != null) {
    if (closesFence(line, current.fence)) {
      current.fence = null;
      if (current.kind === "code") current.open = false;
    }
    return current;
  }
  if (BLANK.test(line)) {
    // A blank line closes the block to lazy continuation lines; a list still continues with another
    // item or an indented line (checked below).
    if (current !== null) current.open = false;
    return current;
  }
  const indent = leadingIndent(line);

  if (current?.kind === "list" && indent >= 2 && !LIST_ITEM.test(line)) {
    const fence = FENCE.exec(line.trimStart());
    if (fence?.[1] !== undefined) current.fence = fence[1];
    current.open = true;
    return current;
  }
  const fence = FENCE.exec(line);
  if (fence?.[1] !== undefined) {
    const block = startBlock(lineStart, "code");
    block.fence = fence[1];
    return block;
  }
  const heading = ATX_HEADING.exec(line);
  if (heading?.[1] !== undefined) {
    const block = startBlock(lineStart, "heading", heading[1].length);
    block.open = false;
    return block;
  }
  const underline = SETEXT_UNDERLINE.exec(line);
  if (underline?.[1] !== undefined && current?.kind === "paragraph" && current.open) {
    current.kind = "heading";
    current.headingLevel = underline[1].startsWith("=") ? 1 : 2;
    current.open = false;
    return current;
  }
  if (THEMATIC_BREAK.test(line)) {
    const block = startBlock(lineStart, "paragraph");
    block.open = false;
    return block;
  }
  if (LIST_ITEM.test(line)) {
    if (current?.kind === "list") {
      current.open = true;
      return current;
    }
    return startBlock(lineStart, "list");
  }
  if (TABLE_ROW.test(line)) {
    return current?.kind === "table" && current.open ? current : startBlock(lineStart, "table");
  }
  if (QUOTE.test(line)) {
    return current?.kind === "quote" && current.open ? current : startBlock(lineStart, "quote");
  }
  // A plain text line: lazy continuation of an open paragraph, quote or list item, else a new paragraph.
  const continues =
    current?.open === true &&
    (current.kind === "paragraph" || current.kind === "quote" || current.kind === "list");
  return continues ? current : startBlock(lineStart, "paragraph");
}

function closesFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  const char = fence.charAt(0);
  if (trimmed.length < fence.length) return false;
  for (let i = 0; i < trimmed.length; i++) if (trimmed.charAt(i) !== char) return false;
  return true;
}

function leadingIndent(line: string): number {
  let width = 0;
  for (const char of line) {
    if (char === " ") width += 1;
    else if (char === "\t") width += 4 - (width % 4);
    else break;
  }
  return width;
}
