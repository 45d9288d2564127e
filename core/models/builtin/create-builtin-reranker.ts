import { createEmptyLexicon } from "../lexicon/create-lexicon.js";
import { joinSeparableVerbs } from "../lexicon/join-separable-verbs.js";
import type { Lexicon } from "../lexicon/lexicon.js";
import type { Reranker } from "../reranker.js";
import type { SentenceEncoder } from "../sentence-encoder/create-use-lite-encoder.js";
import { createSentenceVectorCache } from "../sentence-encoder/sentence-vector-cache.js";
import type { Thesaurus } from "../thesaurus/thesaurus.js";
import {
  type BestSentenceScorer,
  type ChosenSentences,
  createBestSentenceScorer,
} from "./best-sentence-similarity.js";
import { createCompoundSplitter } from "./compound-splitter.js";
import { createFeatureContext, defaultSettingsFor } from "./create-feature-context.js";
import {
  createTokenMatcher,
  type RerankFeatures,
  rerankFeatures,
  type TokenMatcher,
} from "./rerank-features.js";
import { analyzeRerankQuery, type QueryWord } from "./rerank-query.js";
import { weighByWorkspace } from "./workspace-rarity.js";

/**
 * A conversation turn is stored as "Speaker: what was said" (render-session.ts). The speaker is who,
 * not what: matched, a name outweighs the topic in a short turn's cosine ("What did Anna say about
 * the move?" would favour Anna's turn on hiring over Jonas's on the move). Channels and the lexical
 * features still see it.
 */
const SPEAKER_LABEL = /^[^\n:]{1,60}:\s+/u;
const withoutSpeaker = (text: string) => text.replace(SPEAKER_LABEL, "");
const sentenceText = (c: { readonly text: string; readonly memoryType?: string | undefined }) =>
  c.memoryType === "episodic" ? withoutSpeaker(c.text) : c.text;

/**
 * Per passage the highest cosine of the query with one of its chosen English sentences. The encoder
 * reads English only: a passage not clearly English (by its chosen sentences' function words) gets the
 * median of the English ones (neither lifted nor pushed down), and with fewer than half of the
 * passages English none is scored.
 */
async function scoreEnglishSentences(
  embed: (texts: readonly string[]) => Promise<Float32Array[]>,
  query: string,
  passages: ChosenSentences,
): Promise<number[] | undefined> {
  const english = passages.filter((p) => p.english && p.sentences.length > 0);
  if (english.length * 2 < passages.length) return undefined;
  const [queryVector, ...sentenceVectors] = await embed([query, ...english.flatMap((p) => p.sentences)]);
  if (queryVector === undefined) return undefined;
  let next = 0;
  const best = passages.map((p) => {
    if (!p.english || p.sentences.length === 0) return undefined;
    let top: { score: number; vector: Float32Array | undefined } = { score: -1, vector: undefined };
    for (const _ of p.sentences) {
      const vector = sentenceVectors[next++];
      const score = dot(queryVector, vector);
      if (score > top.score) top = { score, vector };
    }
    return top;
  });
  // Two passages whose best sentences say nearly the same ("My job is at the bank" / "… at the
  // bakery", a statement and its update) are not told apart by the encoder: both get the higher
  // score, so recency, time and the lexical features decide between them.
  const scores = best.map((b, i) => {
    if (b === undefined) return undefined;
    let score = b.score;
    best.forEach((other, j) => {
      if (
        j !== i &&
        other !== undefined &&
        dot(b.vector ?? new Float32Array(), other.vector) >= NEAR_DUPLICATE
      ) {
        score = Math.max(score, other.score);
      }
    });
    return score;
  });
  const known = scores.filter((s): s is number => s !== undefined).sort((a, b) => a - b);
  const median = known[Math.floor(known.length / 2)] ?? 0;
  return scores.map((s) => s ?? median);
}

/** Cosine of two sentences above which the encoder is not asked to tell them apart (ADR 0760). */
const NEAR_DUPLICATE = 0.75;

