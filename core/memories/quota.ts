import { create } from "@bufbuild/protobuf";
import { type Quota, QuotaSchema } from "../../gen/memory/v1/memory_pb.js";
import type { PlanName } from "../auth/principal.js";
import { planGateError } from "../errors.js";
import type { PlanLimits } from "../plans/plans.js";
import { PLANS } from "../plans/plans.js";
import type { TransactionSql } from "../store/database.js";

// Any constant: the first key of the per-tenant advisory lock that serialises quota-checked inserts.
const QUOTA_LOCK_CLASS = 0x5107a;

/**
 * Memories counted against the plan (spec "Quotas and sizes": only stored documents/memories count):
 * current versions (valid_to unset; a fact with three versions is one memory) that did not fail.
 */
export async function countMemories(tx: TransactionSql, tenantId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`
    select count(*)::int as n from memories
    where tenant_id = ${tenantId} and valid_to is null and status <> 'failed'`;
  return row?.n ?? 0;
}

/** Spec "Soft warning": from 80 percent of the plan limit. */
export function quotaOf(used: number, limits: PlanLimits): Quota {
  const limit = limits.memoryLimit;
  if (limit === undefined) {
    return create(QuotaSchema, {
      memoriesUsed: BigInt(used),
      warnAt80: false,
      hint: `${used.toLocaleString("en-US")} memories stored; your plan has no memory limit`,
    });
  }
  const percent = limit > 0 ? Math.floor((used / limit) * 100) : 100;
  const warn = used >= limit * 0.8;
  const figures = `${used.toLocaleString("en-US")} of ${limit.toLocaleString("en-US")} memories used (${percent} %)`;
  return create(QuotaSchema, {
    memoryLimit: BigInt(limit),
    memoriesUsed: BigInt(used),
    warnAt80: warn,
    hint: warn ? `${figures}; upgrade your plan before the limit is reached` : figures,
  });
}

/** The quota figures for a tenant (stats and store responses). */
export async function readQuota(tx: TransactionSql, tenantId: string, limits: PlanLimits): Promise<Quota> {
  return quotaOf(await countMemories(tx, tenantId), limits);
}

export interface QuotaCaller {
  readonly tenantId: string;
  readonly plan: PlanName;
  readonly limits: PlanLimits;
}

/**
 * Checks there is room for one more memory, in the transaction that inserts it (DESIGN "Ingest": no
 * race past the limit). A per-tenant advisory lock serialises concurrent checks until commit; plans
 * without a limit skip it. `replacing` is true when the write replaces a current memory (upsert by
 * title), which leaves the count unchanged. Throws the plan-gate error (402) at the limit. Returns the
 * memories counted before this write, or undefined when the plan has no limit (nothing was counted).
 */
export async function reserveQuota(
  tx: TransactionSql,
  caller: QuotaCaller,
  upgradeUrl: string,
  replacing = false,
): Promise<number | undefined> {
  const limit = caller.limits.memoryLimit;
  if (limit === undefined) return undefined;
  await lockTenantQuota(tx, caller.tenantId);
  const used = await countMemories(tx, caller.tenantId);
  if (used < limit || (replacing && used <= limit)) return used;
  throw memoryLimitReached(caller, limit, used, upgradeUrl);
}

/** The plan-gate error (402) of a write past the plan's memory limit. */
export function memoryLimitReached(
  caller: QuotaCaller,
  limit: number,
  used: number,
  upgradeUrl: string,
): Error {
  return planGateError({
    feature: "memory_limit",
    currentPlan: caller.plan,
    requiredPlans: (Object.keys(PLANS) as PlanName[]).filter((p) => PLANS[p].memoryLimit === undefined),
    limit: BigInt(limit),
    used: BigInt(used),
    message: `Memory limit reached: ${used.toLocaleString("en-US")} of ${limit.toLocaleString("en-US")} memories used. Reading, recall and export keep working; upgrade your plan to store more.`,
    upgradeUrl,
  });
}

/** The per-tenant lock quota-checked inserts take until commit (import holds it for its whole run). */
export async function lockTenantQuota(tx: TransactionSql, tenantId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}, hashtext(${tenantId}))`;
}
