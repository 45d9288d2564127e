import type { Logger } from "../../../config/logger.js";
import type { MemoryBudget } from "../../../lib/memory-budget/memory-budget.js";
import type { Bm25IndexEntry } from "./bm25-index-entry.js";

/**
 * The tenant indexes this process holds, within the workspace state budget (frequency-aware:
 * lib/memory-budget): what the budget evicts leaves the map, and the bytes held follow every change.
 */
export class HeldBm25Indexes {
  readonly entries = new Map<string, Bm25IndexEntry>();
  /** Tenants whose index exceeded the whole budget, with when. */
  readonly tooLarge = new Map<string, number>();
  #bytesHeld = 0;

  constructor(
    readonly budget: MemoryBudget,
    private readonly logger: Logger,
  ) {}

  get bytesHeld(): number {
    return this.#bytesHeld;
  }

  keyOf(tenantId: string): string {
    return `bm25:${tenantId}`;
  }

  get(tenantId: string): Bm25IndexEntry | undefined {
    return this.entries.get(tenantId);
  }

  /** Whether `entry` is still the one held for the tenant (not dropped, evicted or replaced). */
  holds(tenantId: string, entry: Bm25IndexEntry): boolean {
    return this.entries.get(tenantId) === entry;
  }

  touch(tenantId: string): void {
    this.budget.touch(this.keyOf(tenantId));
  }

  drop(tenantId: string): void {
    const entry = this.entries.get(tenantId);
    if (entry === undefined) return;
    this.entries.delete(tenantId);
    this.#bytesHeld -= entry.bytes;
    this.budget.remove(this.keyOf(tenantId));
  }

  /** Installs an index if the budget admits it (frequency-aware: see MemoryBudget). */
  install(tenantId: string, entry: Bm25IndexEntry): boolean {
    this.drop(tenantId);
    if (entry.bytes > this.budget.budgetBytes) {
      this.tooLarge.set(tenantId, Date.now());
      this.logger.warn(
        { tenantId, bytes: entry.bytes, budget: this.budget.budgetBytes },
        "BM25 index exceeds the workspace state budget (WORKSPACE_STATE_BUDGET_MB); recall uses SQL",
      );
      return false;
    }
    const admitted = this.budget.admit(this.keyOf(tenantId), entry.bytes, () => {
      if (this.entries.get(tenantId) !== entry) return;
      this.entries.delete(tenantId);
      this.#bytesHeld -= entry.bytes;
    });
    if (!admitted) return false;
    this.entries.set(tenantId, entry);
    this.#bytesHeld += entry.bytes;
    return true;
  }

  /** A held index changed size (catch-up, compaction). */
  resized(tenantId: string, entry: Bm25IndexEntry): void {
    const bytes = entry.index.bytes;
    if (this.entries.get(tenantId) === entry) this.#bytesHeld += bytes - entry.bytes;
    entry.bytes = bytes;
    this.budget.resize(this.keyOf(tenantId), bytes);
  }

  /** The held tenants in the order the next start should warm them (ADR 0370). */
  hottest(limit: number): string[] {
    // Warm first what a cold recall would pay most for: how often it is asked for × how much there
    // is to load (a 100k-chunk workspace's first recall loads 30 MB of index and 100 MB of ANN index).
    const worth = (tenantId: string, entry: Bm25IndexEntry) =>
      (this.budget.frequency(this.keyOf(tenantId)) + 1) * entry.bytes;
    return [...this.entries]
      .sort(([a, x], [b, y]) => worth(b, y) - worth(a, x))
      .slice(0, limit)
      .map(([tenantId]) => tenantId);
  }
}
