const MAX_DERIVED_TITLE = 120;

/**
 * A title for content stored without one (proto: "derived from the content's first line"): the first
 * non-empty line without Markdown heading marks, cut at a word boundary.
 */
export function deriveTitle(content: string): string {
  const line =
    content
      .split(/\r?\n/)
      .map((l) => l.replace(/^\s{0,3}#{1,6}\s+/, "").trim())
      .find((l) => l.length > 0) ?? "";
  if (line.length <= MAX_DERIVED_TITLE) return line;
  const cut = line.slice(0, MAX_DERIVED_TITLE);
  const space = cut.lastIndexOf(" ");
  return `${(space > MAX_DERIVED_TITLE / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The request's title when it has a non-blank one, else a derived one; `given` says which. */
export function resolveTitle(title: string | undefined, content: string): { title: string; given: boolean } {
  const trimmed = title?.trim() ?? "";
  return trimmed.length > 0 ? { title: trimmed, given: true } : { title: deriveTitle(content), given: false };
}
