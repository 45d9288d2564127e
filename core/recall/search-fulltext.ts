import { tokenizeWords } from "../models/builtin/tokenize-words.js";
import type { Lexicon } from "../models/lexicon/lexicon.js";
import type { Thesaurus } from "../models/thesaurus/thesaurus.js";
import type { TransactionSql } from "../store/database.js";
import { type AnalyzedLexeme, analyzeQueryTexts } from "./bm25/analyze-query-texts.js";
import type { Bm25IndexCache } from "./bm25/bm25-index-cache.js";
import { MAX_TF_PART } from "./bm25/bm25-parameters.js";
import { type Bm25Term, planBm25Terms } from "./bm25/plan-bm25-terms.js";
import type { ScoredChunk } from "./bm25/scored-chunk.js";
import { searchBm25 } from "./bm25/search-bm25.js";
import { searchBm25FromIndex } from "./bm25/search-bm25-from-index.js";
import {
  buildQueryTexts,
  DEFAULT_QUERY_EXPANSION,
  type QueryExpansionSettings,
} from "./expand/build-query-texts.js";
import { compoundJoinCandidates } from "./expand/compound-join-candidates.js";
import { findCompoundTerms } from "./expand/find-compound-terms.js";
import type { ResolvedRecallFilter } from "./filter/resolve-recall-filter.js";
import { readCollectionStatistics } from "./read-collection-statistics.js";

export interface FulltextResult {
  readonly hits: ScoredChunk[];
  /** The lexemes searched (for snippets and the built-in reranker's term matching). */
  readonly terms: readonly Bm25Term[];
  /** Which design answered: the index ("index…"), SQL ("sql…"), point in time ("index-at", "at"). */
  readonly path: string;
  /**
   * The best score any chunk could reach: Σ term weight × (k1 + 1). A hit's score over it is how much
   * of the query's idf mass the hit matches — comparable across queries, unlike raw BM25 scores.
   */
  readonly maxScore: number;
  /**
   * Share of the query's own lexemes (not its translations) that occur in the tenant's current chunks:
   * near 1 when query and memories share a language, low across languages (fusion's channel share).
   */
  readonly coverage: number;
  /** The tenant's current chunks (BM25's N): fusion's workspace-size feature. */
  readonly chunkCount: number;
  /**
   * How many current chunks hold each word of the query (lower-cased, as analysed alone by the same
   * analyzer as the chunks; words it drops as stop words are absent): the built-in reranker weighs
   * a word common in this workspace less (ADR 0640). Unset when the channel was off.
   */
  readonly wordDocumentFrequency?: ReadonlyMap<string, number>;
  /**
   * Scores other terms the way these hits were scored (same snapshot, statistics, filter, `as_of`):
   * pseudo-relevance feedback's second pass (ADR 0570). Unset when the channel was off.
   */
  readonly searchTerms?: (terms: readonly Bm25Term[]) => Promise<ScoredChunk[]>;
  /**
   * Scores these chunks with this query's terms, as the hits were scored (same snapshot, statistics,
   * `as_of`; exact SQL): the time channel's chunks, which BM25's own top k may have left out (ADR 0610).
   */
  readonly scoreChunks?: (chunkIds: readonly string[]) => Promise<ScoredChunk[]>;
}

export interface FulltextOptions {
  readonly query: string;
  readonly depth: number;
  readonly asOf?: Date | undefined;
  readonly lexicon?: Lexicon | undefined;
  /** Synonyms for the query's words (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly expansion?: QueryExpansionSettings;
  /** Weight of a vocabulary compound standing in for two query words. */
  readonly compoundJoinWeight?: number;
  /** Only chunks of memories matching it are ranked (ADR 0220). */
  readonly filter?: ResolvedRecallFilter | undefined;
  /**
   * The process's derived BM25 indexes (ADR 0230); unset: the SQL design (BM25_INDEX=sql). Recall
   * reads the index when it is current for this snapshot, SQL otherwise.
   */
  readonly index?: Bm25IndexCache | undefined;
  /**
   * When the tenant's index has moved past this recall's snapshot (a write committed since it began),
   * throw Bm25IndexAhead instead of scoring in SQL: the caller retries in a new snapshot, which the
   * index then answers — a transaction's begin instead of a scan of the tenant's tsvectors.
   */
  readonly retryWhenIndexAhead?: boolean;
}

