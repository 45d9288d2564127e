import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { PlanName } from "../auth/principal.js";
import { coreError, planGateError } from "../errors.js";
import { upgradeUrl } from "../plans/upgrade-url.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { DASHBOARD_PATH } from "./complete-sign-in.js";
import { createTenant } from "./tenants.js";

/**
 * Starts the payment of a paid plan for a new workspace and returns the checkout URL. Wired by
 * billing when payments are configured; unset means "payments not configured".
 */
export type StartCheckout = (input: { tenantId: string; plan: PlanName; email: string }) => Promise<string>;

export interface OnboardInput {
  readonly userId: string;
  readonly email: string;
  readonly slug: string;
  readonly name: string;
  readonly plan: PlanName;
  readonly ip: string | undefined;
}

/**
 * First sign-in: creates the workspace and makes the user its owner (spec "Authentication" 2,
 * POST /api/onboarding). Slug, name and plan were validated by the proto rules already.
 *
 * A paid plan is not granted here: the workspace starts on free and the payment webhook
 * (checkout.session.completed) switches it, so nobody gets a paid plan by onboarding alone. Without
 * payments a paid plan is refused with the plan-gate body (402) before anything is created.
 *
 * Self-hosted (SELF_HOSTED_PLAN set, no payments): every new workspace gets that plan, whatever was
 * asked for, and goes to the dashboard; the grant is audited.
 */
export async function onboard(
  deps: {
    db: Database;
    publicUrl: string;
    startCheckout?: StartCheckout | undefined;
    selfHostedPlan?: PlanName | undefined;
  },
  input: OnboardInput,
): Promise<{ tenantId: string; redirectUrl: string }> {
  const granted = deps.selfHostedPlan;
  const paid = input.plan !== "free" && !granted;
  if (paid && !deps.startCheckout) {
    throw planGateError({
      feature: `plan_${input.plan}`,
      currentPlan: "free",
      requiredPlans: ["free"],
      message: `the ${input.plan} plan needs a payment, and payments are not configured on this server; choose the free plan`,
      upgradeUrl: upgradeUrl(deps.publicUrl),
    });
  }
  const tenantId = await deps.db.sql.begin(async (tx) => {
    // Serialises two onboardings of the same user (double submit): the second sees the membership.
    await tx`select id from users where id = ${input.userId} for update`;
    const [existing] = await tx<{ slug: string }[]>`
      select t.slug from memberships m join tenants t on t.id = m.tenant_id
      where m.user_id = ${input.userId} limit 1`;
    if (existing) {
      throw coreError(
        Code.AlreadyExists,
        ErrorReason.CONFLICT,
        `you already have a workspace ("${existing.slug}"); one user owns at most one`,
      );
    }
    const tenant = await createTenant(tx, { slug: input.slug, name: input.name, plan: granted ?? "free" });
    await tx`insert into memberships (tenant_id, user_id, role) values (${tenant.id}, ${input.userId}, 'owner')`;
    await recordAudit(tx, {
      tenantId: tenant.id,
      actorUserId: input.userId,
      action: "tenant.onboarded",
      target: tenant.slug,
      ip: input.ip,
      details: {
        slug: tenant.slug,
        requestedPlan: input.plan,
        ...(granted ? { grantedPlan: granted, via: "SELF_HOSTED_PLAN" } : {}),
      },
    });
    return tenant.id;
  });
  const redirectUrl =
    paid && deps.startCheckout
      ? await deps.startCheckout({ tenantId, plan: input.plan, email: input.email })
      : `${deps.publicUrl}${DASHBOARD_PATH}`;
  return { tenantId, redirectUrl };
}