function dot(a: Float32Array, b: Float32Array | undefined): number {
  if (b === undefined) return -1;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

export const BUILTIN_RERANKER_ID = "builtin-features-v1";
/** Sentence vectors the reranker keeps (≈ 2 KB each: ≈ 17 MB). */
const SENTENCE_VECTORS_KEPT = 8_192;
/**
 * Candidates whose best sentence the encoder reads, and one sentence each (the one holding the most
 * query words): the head of 20 with two sentences each lifted covidfaq_en as much (.736 / .725 against
 * .732 at weight 0.2) at two to three times the time (ADR 0760).
 */
const SEMANTIC_HEAD = 10;

/** Linear weights of the features; measured with `npm run eval` (docs/recall.md "Rerank"). */
export type RerankWeights = Readonly<Record<keyof RerankFeatures, number>>;

/**
 * Measured on the six eval sets (docs/recall.md "Rerank"): coverage lifts nDCG@10 on all of them when
 * blended with the fused order. Phrase order (the query's adjacent words in order) at 0.5 lifted
 * covidqa_en by 0.007 nDCG@10 over every query, the other sets within ±0.001, once coverage weighed
 * words by their workspace rarity (ADR 0640); proximity still costs some set (xquad_en2de, tatoeba)
 * what it gives another, so it is computed only on request.
 * Title match is kept small (derived titles repeat the first line); recency only touches episodic
 * memories, which the eval sets do not have. `repeat` is weighted per unit of the workspace's size
 * beyond REPEAT_FROM chunks (repeatScale): 0 in every evaluation set, where a fixed weight of 1 cost
 * up to 0.022 nDCG@10 (covidqa_en); in the grown synthetic workspace it lifts the passage about the
 * query's subject over near-duplicates that mention its words once (ADR 0550, docs/recall.md
 * "Rerank as a workspace grows").
 */
export const DEFAULT_RERANK_WEIGHTS: RerankWeights = {
  coverage: 1,
  repeat: 0.5,
  proximity: 0,
  phrase: 0.5,
  title: 0.1,
  recency: 0.2,
};

/** Workspaces up to this many chunks get no `repeat` term (above every evaluation set's size). */
export const REPEAT_FROM = 5_000;
/** The size factor stops growing here (≈ 273,000 chunks). */
const REPEAT_SCALE_MAX = 4;

/** The factor `repeat`'s weight is scaled by: ln(chunks / REPEAT_FROM) above it, at most 4; 0 up to it. */
export function repeatScale(workspaceChunks: number | undefined): number {
  if (workspaceChunks === undefined || workspaceChunks <= REPEAT_FROM) return 0;
  return Math.min(REPEAT_SCALE_MAX, Math.log(workspaceChunks / REPEAT_FROM));
}

export interface BuiltinRerankerOptions {
  /** Matches query words across German and English through their dictionary translations. */
  readonly lexicon?: Lexicon | undefined;
  /** Synonyms of the query's words count as the words, as in BM25 (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly weights?: Partial<RerankWeights>;
  readonly now?: () => Date;
  /** Match a passage's German compounds by their parts (ADR 0660); default true, with a lexicon. */
  readonly splitCompounds?: boolean;
  /** An English sentence encoder, loaded on first use (ADR 0760); unset: no semantic sentence scores. */
  readonly sentenceEncoder?: () => Promise<SentenceEncoder | undefined>;
}

/**
 * The built-in offline reranker (issue #6 item 5): no model weights, a linear score over features the
 * first stage lacks — coverage of the query's words (cross-lingual through the dictionary), their
 * repetition in large workspaces, their proximity and order, title match, and recency for episodic
 * memories. Recall blends its order with the fused order (core/recall/rerank/blend-reranked.ts).
 */
export function createBuiltinReranker(options: BuiltinRerankerOptions = {}): Reranker {
  const configured = { ...DEFAULT_RERANK_WEIGHTS, ...options.weights };
  const features = Object.keys(configured) as (keyof RerankFeatures)[];
  const now = options.now ?? (() => new Date());
  // The built-in embedder's features with their own word memo, built on first use: the workspace's
  // embedder may be another model, and passages are embedded in worker threads (ADR 0630).
  let sentences: BestSentenceScorer | undefined;
  const sentenceVectors = createSentenceVectorCache(SENTENCE_VECTORS_KEPT);
  const sentenceScorer = () => {
    if (sentences === undefined) {
      const lexicon = options.lexicon ?? createEmptyLexicon();
      sentences = createBestSentenceScorer(
        createFeatureContext(lexicon, defaultSettingsFor(lexicon), options.thesaurus),
      );
    }
    return sentences;
  };
  // Recall asks for the lexical scores and the best sentences of one query back to back: the query's
  // analysis (dictionary and thesaurus look-ups) and its matcher's token memo serve both.
  // German passages compound what queries (and translations of English ones) say in separate words.
  const split =
    options.lexicon === undefined || options.splitCompounds === false
      ? undefined
      : createCompoundSplitter(options.lexicon);
  const lexicon = options.lexicon;
  const joinVerbs =
    lexicon === undefined
      ? undefined
      : (text: string) =>
          new Map(joinSeparableVerbs(text, lexicon).map(({ finite, verb }) => [finite, verb] as const));
  let last: { query: string; words: QueryWord[]; match: TokenMatcher } | undefined;
  const analysed = (query: string) => {
    if (last?.query !== query) {
      const words = analyzeRerankQuery(query, options.lexicon, options.thesaurus);
      last = { query, words, match: createTokenMatcher(words) };
    }
    return last;
  };
  return {
    id: BUILTIN_RERANKER_ID,
    async rerank(query, candidates, context) {
      const weights = { ...configured, repeat: configured.repeat * repeatScale(context?.workspaceChunks) };
      // Features weighted 0 (proximity by default, repeat in small workspaces) add nothing: not
      // computed.
      const skip = new Set(features.filter((key) => weights[key] === 0));
      const { words: own, match } = analysed(query);
      // The matcher depends only on the words' stems: it serves the reweighed words as well.
      const words = weighByWorkspace(own, context?.wordDocumentFrequency, context?.workspaceChunks);
      const at = now();
      return candidates.map((c) => {
        const f = rerankFeatures(words, c, at, match, skip, split, joinVerbs);
        return features.reduce((sum, key) => sum + weights[key] * f[key], 0);
      });
    },
    async scoreBestSentences(query, candidates) {
      const { match } = analysed(query);
      return sentenceScorer().score(query, candidates.map(sentenceText), match);
    },
    async scoreSentencesSemantically(query, candidates, context) {
      // Loaded with the first English query: a process that answers none never spends its memory.
      if (options.sentenceEncoder === undefined || !sentenceScorer().isEnglish(query)) {
        return undefined;
      }
      const { match } = analysed(query);
      const head = candidates.slice(0, SEMANTIC_HEAD);
      const chosen = sentenceScorer().choose(head.map(sentenceText), match, 1);
      const encoder = await options.sentenceEncoder();
      if (encoder === undefined) return undefined;
      const embed = (texts: readonly string[]) =>
        sentenceVectors.embed(encoder, context?.tenantId ?? "", texts);
      const scores = await scoreEnglishSentences(embed, query, chosen);
      if (scores === undefined) return undefined;
      // Candidates below the scored head get the head's median: neither lifted nor pushed down.
      const median = [...scores].sort((a, b) => a - b)[Math.floor(scores.length / 2)] ?? 0;
      return candidates.map((_, i) => scores[i] ?? median);
    },
  };
}
