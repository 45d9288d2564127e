import { gfm } from "@joplin/turndown-plugin-gfm";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/**
 * HTML → Markdown (turndown with GitHub tables), so structure survives into the chunker: headings
 * as `#`, lists as `-` / `1.` items, tables as `| … |` rows (docs/ingest.md "Files"). Links keep
 * their text only and images are dropped: URLs and image names would be noise in the indexed text.
 */
const turndown = new TurndownService({
  headingStyle: "atx",
  bulletListMarker: "-",
  codeBlockStyle: "fenced",
  emDelimiter: "_",
});
turndown.use(gfm);
turndown.remove([
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "img",
  "picture",
  "video",
  "audio",
  "form",
  "button",
  "select",
  "input",
  "textarea",
]);
turndown.addRule("link-text", {
  filter: "a",
  replacement: (content) => content,
});

/**
 * A table without header cells (Word's tables, most hand-written ones) would become a Markdown table
 * under an empty header row; its first row is taken as the header instead.
 */
function withHeaderRows(html: string): string {
  if (!/<table/i.test(html)) return html;
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const table of document.querySelectorAll("table")) {
    if (table.querySelector("th")) continue;
    const first = table.querySelector("tr");
    for (const cell of first ? [...first.querySelectorAll("td")] : []) {
      const header = document.createElement("th");
      header.innerHTML = cell.innerHTML;
      cell.replaceWith(header);
    }
  }
  return document.querySelector("body")?.innerHTML ?? html;
}

export function htmlToMarkdown(html: string): string {
  return turndown
    .turndown(withHeaderRows(html))
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
