import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import type { ExtractedText } from "./file-types.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

/** Elements that are page furniture, not content: dropped when Readability finds no article. */
const FURNITURE =
  "script, style, noscript, template, nav, header, footer, aside, form, iframe, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]";

/**
 * An HTML page's main content as Markdown: Mozilla's Readability (Firefox Reader View) on a linkedom
 * DOM picks the article — no scripts, navigation or footers — and turndown writes it as Markdown.
 * A page Readability finds no article in (a short snippet, a bare fragment) keeps its body without
 * the furniture above. Shared by file uploads and web pages fetched by URL.
 */
export function htmlToMainMarkdown(html: string): { readonly markdown: string; readonly title: string } {
  const { document } = parseHTML(html);
  const title = (document.querySelector("title")?.textContent ?? "").trim();
  // Readability changes the DOM it reads; the fallback reads a fresh one.
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
    maxElemsToParse: 200_000,
    charThreshold: 200,
  }).parse();
  if (article?.content && /\S/u.test(article.textContent ?? "")) {
    return { markdown: htmlToMarkdown(article.content), title: article.title?.trim() || title };
  }
  const { document: fresh } = parseHTML(html);
  for (const element of fresh.querySelectorAll(FURNITURE)) element.remove();
  const body = fresh.querySelector("body")?.innerHTML ?? fresh.toString();
  return { markdown: htmlToMarkdown(body), title };
}

export function extractHtml(html: string): ExtractedText {
  return { type: "html", text: htmlToMainMarkdown(html).markdown };
}
