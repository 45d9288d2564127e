import { type FeedRow, type FeedSnapshot, visibleIn } from "./read-chunk-feed.js";

export interface FeedWatermarkState {
  readonly watermark: number;
  readonly horizon: number;
  readonly applied: readonly number[];
}

/** Applied transaction ids are forgotten below the watermark once this many are kept. */
const APPLIED_KEEP = 1024;

/**
 * Which committed transactions of the change feed an index reflects (ADR 0230), and so which feed
 * rows a reader's snapshot still has to apply:
 *
 * - every committed transaction below `watermark` is applied, and no transaction below it can still
 *   commit (the watermark only ever moves to a snapshot's xmin);
 * - `applied` lists every applied transaction at or above `horizon`, among them those between a
 *   snapshot's xmin and xmax that committed before it. A transaction that was still running then
 *   (in xip) is not in the list, so it is applied when a later snapshot sees it, however late it
 *   commits. Applying only "up to xmin" would need no list but would lag behind every long writer;
 *   applying "up to xmax" without the list would skip the late committer for good.
 */
export class FeedWatermark {
  private constructor(
    private watermarkValue: number,
    private horizonValue: number,
    private readonly applied: Set<number>,
  ) {}

  /** An index built in `snapshot`, which saw these transactions of the feed at or above its xmin. */
  static builtIn(snapshot: FeedSnapshot, feedXids: Iterable<number>): FeedWatermark {
    const applied = new Set<number>();
    for (const xid of feedXids) if (xid >= snapshot.xmin && visibleIn(snapshot, xid)) applied.add(xid);
    return new FeedWatermark(snapshot.xmin, snapshot.xmin, applied);
  }

  /** The state to persist beside an index (its segment file). */
  toJSON(): FeedWatermarkState {
    return { watermark: this.watermarkValue, horizon: this.horizonValue, applied: [...this.applied] };
  }

  /** A watermark as `toJSON()` gave it. */
  static restore(state: FeedWatermarkState): FeedWatermark {
    return new FeedWatermark(state.watermark, state.horizon, new Set(state.applied));
  }

  get watermark(): number {
    return this.watermarkValue;
  }

  /**
   * Whether the index holds nothing the snapshot does not see: each applied transaction is visible in
   * it (an index that a newer snapshot moved ahead is not; nor one whose list no longer reaches back
   * to this snapshot's xmin). Together with catching up on `pending`, the index is then exactly what
   * the snapshot sees.
   */
  notAheadOf(snapshot: FeedSnapshot): boolean {
    if (snapshot.xmin < this.horizonValue) return false;
    for (const xid of this.applied) if (!visibleIn(snapshot, xid)) return false;
    return true;
  }

  /** Feed rows (all visible in the reader's snapshot) of transactions not applied yet. */
  pending(rows: readonly FeedRow[]): FeedRow[] {
    return rows.filter((r) => r.xid >= this.watermarkValue && !this.applied.has(r.xid));
  }

  /** Records that everything `snapshot` sees is applied. */
  advance(snapshot: FeedSnapshot, appliedRows: readonly FeedRow[]): void {
    for (const row of appliedRows) this.applied.add(row.xid);
    this.watermarkValue = Math.max(this.watermarkValue, snapshot.xmin);
    if (this.applied.size > APPLIED_KEEP) {
      for (const xid of this.applied) if (xid < this.watermarkValue) this.applied.delete(xid);
      this.horizonValue = this.watermarkValue;
    }
  }
}
