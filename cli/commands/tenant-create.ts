import type { PlanName } from "../../core/auth/principal.js";
import { PLANS } from "../../core/plans/plans.js";
import type { Database } from "../../core/store/database.js";
import { recordAudit } from "../../core/store/record-audit.js";
import { planEnum } from "../../core/tenancy/proto-enums.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { OnboardRequestSchema } from "../../gen/memory/v1/tenancy_service_pb.js";
import { CliError } from "../cli-error.js";
import { validateRequest } from "../validate-request.js";

/**
 * `tenant create --slug x --name y --plan api`: a workspace without sign-in or payment, for
 * self-hosting without mail. Any plan may be set here; the operator is the payment.
 */
export async function tenantCreate(
  db: Database,
  options: { slug?: string | undefined; name?: string | undefined; plan?: string | undefined },
): Promise<string> {
  const plan = (options.plan ?? "api") as PlanName;
  if (!(plan in PLANS)) throw new CliError(`--plan: one of ${Object.keys(PLANS).join(", ")}`);
  const slug = options.slug ?? "";
  const name = (options.name ?? slug).trim();
  validateRequest(OnboardRequestSchema, { slug, name, plan: planEnum(plan) });
  const tenant = await db.sql.begin(async (tx) => {
    const created = await createTenant(tx, { slug, name, plan });
    await recordAudit(tx, {
      tenantId: created.id,
      action: "tenant.created",
      target: created.slug,
      details: { via: "cli", plan },
    });
    return created;
  });
  return `created workspace "${tenant.slug}" (${tenant.id}) on the ${tenant.plan} plan\n`;
}
