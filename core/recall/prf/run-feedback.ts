import type { TransactionSql } from "../../store/database.js";
import type { VectorHit } from "../../vectors/vector-store.js";
import type { ResolvedRecallFilter } from "../filter/resolve-recall-filter.js";
import { type CandidateChunk, readCandidateChunks } from "../read-candidate-chunks.js";
import type { RecallDeps, RecallTuning } from "../recall-deps.js";
import type { RecallOptions } from "../recall-options.js";
import type { FulltextResult } from "../search-fulltext.js";
import type { VectorChannel } from "../vector-channel.js";
import { type FeedbackPass, runFeedbackPass } from "./feedback-pass.js";
import { rocchioVector } from "./rocchio-vector.js";

/** What the second passes found: either channel's hits, or undefined where that channel's stands. */
export interface FeedbackOutcome {
  readonly lexical?: FeedbackPass;
  readonly vectorHits?: VectorHit[];
  /** The first pass's chunks and those only the second passes found, hydrated in the same snapshot. */
  readonly chunks: ReadonlyMap<string, CandidateChunk>;
}

interface Context {
  readonly deps: RecallDeps;
  readonly tenantId: string;
  readonly options: RecallOptions;
  readonly tuning: RecallTuning;
}

/**
 * Both channels' second passes from the first pass's best chunks (ADR 0570): expansion terms for
 * BM25 (feedback-pass.ts) and, with `vectorWeight` > 0, the query vector moved towards the feedback
 * chunks' centroid (Rocchio) for the vector channel, run side by side. Undefined when neither changed.
 */
export async function runFeedback(
  tx: TransactionSql,
  { deps, tenantId, options, tuning }: Context,
  feedback: readonly { readonly chunk: CandidateChunk; readonly score: number }[],
  fulltext: FulltextResult,
  vectors: VectorChannel,
  chunks: ReadonlyMap<string, CandidateChunk>,
  filter: ResolvedRecallFilter | undefined,
): Promise<FeedbackOutcome | undefined> {
  const { prf } = tuning;
  const top = feedback.slice(0, prf.chunks);
  const lexicalRun =
    options.stages.fulltext && prf.weight > 0 && prf.terms > 0
      ? runFeedbackPass(
          tx,
          tenantId,
          top.map((f) => ({ chunkId: f.chunk.chunkId, score: f.score })),
          fulltext,
          prf,
        )
      : Promise.resolve(undefined);
  const queryVector = vectors.queryVector();
  const denseRun = async (): Promise<VectorHit[] | undefined> => {
    if (!options.stages.vector || prf.vectorWeight <= 0 || queryVector === undefined) return undefined;
    const embedded = await deps.embedder.embed(
      top.map((f) => f.chunk.content),
      "passage",
    );
    const moved = rocchioVector(
      queryVector,
      embedded.map((vector, i) => ({ vector, weight: top[i]?.score ?? 0 })),
      prf.vectorWeight,
    );
    return moved === undefined ? undefined : vectors.searchAgain(moved);
  };
  const [lexical, vectorHits] = await Promise.all([lexicalRun, denseRun()]);
  if (lexical === undefined && vectorHits === undefined) return undefined;
  const unseen = [
    ...(lexical?.hits.map((h) => h.chunkId) ?? []),
    ...(vectorHits?.map((h) => h.chunkId) ?? []),
  ].filter((id) => !chunks.has(id));
  const more = await readCandidateChunks(tx, tenantId, unseen, options.asOf, filter);
  return {
    ...(lexical === undefined ? {} : { lexical }),
    ...(vectorHits === undefined ? {} : { vectorHits }),
    chunks: more.size === 0 ? chunks : new Map([...chunks, ...more]),
  };
}
