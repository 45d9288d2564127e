import type Stripe from "stripe";
import { invalidArgument } from "../errors.js";
import { recordAudit } from "../store/record-audit.js";
import { type CancellationClaim, readCancellationToken } from "./cancellation-token.js";
import { type BillingDeps, type Payments, paymentProviderError, requirePayments } from "./payments.js";

/** The one answer of step 2, for known and unknown contracts alike (no account enumeration). */
export function receivedMessage(receivedAt: Date): string {
  const at = formatBerlin(receivedAt);
  return (
    `Ihre Kündigung ist am ${at} eingegangen. Besteht zu diesen Angaben ein Vertrag, endet er zum ` +
    "nächstmöglichen oder gewünschten Zeitpunkt; die Bestätigung mit dem Datum, zu dem die Kündigung " +
    "wirksam wird, geht per E-Mail an die angegebene Adresse. / " +
    `Your cancellation was received on ${receivedAt.toISOString()}. If a contract matches these details, it ` +
    "ends at the earliest possible or the wished date; a confirmation with the effective date is sent to " +
    "the address given."
  );
}

function formatBerlin(date: Date): string {
  return `${new Intl.DateTimeFormat("de-DE", {
    timeZone: "Europe/Berlin",
    dateStyle: "long",
    timeStyle: "medium",
  }).format(date)} (Europe/Berlin)`;
}

interface Contract {
  tenant_id: string;
  slug: string;
  owner_email: string;
  payment_subscription_id: string | null;
}

/**
 * Step 2, "jetzt kündigen": with a valid token, the matching contract (workspace slug whose owner has
 * the address) ends at the period end (or the later wished date) through Stripe, the receipt is
 * stored and audited, and the owner gets a confirmation mail with date and time of receipt and the
 * effective date. Unknown contracts get the same answer and nothing happens. A token works once.
 */
export async function confirmCancellation(
  deps: BillingDeps,
  input: { confirmationToken: string; ip: string | undefined },
): Promise<{ message: string; receivedAt: Date }> {
  const payments = requirePayments(deps);
  const claim = readCancellationToken(payments.cancellationKey, input.confirmationToken);
  if (!claim) {
    throw invalidArgument(
      "confirmationToken",
      "confirmationToken: invalid or expired (valid 30 minutes); send the cancellation form again",
    );
  }
  const [contract] = await deps.db.sql<Contract[]>`
    select t.id as tenant_id, t.slug, u.email as owner_email, t.payment_subscription_id
    from tenants t
    join memberships m on m.tenant_id = t.id and m.role = 'owner'
    join users u on u.id = m.user_id
    where t.slug = ${claim.workspace} and lower(u.email) = lower(${claim.email})
    limit 1`;
  if (!contract) {
    deps.logger.info({ workspace: claim.workspace }, "cancellation for no matching contract");
    return { message: receivedMessage(new Date()), receivedAt: new Date() };
  }
  // Claim the token first: a second confirmation (double click, replay) finds it used.
  const [claimed] = await deps.db.sql<{ id: string; received_at: Date }[]>`
    insert into cancellations (tenant_id, nonce, email, kind, reason, wished_date, subscription_id)
    values (${contract.tenant_id}, ${claim.nonce}, ${contract.owner_email}, ${claim.kind},
            ${claim.reason ?? null}, ${claim.wishedDate ?? null}, ${contract.payment_subscription_id})
    on conflict (nonce) do nothing
    returning id, received_at`;
  if (!claimed) {
    const [earlier] = await deps.db.sql<{ received_at: Date }[]>`
      select received_at from cancellations where nonce = ${claim.nonce}`;
    const receivedAt = earlier?.received_at ?? new Date();
    return { message: receivedMessage(receivedAt), receivedAt };
  }
  let effectiveAt: Date | null = null;
  if (contract.payment_subscription_id) {
    try {
      effectiveAt = await cancelAtPeriodEnd(payments, contract.payment_subscription_id, claim.wishedDate);
    } catch (error) {
      // Nothing was cancelled: free the token so the same confirmation can be sent again.
      await deps.db.sql`delete from cancellations where id = ${claimed.id}`;
      throw paymentProviderError(deps.logger, error, "record the cancellation");
    }
  }
  await deps.db.sql.begin(async (tx) => {
    await tx`update cancellations set effective_at = ${effectiveAt} where id = ${claimed.id}`;
    if (effectiveAt) {
      await tx`update tenants set subscription_cancel_at = ${effectiveAt}, updated_at = now() where id = ${contract.tenant_id}`;
    }
    await recordAudit(tx, {
      tenantId: contract.tenant_id,
      action: "subscription.cancellation_received",
      target: contract.payment_subscription_id ?? contract.slug,
      ip: input.ip,
      details: {
        via: "kuendigung",
        kind: claim.kind,
        wishedDate: claim.wishedDate ?? null,
        effectiveAt: effectiveAt?.toISOString() ?? null,
        receivedAt: claimed.received_at.toISOString(),
      },
    });
  });
  try {
    await deps.sendMail({
      to: contract.owner_email,
      subject: "Bestätigung Ihrer Kündigung / Cancellation confirmed",
      text: confirmationMail(contract, claim, claimed.received_at, effectiveAt),
    });
  } catch (error) {
    // The cancellation stands; the receipt is in the answer, the audit log and the operator's log.
    deps.logger.error(
      { err: error, tenantId: contract.tenant_id },
      "cancellation confirmation mail not sent",
    );
  }
  return { message: receivedMessage(claimed.received_at), receivedAt: claimed.received_at };
}

