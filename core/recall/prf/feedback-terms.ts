import { idf } from "../bm25/bm25-parameters.js";
import type { Bm25Term } from "../bm25/plan-bm25-terms.js";

/** A feedback chunk's lexemes with their term frequencies (the tsvector's, as BM25 counts them). */
export interface FeedbackChunk {
  /** The chunk's say among the feedback chunks (its first-pass score; normalised here). */
  readonly weight: number;
  readonly lexemes: readonly { readonly lexeme: string; readonly tf: number }[];
}

/** How expansion terms are chosen from the feedback chunks (RecallTuning.prf). */
export interface FeedbackTermSettings {
  /** Expansion terms added to the query. */
  readonly terms: number;
  /** Query weight of the best expansion term (the user's words have 1); the others in proportion. */
  readonly weight: number;
  /** A term must occur in at least this many feedback chunks (1: any). */
  readonly minChunks: number;
  /**
   * Terms in more than this share of the workspace's chunks are skipped (1: none): English function
   * words pass the German analyser and, in a small workspace, keep a little idf.
   */
  readonly maxDfShare: number;
}

/**
 * RM3-style expansion terms (Lavrenko & Croft, "Relevance-Based Language Models", SIGIR 2001; Abdul-Jaleel
 * et al., UMass at TREC 2004): a term's relevance-model mass Σ_d w(d) · tf(t, d) / |d| over the
 * feedback chunks, times its idf — the analyser keeps English stop words (chunks are analysed as
 * German), so without idf "the" and "of" would lead. Terms already in the query, terms no other chunk
 * of the workspace holds (they only lift the chunk that has them, already on top) and terms in fewer
 * than `minChunks` feedback chunks are skipped. Each chosen term's BM25 weight is its idf times
 * `weight` × its mass over the best term's: the user's words keep their weights.
 */
export function feedbackTerms(
  chunks: readonly FeedbackChunk[],
  df: ReadonlyMap<string, number>,
  chunkCount: number,
  queryTerms: ReadonlySet<string>,
  settings: FeedbackTermSettings,
): Bm25Term[] {
  const total = chunks.reduce((sum, c) => sum + Math.max(0, c.weight), 0);
  if (total <= 0 || settings.terms <= 0 || settings.weight <= 0) return [];
  const mass = new Map<string, { mass: number; chunks: number }>();
  for (const chunk of chunks) {
    const length = chunk.lexemes.reduce((sum, l) => sum + l.tf, 0);
    if (length === 0) continue;
    const share = Math.max(0, chunk.weight) / total;
    for (const { lexeme, tf } of chunk.lexemes) {
      if (queryTerms.has(lexeme)) continue;
      const entry = mass.get(lexeme) ?? { mass: 0, chunks: 0 };
      entry.mass += (share * tf) / length;
      entry.chunks++;
      mass.set(lexeme, entry);
    }
  }
  const scored: { term: string; score: number; idf: number }[] = [];
  for (const [term, entry] of mass) {
    const termDf = df.get(term) ?? 0;
    if (termDf < 2 || entry.chunks < settings.minChunks || termDf > settings.maxDfShare * chunkCount)
      continue;
    const termIdf = idf(termDf, chunkCount);
    scored.push({ term, score: entry.mass * termIdf, idf: termIdf });
  }
  scored.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
  const chosen = scored.slice(0, settings.terms);
  const best = chosen[0]?.score ?? 0;
  if (best <= 0) return [];
  return chosen.map((t) => ({ term: t.term, weight: t.idf * settings.weight * (t.score / best) }));
}
