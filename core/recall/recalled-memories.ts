import { cachedGermanStem } from "../models/builtin/stem-like-index.js";
import { explainHit, type RecallExplanation } from "./explain/explain-hit.js";
import type { FirstStage } from "./first-stage.js";
import type { Candidate, HitSource } from "./recall-candidate.js";
import { trimSnippet } from "./snippet/trim-snippet.js";
import type { QueryTime } from "./time/parse-query-time.js";

export interface RecalledMemory {
  readonly memoryId: string;
  readonly title: string;
  readonly content: string;
  readonly snippet: string;
  readonly score: number;
  readonly source: HitSource;
  readonly hops: number;
  readonly validFrom: Date;
  readonly validTo: Date | null;
  readonly memoryType: string;
  readonly kind: string;
  readonly origin: string;
  /** A PDF upload's pages the hit's chunk spans. */
  readonly page?: number;
  readonly pageEnd?: number;
  /** Only when the recall asked to explain. */
  readonly explanation?: RecallExplanation;
}

/** The first k of the final order as the hits recall answers, with snippets and, if asked, explanations. */
export function toRecalledMemories(
  ordered: readonly Candidate[],
  k: number,
  explain: boolean | undefined,
  first: Pick<FirstStage, "fulltext" | "share" | "fulltextHits" | "vectorHitsKnown" | "feedbackTerms">,
  queryTime: QueryTime | undefined,
): RecalledMemory[] {
  const { share, fulltextHits, vectorHitsKnown } = first;
  const lexemes = new Set(first.fulltext.terms.map((t) => t.term));
  // Feedback terms (ADR 0570) count as matched in explanations; snippets centre on the user's words.
  const explained =
    first.feedbackTerms === undefined ? lexemes : new Set([...lexemes, ...first.feedbackTerms]);
  const stem = cachedGermanStem;
  return ordered.slice(0, k).map(
    (c): RecalledMemory => ({
      memoryId: c.chunk.memoryId,
      title: c.chunk.title,
      content: c.chunk.content,
      snippet: trimSnippet(c.chunk.content, { terms: lexemes, stem }),
      score: c.score,
      source: c.source,
      hops: c.hops,
      validFrom: c.chunk.validFrom,
      validTo: c.chunk.validTo,
      memoryType: c.chunk.memoryType,
      kind: c.chunk.kind,
      origin: c.chunk.origin,
      ...(c.chunk.page === undefined ? {} : { page: c.chunk.page }),
      ...(c.chunk.pageEnd === undefined ? {} : { pageEnd: c.chunk.pageEnd }),
      ...(explain
        ? { explanation: explainHit(c, share, fulltextHits, vectorHitsKnown, explained, queryTime) }
        : {}),
    }),
  );
}