/** Ends the subscription at the period end, or at the wished date when that is later. */
async function cancelAtPeriodEnd(
  payments: Payments,
  subscriptionId: string,
  wishedDate?: string,
): Promise<Date> {
  const current = await payments.stripe.subscriptions.retrieve(subscriptionId);
  const periodEnd = Math.max(0, ...(current.items?.data ?? []).map((i) => i.current_period_end ?? 0));
  const wished = wishedDate ? Math.floor(new Date(`${wishedDate}T00:00:00Z`).getTime() / 1000) : 0;
  const params: Stripe.SubscriptionUpdateParams =
    wished > periodEnd ? { cancel_at: wished } : { cancel_at_period_end: true };
  const updated = await payments.stripe.subscriptions.update(subscriptionId, params);
  const end = updated.cancel_at ?? (periodEnd || null);
  if (!end) throw new Error(`subscription ${subscriptionId} reports no end after cancelling`);
  return new Date(end * 1000);
}

function confirmationMail(
  contract: Contract,
  claim: CancellationClaim,
  receivedAt: Date,
  effectiveAt: Date | null,
) {
  const kind = claim.kind === "extraordinary" ? "außerordentliche Kündigung" : "ordentliche Kündigung";
  return [
    "Guten Tag,",
    "",
    `wir bestätigen den Eingang Ihrer Kündigung für den Arbeitsbereich „${contract.slug}“.`,
    "",
    `Eingang: ${formatBerlin(receivedAt)} (${receivedAt.toISOString()})`,
    `Art: ${kind}`,
    ...(claim.wishedDate ? [`Gewünschter Zeitpunkt: ${claim.wishedDate}`] : []),
    ...(claim.reason ? [`Grund: ${claim.reason}`] : []),
    effectiveAt
      ? `Die Kündigung wird wirksam zum: ${formatBerlin(effectiveAt)} (${effectiveAt.toISOString()}). Bis dahin bleibt der Tarif nutzbar; danach gilt der kostenlose Tarif.`
      : "Für diesen Arbeitsbereich besteht kein bezahltes Abonnement; es gibt nichts zu kündigen.",
    "",
    "---",
    "",
    `We confirm receipt of your cancellation for the workspace "${contract.slug}".`,
    `Received: ${receivedAt.toISOString()}`,
    effectiveAt
      ? `Effective: ${effectiveAt.toISOString()} (the plan stays usable until then; the free plan applies afterwards).`
      : "This workspace has no paid subscription; there is nothing to cancel.",
  ].join("\n");
}
