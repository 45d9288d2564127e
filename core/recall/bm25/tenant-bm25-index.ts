import { type LengthNormalisation, tfPart } from "./bm25-parameters.js";
import { LexemeDictionary, mergeLexemes } from "./lexeme-dictionary.js";
import type { ScoredChunk, WeightedTerm } from "./scored-chunk.js";

/** A current chunk's lexemes with their term frequencies (migration 0030's tf rule). */
export interface ChunkLexemes {
  readonly chunkId: string;
  readonly lexemes: readonly string[];
  readonly tfs: readonly number[];
  /** The chunk's valid_from in microseconds since the epoch (point-in-time recall, exact to the µs). */
  readonly validFromUs: number;
}

/**
 * A compacted index as flat parts (issue 46: persisted per workspace, so a cold workspace loads its
 * index in milliseconds instead of rebuilding it from PostgreSQL).
 */
export interface Bm25IndexParts {
  readonly chunkIds: readonly string[];
  /** Per chunk: its length (sum of its term frequencies) and valid_from in µs. */
  readonly lengths: Uint32Array;
  readonly validFromUs: Float64Array;
  readonly lexemeText: string;
  readonly lexemeOffsets: Int32Array;
  /** Lexeme slot i's postings are docs/tfs[start[i], start[i + 1]). */
  readonly start: Int32Array;
  readonly docs: Int32Array;
  readonly tfs: Uint16Array;
}

/** Chunks a query may return (recall filters), as a bitset over the index's chunk ordinals. */
export type AllowedChunks = Uint32Array;

/** What a search may return besides being current: filtered chunks, chunks valid at a time. */
export interface SearchRestriction {
  readonly allowed?: AllowedChunks | undefined;
  /** Only chunks whose valid_from is at or before this (µs since the epoch; `as_of`). */
  readonly validAtUs?: number | undefined;
}

/**
 * The compacted postings of every lexeme in flat arrays (issue 46): lexeme → slot by the sorted
 * dictionary, and the slot's postings at [start[slot], start[slot + 1]). Two typed arrays per lexeme
 * cost ≈ 300 bytes of object headers and backing stores each — 5× the postings themselves in a
 * 500-chunk workspace, where most lexemes occur once — so per-workspace heap is now mostly postings.
 */
interface BasePostings {
  readonly lexemes: LexemeDictionary;
  readonly start: Int32Array;
  readonly docs: Int32Array;
  readonly tfs: Uint16Array;
}

const EMPTY_BASE: BasePostings = {
  lexemes: LexemeDictionary.EMPTY,
  start: new Int32Array(1),
  docs: new Int32Array(0),
  tfs: new Uint16Array(0),
};

interface AddedList {
  readonly docs: number[];
  readonly tfs: number[];
}

/** Compaction once removed chunks or appended postings pass this share of the index. */
const COMPACT_SHARE = 0.2;
/** …but not for fewer appended postings than this (small tenants take many small appends). */
const COMPACT_MIN_ADDED = 50_000;

const bit = (bits: Uint32Array, i: number) => ((bits[i >>> 5] as number) >>> (i & 31)) & 1;

/**
 * A tenant's current chunks as a derived BM25 index held in process (ADR 0230): per lexeme the sorted
 * chunk ordinals and term frequencies (compact typed arrays, plus short lists of chunks appended
 * since), per chunk its length and whether it is still current. Scores are exactly the SQL design's
 * for the weights and average length the caller passes (bm25-parameters.ts), ties by chunk id.
 *
 * Changes: `put` (re)indexes a chunk under a new ordinal, `remove` marks it dead; `compact` rewrites
 * the arrays without dead chunks — also what scrubs an erased chunk's lexemes from memory.
 */
