import { notFound } from "../errors.js";
import { type BillingDeps, paymentProviderError, requirePayments } from "./payments.js";

/**
 * A session of Stripe's customer portal for the workspace's payment customer (POST
 * /api/subscription/portal): plan changes, payment methods, invoices, cancellation. 404 when the
 * workspace never paid (no customer).
 */
export async function createPortalSession(
  deps: BillingDeps,
  input: { tenantId: string; baseUrl: string },
): Promise<string> {
  const payments = requirePayments(deps);
  const [tenant] = await deps.db.sql<{ payment_customer_id: string | null }[]>`
    select payment_customer_id from tenants where id = ${input.tenantId}`;
  if (!tenant?.payment_customer_id) {
    throw notFound(
      "payment customer (this workspace has no subscription; start one with POST /api/checkout)",
    );
  }
  try {
    const session = await payments.stripe.billingPortal.sessions.create({
      customer: tenant.payment_customer_id,
      return_url: `${input.baseUrl}/dashboard/billing`,
    });
    return session.url;
  } catch (error) {
    throw paymentProviderError(deps.logger, error, "open the customer portal");
  }
}
