import type { TenantModels } from "../keys/tenant-models.js";
import { ALL_STAGES, DEFAULT_HOPS } from "./recall-options.js";
import { type RecallDeps, runRecall } from "./run-recall.js";

/** How often a warmed workspace's recall is rehearsed before the process listens. */
const REHEARSALS = 2;

/**
 * Runs a workspace's recall `REHEARSALS` times in process, with the opening words of one of its own
 * chunks as the query, answers going nowhere (ADR 0495). Loading a workspace's indexes is not all a
 * first recall pays: after a restart it also ran code the JIT had not optimised yet and opened the
 * pool's first database connections (measured: a warm 100k workspace's first recall ≈ 2× a later
 * one inside recall's stages). Never throws: a rehearsal that fails changes nothing.
 */
export async function rehearseRecall(
  deps: RecallDeps & { readonly models?: TenantModels | undefined },
  tenantId: string,
): Promise<void> {
  try {
    const [row] = await deps.db.withTenant(
      tenantId,
      (tx) =>
        tx<{ words: string }[]>`
        select left(content, 160) as words from chunks where tenant_id = ${tenantId} limit 1`,
    );
    if (row === undefined || !/\S/u.test(row.words)) return;
    // A workspace with its own provider keys is not rehearsed: that would spend its paid calls.
    if (deps.models && (await deps.models.modelsFor(tenantId)).byok) return;
    for (let i = 0; i < REHEARSALS; i++)
      await runRecall(deps, tenantId, { query: row.words, k: 10, hops: DEFAULT_HOPS, stages: ALL_STAGES });
  } catch (error) {
    deps.logger.debug({ err: error, tenantId }, "recall not rehearsed");
  }
}