export class TenantBm25Index {
  private ids: string[] = [];
  private lengths: number[] = [];
  private validFrom: number[] = [];
  private live = new Uint32Array(0);
  private readonly ordinalOf = new Map<string, number>();
  private base: BasePostings = EMPTY_BASE;
  private added = new Map<string, AddedList>();
  private basePostings = 0;
  private addedPostings = 0;
  private dead = 0;
  /** Bytes of the lexeme keys (strings and map entries), kept as lists come and go. */
  private keyBytes = 0;
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);

  constructor(chunks: Iterable<ChunkLexemes> = []) {
    for (const chunk of chunks) this.put(chunk);
    this.compact();
  }

  /** An index from the parts `parts()` gave (checked: a damaged file must not serve wrong hits). */
  static fromParts(parts: Bm25IndexParts): TenantBm25Index {
    const n = parts.chunkIds.length;
    const lexemes = LexemeDictionary.fromParts(parts.lexemeText, parts.lexemeOffsets);
    const postings = parts.docs.length;
    if (parts.lengths.length !== n || parts.validFromUs.length !== n)
      throw new Error("chunk arrays differ in length");
    if (
      parts.start.length !== lexemes.size + 1 ||
      parts.start[0] !== 0 ||
      parts.start[lexemes.size] !== postings
    )
      throw new Error("posting starts do not span the postings");
    if (parts.tfs.length !== postings) throw new Error("postings and term frequencies differ in length");
    for (let i = 1; i < parts.start.length; i++)
      if ((parts.start[i] as number) <= (parts.start[i - 1] as number))
        throw new Error("posting starts not increasing");
    for (let i = 0; i < postings; i++) {
      const doc = parts.docs[i] as number;
      if (doc < 0 || doc >= n) throw new Error("a posting names no chunk");
    }
    const index = new TenantBm25Index();
    index.ids = [...parts.chunkIds];
    index.lengths = Array.from(parts.lengths);
    index.validFrom = Array.from(parts.validFromUs);
    index.live = new Uint32Array(Math.max(64, Math.ceil(n / 32)));
    for (let doc = 0; doc < n; doc++) {
      index.live[doc >>> 5] = (index.live[doc >>> 5] as number) | (1 << (doc & 31));
      index.ordinalOf.set(parts.chunkIds[doc] as string, doc);
    }
    if (index.ordinalOf.size !== n) throw new Error("a chunk id appears twice");
    index.base = { lexemes, start: parts.start, docs: parts.docs, tfs: parts.tfs };
    index.basePostings = postings;
    index.keyBytes = lexemes.bytes;
    return index;
  }

  /** The index as flat parts, compacted first if anything changed since the last compaction. */
  parts(): Bm25IndexParts {
    if (this.added.size > 0 || this.dead > 0) this.compact();
    const { text, offsets } = this.base.lexemes.parts();
    return {
      chunkIds: this.ids,
      lengths: Uint32Array.from(this.lengths),
      validFromUs: Float64Array.from(this.validFrom),
      lexemeText: text,
      lexemeOffsets: offsets,
      start: this.base.start,
      docs: this.base.docs,
      tfs: this.base.tfs,
    };
  }

  /** Current chunks in the index. */
  get size(): number {
    return this.ordinalOf.size;
  }

  /** Approximate bytes held: 6 per compacted posting (plus 4 per lexeme's start), the chunk ids, lengths and valid_from, the lexeme keys. */
  get bytes(): number {
    return (
      6 * this.basePostings +
      this.base.start.byteLength +
      16 * this.addedPostings +
      128 * this.ids.length +
      this.keyBytes +
      this.live.byteLength
    );
  }

  /** Whether enough changed since the last compaction to rewrite the arrays. */
  get wantsCompaction(): boolean {
    const ordinals = this.ids.length;
    return (
      this.dead > COMPACT_SHARE * ordinals ||
      this.addedPostings > Math.max(COMPACT_MIN_ADDED, COMPACT_SHARE * this.basePostings)
    );
  }

  /** Postings of a lexeme held in memory, those of removed chunks included until the next compaction. */
  postingsOf(lexeme: string): number {
    const slot = this.base.lexemes.slotOf(lexeme);
    const based = slot < 0 ? 0 : (this.base.start[slot + 1] as number) - (this.base.start[slot] as number);
    return based + (this.added.get(lexeme)?.docs.length ?? 0);
  }

  /** The ids of the current chunks. */
  chunkIds(): string[] {
    return [...this.ordinalOf.keys()];
  }

  has(chunkId: string): boolean {
    return this.ordinalOf.has(chunkId);
  }

  /** Number of chunks and sum of their lengths (BM25's N and total length over this index). */
  totals(): { chunkCount: number; totalLength: number } {
    let totalLength = 0;
    for (const doc of this.ordinalOf.values()) totalLength += this.lengths[doc] as number;
    return { chunkCount: this.ordinalOf.size, totalLength };
  }

  /** Indexes a current chunk (replacing an earlier state of the same chunk). */
  put(chunk: ChunkLexemes): void {
    this.remove(chunk.chunkId);
    const doc = this.ids.length;
    this.ids.push(chunk.chunkId);
    this.ordinalOf.set(chunk.chunkId, doc);
    if (doc >>> 5 >= this.live.length) {
      const grown = new Uint32Array(Math.max(64, this.live.length * 2));
      grown.set(this.live);
      this.live = grown;
    }
    this.live[doc >>> 5] = (this.live[doc >>> 5] as number) | (1 << (doc & 31));
    let length = 0;
    for (let i = 0; i < chunk.lexemes.length; i++) {
      const lexeme = chunk.lexemes[i] as string;
      const tf = chunk.tfs[i] as number;
      let list = this.added.get(lexeme);
      if (list === undefined) {
        list = { docs: [], tfs: [] };
        this.added.set(lexeme, list);
        this.keyBytes += 2 * lexeme.length + 64;
      }
      list.docs.push(doc);
      list.tfs.push(tf);
      length += tf;
    }
    this.addedPostings += chunk.lexemes.length;
    this.lengths.push(length);
    this.validFrom.push(chunk.validFromUs);
  }

  /** Marks a chunk no longer current; its postings stay until the next compaction. */
  remove(chunkId: string): void {
    const doc = this.ordinalOf.get(chunkId);
    if (doc === undefined) return;
    this.ordinalOf.delete(chunkId);
    this.live[doc >>> 5] = (this.live[doc >>> 5] as number) & ~(1 << (doc & 31));
    this.dead++;
  }

  /** Rewrites the posting arrays over the current chunks only, renumbered; frees what was removed. */
  compact(): void {
    const renumber = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    const lengths: number[] = [];
    const validFrom: number[] = [];
    for (let doc = 0; doc < this.ids.length; doc++) {
      if (!bit(this.live, doc)) continue;
      renumber[doc] = ids.length;
      ids.push(this.ids[doc] as string);
      lengths.push(this.lengths[doc] as number);
      validFrom.push(this.validFrom[doc] as number);
    }
    const old = this.base;
    const lexemes = mergeLexemes(old.lexemes, this.added.keys());
    const kept: string[] = [];
    const starts: number[] = [0];
    const docs: number[] = [];
    const tfs: number[] = [];
    const keep = (doc: number, tf: number) => {
      const to = renumber[doc] as number;
      if (to >= 0) {
        docs.push(to);
        tfs.push(tf);
      }
    };
    // Both lists are in dictionary order, so the old slot is found by walking, not searching.
    let oldSlot = 0;
    for (const lexeme of lexemes) {
      const before = docs.length;
      if (oldSlot < old.lexemes.size && old.lexemes.lexemeAt(oldSlot) === lexeme) {
        const end = old.start[oldSlot + 1] as number;
        for (let i = old.start[oldSlot] as number; i < end; i++)
          keep(old.docs[i] as number, old.tfs[i] as number);
        oldSlot++;
      }
      const fresh = this.added.get(lexeme);
      if (fresh)
        for (let i = 0; i < fresh.docs.length; i++) keep(fresh.docs[i] as number, fresh.tfs[i] as number);
      if (docs.length === before) continue;
      kept.push(lexeme);
      starts.push(docs.length);
    }
    const base: BasePostings = {
      lexemes: new LexemeDictionary(kept),
      start: Int32Array.from(starts),
      docs: Int32Array.from(docs),
      tfs: Uint16Array.from(tfs),
    };
    const postings = docs.length;
    this.ids = ids;
    this.lengths = lengths;
    this.validFrom = validFrom;
    this.live = new Uint32Array(Math.max(64, Math.ceil(ids.length / 32)));
    for (let doc = 0; doc < ids.length; doc++)
      this.live[doc >>> 5] = (this.live[doc >>> 5] as number) | (1 << (doc & 31));
    this.ordinalOf.clear();
    for (const [doc, id] of ids.entries()) this.ordinalOf.set(id, doc);
    this.base = base;
    this.added = new Map();
    this.basePostings = postings;
    this.keyBytes = base.lexemes.bytes;
    this.addedPostings = 0;
    this.dead = 0;
  }

  /** The bitset of these chunks (ids not current in the index are left out). */
  allow(chunkIds: Iterable<string>): AllowedChunks {
    const bits = new Uint32Array(Math.ceil(this.ids.length / 32) + 1);
    for (const id of chunkIds) {
      const doc = this.ordinalOf.get(id);
      if (doc !== undefined) bits[doc >>> 5] = (bits[doc >>> 5] as number) | (1 << (doc & 31));
    }
    return bits;
  }

  /**
   * Exact top k by BM25, score descending then chunk id ascending; the restriction applies before the
   * top k is taken. Term-at-a-time over every posting of the query's lexemes.
   */
  search(
    terms: readonly WeightedTerm[],
    norm: LengthNormalisation,
    k: number,
    { allowed, validAtUs }: SearchRestriction = {},
  ): ScoredChunk[] {
    if (this.scores.length < this.ids.length) {
      this.scores = new Float64Array(this.ids.length * 2);
      this.touched = new Int32Array(this.ids.length * 2);
    }
    const { scores, live, lengths, validFrom } = this;
    const touched = this.touched;
    let count = 0;
    const add = (doc: number, tf: number, weight: number) => {
      if (!bit(live, doc) || (allowed !== undefined && !bit(allowed, doc))) return;
      if (validAtUs !== undefined && (validFrom[doc] as number) > validAtUs) return;
      if (scores[doc] === 0) touched[count++] = doc;
      scores[doc] = (scores[doc] as number) + weight * tfPart(tf, lengths[doc] as number, norm);
    };
    for (const term of terms) {
      if (term.weight <= 0) continue;
      const { lexemes, start, docs, tfs } = this.base;
      const slot = lexemes.slotOf(term.term);
      if (slot >= 0) {
        const end = start[slot + 1] as number;
        for (let i = start[slot] as number; i < end; i++)
          add(docs[i] as number, tfs[i] as number, term.weight);
      }
      const fresh = this.added.get(term.term);
      if (fresh)
        for (let i = 0; i < fresh.docs.length; i++)
          add(fresh.docs[i] as number, fresh.tfs[i] as number, term.weight);
    }
    return this.bestK(count, k);
  }

  /** The best k of the touched chunks; resets their scores. */
  private bestK(count: number, k: number): ScoredChunk[] {
    const { scores, ids } = this;
    const touched = this.touched;
    const best: { id: string; score: number }[] = [];
    const before = (a: { id: string; score: number }, b: { id: string; score: number }) =>
      a.score > b.score || (a.score === b.score && a.id < b.id);
    for (let i = 0; i < count; i++) {
      const doc = touched[i] as number;
      const score = scores[doc] as number;
      scores[doc] = 0;
      const last = best[best.length - 1];
      if (best.length >= k && last !== undefined && !(score >= last.score)) continue;
      const entry = { id: ids[doc] as string, score };
      if (best.length >= k && last !== undefined && !before(entry, last)) continue;
      let at = best.length;
      while (at > 0 && before(entry, best[at - 1] as { id: string; score: number })) at--;
      best.splice(at, 0, entry);
      if (best.length > k) best.pop();
    }
    return best.map((b) => ({ chunkId: b.id, score: b.score }));
  }
}
