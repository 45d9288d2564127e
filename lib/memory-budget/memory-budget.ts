import { FrequencySketch } from "./frequency-sketch.js";

/**
 * One byte budget for the derived state a process keeps per workspace (issue 46: BM25 indexes, open
 * vector tables), with W-TinyLFU admission and eviction (Einziger, Friedman, Manes 2017; the policy of
 * Caffeine and of LanceDB's own moka caches), weighted by bytes.
 *
 * Plain LRU thrashes when recalls sweep over more workspaces than fit: every newcomer evicts the
 * least recent, so a large, often used workspace is dropped by a round of small ones touched once and
 * rebuilt at seconds of cost. Here a newcomer first lives in a small recency window; when it leaves
 * the window it enters the main space only if it was asked for more often (per the frequency sketch,
 * which counts misses too) than the entry it would displace. Main is a segmented LRU: an entry hit
 * again moves from probation to the protected segment.
 *
 * The budget does not hold the state itself: owners keep their own maps, report each lookup with
 * `touch`, offer new state with `admit`, and are called back (`release`) when their entry is evicted.
 */
export interface MemoryBudgetOptions {
  readonly budgetBytes: number;
  /** Share of the budget for the recency window (Caffeine: 1 %). */
  readonly windowShare?: number;
  /** Share of the main space for the protected segment (Caffeine: 80 %). */
  readonly protectedShare?: number;
  /** About how many keys compete (sizes the frequency sketch). */
  readonly expectedKeys?: number;
}

export interface MemoryBudgetStats {
  readonly entries: number;
  readonly bytes: number;
  readonly budgetBytes: number;
  readonly admitted: number;
  readonly refused: number;
  readonly evicted: number;
}

type Segment = "window" | "probation" | "protected";

interface Slot {
  bytes: number;
  segment: Segment;
  readonly release: () => void;
}

export class MemoryBudget {
  readonly budgetBytes: number;
  private readonly windowBytes: number;
  private readonly protectedBytes: number;
  private readonly sketch: FrequencySketch;
  /** Each segment's keys, least recently used first (a Map keeps insertion order). */
  private readonly segments: Record<Segment, Map<string, Slot>> = {
    window: new Map(),
    probation: new Map(),
    protected: new Map(),
  };
  private readonly used: Record<Segment, number> = { window: 0, probation: 0, protected: 0 };
  private admitted = 0;
  private refused = 0;
  private evicted = 0;

  constructor(options: MemoryBudgetOptions) {
    this.budgetBytes = options.budgetBytes;
    this.windowBytes = Math.floor(options.budgetBytes * (options.windowShare ?? 0.01));
    this.protectedBytes = Math.floor(
      (options.budgetBytes - this.windowBytes) * (options.protectedShare ?? 0.8),
    );
    this.sketch = new FrequencySketch(options.expectedKeys ?? 10_000);
  }

  get bytes(): number {
    return this.used.window + this.used.probation + this.used.protected;
  }

  has(key: string): boolean {
    return this.slotOf(key) !== undefined;
  }

  /** Records a lookup of `key`, held or not; a held entry becomes the most recent of its segment. */
  touch(key: string): void {
    this.sketch.increment(key);
    const slot = this.slotOf(key);
    if (slot === undefined) return;
    if (slot.segment === "probation") {
      this.move(key, slot, "protected");
      // The protected segment over its share hands its least recent entries back to probation.
      for (const [k, s] of this.segments.protected) {
        if (this.used.protected <= this.protectedBytes) break;
        if (k !== key) this.move(k, s, "probation");
      }
    } else this.move(key, slot, slot.segment);
  }

