import { MAX_TF_PART, tfPart } from "./bm25-parameters.js";
import { tfPartBound, tfPartBoundForLength } from "./impact-bound.js";

/** A query term with its weight: query weight × idf. */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** One entry of a term's posting list, as stored in bm25_postings. */
export interface Posting {
  readonly chunkId: string;
  readonly tf: number;
  readonly docLen: number;
  /** tf part at keyAvgdl (float4 in the database). */
  readonly impact: number;
}

/** Read `limit` postings of one term's list, in impact order, after skipping `offset`. */
export interface ListRead {
  readonly termIndex: number;
  readonly offset: number;
  readonly limit: number;
}

/** An exact tf lookup: which chunks to resolve for which terms (missing rows mean tf = 0). */
export interface LookupRequest {
  readonly chunkIds: readonly string[];
  readonly termIndexes: readonly number[];
}

export interface LookupRow {
  readonly chunkId: string;
  readonly termIndex: number;
  readonly tf: number;
  readonly docLen: number;
}

export interface ScoredChunk {
  readonly chunkId: string;
  readonly score: number;
}

export interface TopKSearchOptions {
  /** Chunks to return. */
  readonly k: number;
  /** Current average chunk length (scores use it). */
  readonly avgdl: number;
  /** The average the stored impacts were computed with. */
  readonly keyAvgdl: number;
  /** First read per list; later reads of a list double. */
  readonly initialDepth?: number;
  /** Safety valve: stop reading lists after this many postings and return the best found so far. */
  readonly maxPostings?: number;
}

export interface TopKSearchStats {
  readonly rounds: number;
  readonly postingsRead: number;
  readonly lookups: number;
  readonly candidates: number;
  /** False only when maxPostings cut the search short. */
  readonly exact: boolean;
}

interface Candidate {
  readonly chunkId: string;
  docLen: number;
  /** Exact contribution per term; NaN while unknown. */
  readonly parts: Float64Array;
  known: number;
}

/**
 * Exact top-k BM25 over impact-ordered posting lists, as a state machine the I/O shell drives
 * (search-bm25.ts): a threshold algorithm in the spirit of Fagin's NRA with MaxScore's choice of lists.
 *
 * Every posting read is scored exactly (tf and length are in the posting). The last impact read from
 * a list bounds all postings below it, so a chunk seen in no list yet scores at most the sum of those
 * bounds; once that sum falls to the k-th best score found, no unseen chunk can enter the top k and
 * reading stops. Only the lists with the largest bounds are read further — rare, high-idf terms are
 * short and get exhausted; frequent terms have small weights and are often never read beyond the first
 * page. Candidates that could still reach the top k but miss some terms are then resolved by exact
 * lookups, best upper bound first, until every remaining one is provably out.
 */
