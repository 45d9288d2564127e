/**
 * One term of a thesaurus line as it can be searched: "Bude (ugs.)" → "bude", "(sich) anstecken" →
 * "anstecken", "city (generic term)" → undefined. Terms marked as another relation than synonymy —
 * hypernyms and hyponyms ("Oberbegriff", "Unterbegriff", "generic term"), antonyms, related and
 * similar terms — are dropped: a hypernym ("Gebäude" for "Haus") widens a query instead of rephrasing
 * it. Register and field labels ("ugs.", "fachspr.", "Hauptform", "engl.") only describe a synonym.
 * Elliptic entries ("Haus...", "im Jahr (...)") are dropped: they are not words a text contains.
 */
const OTHER_RELATION =
  /\((?:oberbegriff|unterbegriff|generic term|antonym|antonym term|related term|similar term)\)/i;
const PARENTHESISED = /\([^()]*\)/g;

export function cleanThesaurusTerm(raw: string): string | undefined {
  if (OTHER_RELATION.test(raw) || raw.includes("...") || raw.includes("…")) return undefined;
  return plainThesaurusTerm(raw);
}

/** The term without its annotations, whatever relation they mark. */
export function plainThesaurusTerm(raw: string): string | undefined {
  const term = raw.replace(PARENTHESISED, " ").replace(/\s+/g, " ").trim().toLowerCase();
  return term.length === 0 ? undefined : term;
}
