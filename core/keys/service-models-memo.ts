import type { Database, TransactionSql } from "../store/database.js";
import { type ModelSelectionRow, readModelSelection } from "./model-selection-row.js";

/**
 * Nothing chosen and nothing under way: no key selected, none active, no re-embed pending. Only this
 * state is remembered — it is left only through the selection (PUT /api/keys/selection), never by
 * the worker, whose switches happen while a re-embed is pending.
 */
const usesServiceModels = (selection: ModelSelectionRow | undefined): boolean =>
  selection === undefined ||
  (selection.embeddingKeyId === null &&
    selection.rerankKeyId === null &&
    selection.activeKeyId === null &&
    selection.targetSpace === null);

/**
 * Workspaces on the service's models, until when (recall and every write asked for their models
 * once per request: a transaction of four statements each, bench:load and bench:bulk-ingest). Like
 * token lookups (core/auth/authenticate.ts) a change made through another process takes effect within
 * the TTL; through this one at once.
 */
export class ServiceModelsMemo {
  readonly #onDefaults = new Map<string, number>();
  /** Bumped by forget: a lookup that started before a change must not store what it read. */
  #changes = 0;
  /**
   * A lookup under way per workspace: requests arriving meanwhile wait for it rather than each
   * running its own transaction (when the TTL ran out under load, every connection missed at once:
   * bench:load read the selection ≈ 30 times a second at 90 recalls per second).
   */
  readonly #underWay = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly defaultsTtl: number,
    private readonly now: () => number,
  ) {}

  #remembersDefaults(tenantId: string): boolean {
    return (this.#onDefaults.get(tenantId) ?? 0) > this.now();
  }

  /**
   * `onDefaultsValue` when the workspace is remembered on the service's models — or found so by the
   * lookup under way, which this request then waits for — else `read()`. Synchronous up to `read`:
   * the first of many concurrent requests starts its lookup before the next one looks.
   */
  unlessOnDefaults<T>(tenantId: string, onDefaultsValue: T, read: () => Promise<T>): Promise<T> {
    if (this.#remembersDefaults(tenantId)) return Promise.resolve(onDefaultsValue);
    const running = this.#underWay.get(tenantId);
    if (running === undefined) return read();
    // Its outcome is its own caller's; this request only needs it finished.
    const afterIt = () => (this.#remembersDefaults(tenantId) ? onDefaultsValue : read());
    return running.then(afterIt, afterIt);
  }

  /** Reads the selection in a tenant transaction, remembering "service models" for the TTL. */
  lookUp<T>(
    tenantId: string,
    use: (tx: TransactionSql, selection: ModelSelectionRow | undefined) => Promise<T>,
  ): Promise<T> {
    const changesBefore = this.#changes;
    const lookup = this.db.withTenant(tenantId, async (tx) => {
      const selection = await readModelSelection(tx, tenantId);
      if (usesServiceModels(selection) && this.#changes === changesBefore) {
        if (this.#onDefaults.size >= 10_000) this.#onDefaults.clear();
        this.#onDefaults.set(tenantId, this.now() + this.defaultsTtl);
      }
      return use(tx, selection);
    });
    if (!this.#underWay.has(tenantId)) {
      this.#underWay.set(tenantId, lookup);
      lookup
        .finally(() => {
          if (this.#underWay.get(tenantId) === lookup) this.#underWay.delete(tenantId);
        })
        .catch(() => undefined);
    }
    return lookup;
  }

  /** Drops what is remembered of the workspace (its selection changed). */
  forget(tenantId: string): void {
    this.#changes++;
    this.#onDefaults.delete(tenantId);
  }
}
