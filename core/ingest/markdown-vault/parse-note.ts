import { createHash } from "node:crypto";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { parse as parseYaml } from "yaml";

/** A `[[target#heading|alias]]` of a note: the note it names (heading and alias only shape the text). */
export interface WikiLink {
  readonly target: string;
  readonly heading: string | undefined;
  readonly alias: string | undefined;
}

/** One Markdown file of a vault, read: what becomes its memory and its links. */
export interface ParsedNote {
  /** Path inside the vault, `/`-separated. */
  readonly path: string;
  /** Front matter `title`, else the file name without `.md`. */
  readonly title: string;
  /** The note without its front matter: what is indexed. */
  readonly body: string;
  readonly tags: readonly string[];
  /** The front matter's other keys (JSON: dates as ISO strings). */
  readonly frontMatter: JsonObject;
  /** Other names the note is linked by (front matter `aliases` / `alias`). */
  readonly aliases: readonly string[];
  readonly links: readonly WikiLink[];
  /** SHA-256 of the whole file: a re-run finds an unchanged note by it. */
  readonly sha256: string;
}

/** The front matter block: `---` on the first line up to the next `---` (or `...`) line. */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** Obsidian's wikilinks and embeds: `[[Note]]`, `[[Note|alias]]`, `[[Note#Heading]]`, `![[Note]]`. */
const WIKILINK = /!?\[\[([^[\]|#\n]*)(?:#([^[\]|\n]*))?(?:\|([^[\]\n]*))?\]\]/g;
const MAX_TAGS = 64;
const MAX_TAG_LENGTH = 100;

export class NoteError extends Error {}

/** Reads one note; a front matter that is not a YAML mapping is a NoteError naming the problem. */
export function parseNote(path: string, text: string): ParsedNote {
  const sha256 = createHash("sha256").update(text).digest("hex");
  const match = FRONT_MATTER.exec(text);
  let data: Record<string, unknown> = {};
  if (match) {
    let parsed: unknown;
    try {
      parsed = parseYaml(match[1] ?? "");
    } catch (error) {
      throw new NoteError(`front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new NoteError("front matter must be a YAML mapping (key: value lines)");
      }
      data = parsed as Record<string, unknown>;
    }
  }
  const body = match ? text.slice(match[0].length) : text;
  const { title, tags, tag, aliases, alias, ...rest } = data;
  const fileName = path.split("/").at(-1)?.replace(/\.md$/i, "") ?? path;
  return {
    path,
    title: typeof title === "string" && title.trim() !== "" ? title.trim() : fileName,
    body,
    tags: tagList([tags, tag]),
    frontMatter: toJsonObject(rest),
    aliases: stringList([aliases, alias]),
    links: wikiLinks(body),
    sha256,
  };
}

export function wikiLinks(body: string): WikiLink[] {
  const links: WikiLink[] = [];
  for (const m of body.matchAll(WIKILINK)) {
    const target = (m[1] ?? "").trim();
    // `[[#Heading]]` points into the note itself.
    if (target === "") continue;
    links.push({ target, heading: m[2]?.trim() || undefined, alias: m[3]?.trim() || undefined });
  }
  return links;
}

/** Strings of a YAML value that is a string or a list of them. */
function stringList(values: readonly unknown[]): string[] {
  return values
    .flatMap((v) => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]))
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map((v) => String(v).trim())
    .filter((v) => v !== "");
}

/** Obsidian tags: a list, or one string split at commas and spaces; without `#`, unique, bounded. */
function tagList(values: readonly unknown[]): string[] {
  const words = stringList(values).flatMap((v) => v.split(/[,\s]+/));
  const tags = words.map((w) => w.replace(/^#+/, "")).filter((w) => w !== "" && w.length <= MAX_TAG_LENGTH);
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

/** YAML → JSON (dates become ISO strings, other non-JSON values their string form). */
function toJsonObject(value: Record<string, unknown>): JsonObject {
  const json = JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
  ) as JsonValue;
  return json !== null && typeof json === "object" && !Array.isArray(json) ? json : {};
}
