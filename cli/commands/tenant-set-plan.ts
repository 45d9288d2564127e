import type { PlanName } from "../../core/auth/principal.js";
import { PLANS } from "../../core/plans/plans.js";
import type { Database } from "../../core/store/database.js";
import { recordAudit } from "../../core/store/record-audit.js";
import { findTenantBySlug } from "../../core/tenancy/tenants.js";
import { CliError } from "../cli-error.js";

/**
 * `tenant set-plan --tenant SLUG --plan api`: the operator sets a workspace's plan without payments
 * (self-hosting, invoices outside Stripe, support). Audited as tenant.plan_changed. A workspace with
 * a running Stripe subscription keeps it: the next subscription event may set the plan again.
 */
export async function tenantSetPlan(
  db: Database,
  options: { tenant?: string | undefined; plan?: string | undefined },
): Promise<string> {
  if (!options.tenant) throw new CliError("--tenant <slug> is required");
  const plan = options.plan as PlanName | undefined;
  if (!plan || !(plan in PLANS)) throw new CliError(`--plan: one of ${Object.keys(PLANS).join(", ")}`);
  const slug = options.tenant;
  const result = await db.sql.begin(async (tx) => {
    const tenant = await findTenantBySlug(tx, slug);
    if (!tenant) return undefined;
    const [row] = await tx<{ plan: PlanName; payment_subscription_id: string | null }[]>`
      select plan, payment_subscription_id from tenants where id = ${tenant.id} for update`;
    await tx`update tenants set plan = ${plan}, updated_at = now() where id = ${tenant.id}`;
    await recordAudit(tx, {
      tenantId: tenant.id,
      action: "tenant.plan_changed",
      target: tenant.slug,
      details: { via: "cli", plan, previousPlan: row?.plan ?? tenant.plan },
    });
    return { tenant, previous: row?.plan ?? tenant.plan, subscription: row?.payment_subscription_id ?? null };
  });
  if (!result) throw new CliError(`no workspace with slug "${slug}"`);
  const note = result.subscription
    ? ` (note: it has a Stripe subscription, ${result.subscription}; its next event may change the plan again)`
    : "";
  return `workspace "${result.tenant.slug}": plan ${result.previous} → ${plan}${note}\n`;
}