export function createTopKSearch(terms: readonly WeightedTerm[], options: TopKSearchOptions) {
  const { k, avgdl, keyAvgdl } = options;
  const initialDepth = Math.max(1, options.initialDepth ?? Math.max(64, k));
  const maxPostings = options.maxPostings ?? 250_000;
  const n = terms.length;
  const offsets = new Array<number>(n).fill(0);
  const exhausted = terms.map((t) => t.weight <= 0);
  /** The largest impact of each list (its first posting); undefined before the first read. */
  const maxImpact = new Array<number | undefined>(n).fill(undefined);
  /** Impact of the last posting read per list; Infinity before the first read. */
  const lastImpact = new Array<number>(n).fill(Number.POSITIVE_INFINITY);
  const candidates = new Map<string, Candidate>();
  let rounds = 0;
  let postingsRead = 0;
  let lookups = 0;
  let cutShort = false;

  const listBound = (t: number): number =>
    exhausted[t] ? 0 : (terms[t]?.weight ?? 0) * tfPartBound(lastImpact[t] ?? 0, avgdl, keyAvgdl);

  const lowerBound = (c: Candidate): number => {
    let sum = 0;
    for (let t = 0; t < n; t++) {
      const part = c.parts[t] ?? 0;
      if (!Number.isNaN(part)) sum += part;
    }
    return sum;
  };

  const missingBound = (c: Candidate, t: number): number =>
    exhausted[t]
      ? 0
      : (terms[t]?.weight ?? 0) * tfPartBoundForLength(lastImpact[t] ?? 0, c.docLen, avgdl, keyAvgdl);

  const upperBound = (c: Candidate): number => {
    let sum = 0;
    for (let t = 0; t < n; t++) {
      const part = c.parts[t] ?? 0;
      sum += Number.isNaN(part) ? missingBound(c, t) : part;
    }
    return sum;
  };

  /** The k-th best score known for certain (lower bounds); 0 while fewer than k candidates. */
  const threshold = (): number => {
    if (candidates.size < k) return 0;
    const lows = [...candidates.values()].map(lowerBound).sort((a, b) => b - a);
    return lows[k - 1] ?? 0;
  };

  /** Seen candidates that could still reach the top k but miss some terms, best upper bound first. */
  const openCandidates = (theta: number): { c: Candidate; ub: number }[] => {
    const open: { c: Candidate; ub: number }[] = [];
    for (const c of candidates.values()) {
      if (c.known === n) continue;
      const ub = upperBound(c);
      if (ub > theta && ub > lowerBound(c)) open.push({ c, ub });
    }
    return open.sort((a, b) => b.ub - a.ub);
  };

  const candidateFor = (chunkId: string, docLen: number): Candidate => {
    let c = candidates.get(chunkId);
    if (c === undefined) {
      c = { chunkId, docLen, parts: new Float64Array(n).fill(Number.NaN), known: 0 };
      candidates.set(chunkId, c);
    }
    return c;
  };

  const setPart = (c: Candidate, t: number, tf: number, docLen: number) => {
    if (!Number.isNaN(c.parts[t] ?? 0)) return;
    c.docLen = docLen;
    c.parts[t] = (terms[t]?.weight ?? 0) * tfPart(tf, docLen, avgdl);
    c.known++;
  };

  return {
    /** The list reads of the next round; empty when no unseen chunk can reach the top k. */
    nextReads(): ListRead[] {
      if (cutShort || postingsRead >= maxPostings) {
        cutShort = cutShort || exhausted.some((e) => !e);
        return [];
      }
      const theta = threshold();
      const bounds = terms.map((_, t) => ({ t, bound: listBound(t) })).filter((b) => b.bound > 0);
      const total = bounds.reduce((sum, b) => sum + b.bound, 0);
      if (total <= theta) return [];
      // MaxScore's split: read further only the lists with the largest bounds, as many as it takes for
      // the bounds of the others to fit under the threshold.
      bounds.sort((a, b) => b.bound - a.bound);
      const reads: ListRead[] = [];
      let rest = total;
      for (const { t, bound } of bounds) {
        if (rest <= theta) break;
        rest -= bound;
        reads.push({ termIndex: t, offset: offsets[t] ?? 0, limit: Math.max(initialDepth, offsets[t] ?? 0) });
      }
      rounds++;
      return reads;
    },

    /** Postings answering one read, in impact order (fewer than asked: the list is exhausted). */
    addPage(read: ListRead, postings: readonly Posting[]): void {
      const t = read.termIndex;
      postingsRead += postings.length;
      offsets[t] = read.offset + postings.length;
      for (const p of postings) setPart(candidateFor(p.chunkId, p.docLen), t, p.tf, p.docLen);
      if (read.offset === 0) maxImpact[t] = postings.reduce((max, p) => Math.max(max, p.impact), 0);
      // Rows of one read may arrive in any order; the smallest impact bounds the rest of the list.
      for (const p of postings) lastImpact[t] = Math.min(lastImpact[t] ?? Number.POSITIVE_INFINITY, p.impact);
      if (postings.length < read.limit) exhausted[t] = true;
    },

    /** The k-th best score known for certain: a lower bound of the final k-th score. */
    threshold,

    /** How many seen candidates would still need exact lookups. */
    openCount: (): number => openCandidates(threshold()).length,

    /**
     * Upper bound of each term's contribution to any chunk: weight × the bound of the list's largest
     * impact (of the largest possible one while the list was not read yet).
     */
    termBounds: (): number[] =>
      terms.map((term, t) => term.weight * tfPartBound(maxImpact[t] ?? MAX_TF_PART, avgdl, keyAvgdl)),

    /** Candidates that could still enter the top k but miss terms, best upper bound first. */
    pendingLookups(maxChunks: number): LookupRequest {
      const chosen = openCandidates(threshold())
        .slice(0, maxChunks)
        .map((o) => o.c);
      const termIndexes = new Set<number>();
      for (const c of chosen) {
        for (let t = 0; t < n; t++) if (Number.isNaN(c.parts[t] ?? 0) && !exhausted[t]) termIndexes.add(t);
      }
      return { chunkIds: chosen.map((c) => c.chunkId), termIndexes: [...termIndexes].sort((a, b) => a - b) };
    },

    /** Answers to a lookup: every asked (chunk, term) pair without a row has tf 0. */
    addLookups(request: LookupRequest, rows: readonly LookupRow[]): void {
      lookups++;
      for (const row of rows) {
        const c = candidates.get(row.chunkId);
        if (c !== undefined) setPart(c, row.termIndex, row.tf, row.docLen);
      }
      for (const chunkId of request.chunkIds) {
        const c = candidates.get(chunkId);
        if (c === undefined) continue;
        for (const t of request.termIndexes) {
          if (Number.isNaN(c.parts[t] ?? 0)) {
            c.parts[t] = 0;
            c.known++;
          }
        }
      }
    },

    /** The k best chunks, best first (ties: chunk id), with their exact scores. */
    results(): ScoredChunk[] {
      return [...candidates.values()]
        .map((c) => ({ chunkId: c.chunkId, score: lowerBound(c) }))
        .filter((c) => c.score > 0)
        .sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0))
        .slice(0, k);
    },

    stats(): TopKSearchStats {
      return { rounds, postingsRead, lookups, candidates: candidates.size, exact: !cutShort };
    },
  };
}

export type TopKSearch = ReturnType<typeof createTopKSearch>;