  /**
   * Offers new state of `bytes` under `key`. True when it is held (its `release` is then called once
   * when it is evicted); false when refused: the caller drops the state (release is not called).
   * Offering a key that is held replaces that entry (whose release is then never called).
   */
  admit(key: string, bytes: number, release: () => void): boolean {
    // The owner replaces its own state: the old entry goes without a release call.
    this.remove(key);
    if (bytes > this.budgetBytes) {
      this.refused++;
      return false;
    }
    const slot: Slot = { bytes, segment: "window", release };
    if (bytes <= this.windowBytes) {
      this.place(key, slot, "window");
      this.admitted++;
      // Entries leaving the window contest a place in main.
      for (const [k, s] of this.segments.window) {
        if (this.used.window <= this.windowBytes) break;
        this.unplace(k, s);
        if (!this.contest(k, s)) {
          this.refused++;
          this.evicted++;
          s.release();
        }
      }
      return this.has(key);
    }
    // Larger than the window: contests main at once.
    if (this.contest(key, slot)) {
      this.admitted++;
      return true;
    }
    this.refused++;
    return false;
  }

  /** The held entry's size changed (an index caught up); others are evicted if the budget is passed. */
  resize(key: string, bytes: number): void {
    const slot = this.slotOf(key);
    if (slot === undefined) return;
    this.used[slot.segment] += bytes - slot.bytes;
    slot.bytes = bytes;
    for (const segment of ["window", "probation", "protected"] as const) {
      for (const [k, s] of this.segments[segment]) {
        if (this.bytes <= this.budgetBytes) return;
        if (k === key) continue;
        this.evict(k, s);
      }
    }
    if (this.bytes > this.budgetBytes) this.evict(key, slot);
  }

  /** The owner dropped the entry itself (erased workspace, stale index): no release call. */
  remove(key: string): void {
    const slot = this.slotOf(key);
    if (slot !== undefined) this.unplace(key, slot);
  }

  /** How often `key` was asked for lately (0–15, the frequency sketch's estimate). */
  frequency(key: string): number {
    return this.sketch.frequency(key);
  }

  stats(): MemoryBudgetStats {
    return {
      entries: this.segments.window.size + this.segments.probation.size + this.segments.protected.size,
      bytes: this.bytes,
      budgetBytes: this.budgetBytes,
      admitted: this.admitted,
      refused: this.refused,
      evicted: this.evicted,
    };
  }

  /** Places the candidate in main's probation if it is wanted more than each entry it displaces. */
  private contest(key: string, candidate: Slot): boolean {
    const mainBudget = this.budgetBytes - this.windowBytes;
    const frequency = this.sketch.frequency(key);
    while (this.used.probation + this.used.protected + candidate.bytes > mainBudget) {
      const victim = this.firstOf("probation") ?? this.firstOf("protected");
      // Main is empty and the candidate still does not fit beside the window: it may use the window's share.
      if (victim === undefined) break;
      if (frequency <= this.sketch.frequency(victim[0])) return false;
      this.evict(victim[0], victim[1]);
    }
    if (this.bytes + candidate.bytes > this.budgetBytes) return false;
    this.place(key, candidate, "probation");
    return true;
  }

  private evict(key: string, slot: Slot): void {
    this.unplace(key, slot);
    this.evicted++;
    slot.release();
  }

  private firstOf(segment: Segment): [string, Slot] | undefined {
    const first = this.segments[segment].entries().next();
    return first.done ? undefined : first.value;
  }

  private slotOf(key: string): Slot | undefined {
    return (
      this.segments.window.get(key) ?? this.segments.probation.get(key) ?? this.segments.protected.get(key)
    );
  }

  private move(key: string, slot: Slot, to: Segment): void {
    this.unplace(key, slot);
    this.place(key, slot, to);
  }

  private place(key: string, slot: Slot, segment: Segment): void {
    slot.segment = segment;
    this.segments[segment].set(key, slot);
    this.used[segment] += slot.bytes;
  }

  private unplace(key: string, slot: Slot): void {
    this.segments[slot.segment].delete(key);
    this.used[slot.segment] -= slot.bytes;
  }
}
