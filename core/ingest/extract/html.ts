import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import type { ExtractedText } from "./file-types.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

/**
 * Page furniture, never content: removed before Readability looks for the article (it would keep a
 * page's navigation when little else is there) and again from a page without an article. A
 * <header> inside an <article> or <main> holds the article's own heading and stays.
 */
const FURNITURE =
  "script, style, noscript, template, nav, footer, aside, form, iframe, dialog, [role=navigation], [role=banner], [role=contentinfo], [role=search], [aria-hidden=true], body > header, :not(article, main, section) > header";

type ParsedDocument = ReturnType<typeof parseHTML>["document"];

function removeFurniture(document: ParsedDocument): void {
  for (const element of document.querySelectorAll(FURNITURE)) element.remove();
}

/**
 * An HTML page's main content as Markdown: furniture removed, then Mozilla's Readability (Firefox
 * Reader View) on a linkedom DOM picks the article — no scripts, navigation or footers — and turndown
 * writes it as Markdown. A page Readability finds no article in (a short snippet, a bare fragment)
 * keeps its body without the furniture. Shared by file uploads and web pages fetched by URL.
 */
export function htmlToMainMarkdown(html: string): { readonly markdown: string; readonly title: string } {
  const { document } = parseHTML(html);
  const title = (document.querySelector("title")?.textContent ?? "").trim();
  removeFurniture(document);
  // Readability changes the DOM it reads; the fallback reads a fresh one.
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], {
    maxElemsToParse: 200_000,
    charThreshold: 200,
  }).parse();
  if (article?.content && /\S/u.test(article.textContent ?? "")) {
    return { markdown: htmlToMarkdown(article.content), title: article.title?.trim() || title };
  }
  const { document: fresh } = parseHTML(html);
  removeFurniture(fresh);
  const body = fresh.querySelector("body")?.innerHTML ?? fresh.toString();
  return { markdown: htmlToMarkdown(body), title };
}

export function extractHtml(html: string): ExtractedText {
  return { type: "html", text: htmlToMainMarkdown(html).markdown };
}