/** The shared BM25 index is ahead of this recall's snapshot; a newer snapshot can use it. */
export class Bm25IndexAhead extends Error {
  constructor() {
    super("BM25 index ahead of the recall's snapshot");
  }
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

const maxBm25Score = (terms: readonly Bm25Term[]) =>
  terms.reduce((sum, t) => sum + t.weight * MAX_TF_PART, 0);

/**
 * The lexemes that count towards the query's best possible score (fusion's calibration): all but
 * those of synonyms whose word occurs in the workspace. A synonym stands in for its word: where the
 * word occurs its mass is already counted, and counting the synonym's too lowered every hit's
 * calibrated BM25 share (covidqa_en fused −0.006 to −0.009, ADR 0520); where the word does not
 * occur, the synonym is the only way to match it and counts as the word would.
 */
function calibratingLexemes(
  analyzed: readonly AnalyzedLexeme[],
  synonymOf: readonly (string | undefined)[],
  sources: readonly string[],
  sourceStart: number,
): AnalyzedLexeme[] {
  const occurring = new Set<string>();
  for (const { textIndex, df } of analyzed) {
    const source = textIndex >= sourceStart ? sources[textIndex - sourceStart] : undefined;
    if (source !== undefined && df > 0) occurring.add(source);
  }
  return analyzed.filter(({ textIndex }) => {
    const word = synonymOf[textIndex];
    return word === undefined || !occurring.has(word);
  });
}

/**
 * Per word (analysed alone, texts from `start` on), its largest lexeme document frequency: a word the
 * analyzer splits counts as its most common part; a stop word has no lexeme and no entry.
 */
function documentFrequencyOfWords(
  analyzed: readonly AnalyzedLexeme[],
  words: readonly string[],
  start: number,
): Map<string, number> {
  const frequencies = new Map<string, number>();
  for (const { textIndex, df } of analyzed) {
    const word = textIndex >= start ? words[textIndex - start] : undefined;
    if (word !== undefined) frequencies.set(word, Math.max(df, frequencies.get(word) ?? 0));
  }
  return frequencies;
}

/**
 * The full-text channel: the query and its expansions analysed like the chunks, compounds of query
 * words looked up in the tenant's vocabulary (both in one round trip each, pipelined), then exact BM25.
 */
export async function searchFulltext(
  tx: TransactionSql,
  tenantId: string,
  options: FulltextOptions,
): Promise<FulltextResult> {
  const expanded = buildQueryTexts(
    options.query,
    options.lexicon,
    options.expansion ?? DEFAULT_QUERY_EXPANSION,
    options.thesaurus,
  );
  // The words synonyms stand in for, and the query's own words one by one, analysed too (weight 0:
  // only their document frequency is wanted).
  const synonymSources = [...new Set(expanded.synonymOf.filter((word) => word !== undefined))];
  const words = options.query.normalize("NFC").match(WORD) ?? [];
  // Split by the built-in reranker's own tokenizer: the same words (CJK bigrams, Thai words), the same keys.
  const ownWords = [...new Set(tokenizeWords(options.query))];
  const texts = [...expanded.texts, ...synonymSources, ...ownWords];
  const weights = [...expanded.weights, ...synonymSources.map(() => 0), ...ownWords.map(() => 0)];
  const collectionRead = readCollectionStatistics(tx, tenantId);
  const [analyzed, collection, compounds, view] = await Promise.all([
    analyzeQueryTexts(tx, tenantId, texts),
    collectionRead,
    findCompoundTerms(tx, tenantId, compoundJoinCandidates(words)),
    options.index?.open(tx, tenantId, async () => (await collectionRead).chunkCount),
  ]);
  const own = new Map(analyzed.filter((a) => a.textIndex === 0).map((a) => [a.lexeme, a.df > 0]));
  const wordDocumentFrequency = documentFrequencyOfWords(
    analyzed,
    ownWords,
    expanded.texts.length + synonymSources.length,
  );
  const coverage = own.size === 0 ? 0 : [...own.values()].filter(Boolean).length / own.size;
  const compoundIndex = texts.length;
  const lexemes = [
    ...analyzed,
    ...compounds.map((c) => ({
      textIndex: compoundIndex,
      lexeme: c.term,
      df: c.df,
    })),
  ];
  const textWeights = [...weights, options.compoundJoinWeight ?? 1];
  const terms = planBm25Terms(lexemes, textWeights, collection.chunkCount);
  const maxScore =
    synonymSources.length === 0
      ? maxBm25Score(terms)
      : maxBm25Score(
          planBm25Terms(
            calibratingLexemes(lexemes, expanded.synonymOf, synonymSources, expanded.texts.length),
            textWeights,
            collection.chunkCount,
          ),
        );
  // The SQL scorer over this recall's snapshot, statistics, filter and `as_of`; with chunk ids, only
  // those chunks (their number is the depth).
  const sql = (searched: readonly Bm25Term[], chunkIds?: readonly string[]) =>
    searchBm25(tx, tenantId, searched, collection, chunkIds?.length ?? options.depth, {
      asOf: options.asOf,
      filter: options.filter,
      ...(chunkIds === undefined ? {} : { chunkIds }),
    });
  const fromIndex = (searched: readonly Bm25Term[]) =>
    view === undefined
      ? Promise.resolve(undefined)
      : searchBm25FromIndex(
          tx,
          tenantId,
          view,
          searched,
          collection,
          options.depth,
          options.filter,
          options.asOf,
        );
  // A second pass asks the index again, and SQL if the index has moved past the snapshot meanwhile.
  const searchTerms = async (searched: readonly Bm25Term[]) =>
    (await fromIndex(searched))?.hits ?? (await sql(searched)).hits;
  const scoreChunks = async (chunkIds: readonly string[]) => (await sql(terms, chunkIds)).hits;
  const found = {
    terms,
    maxScore,
    coverage,
    chunkCount: collection.chunkCount,
    wordDocumentFrequency,
    searchTerms,
    scoreChunks,
  };
  const indexed = await fromIndex(terms);
  if (indexed !== undefined) return { hits: indexed.hits, path: indexed.path, ...found };
  // An index is held but could not answer for this snapshot (cold or rebuilding tenants hold none).
  if (options.retryWhenIndexAhead && options.index?.peek(tenantId)) throw new Bm25IndexAhead();
  const result = await sql(terms);
  return { hits: result.hits, path: result.path, ...found };
}
