import type { Config } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import { cancelSubscriptionNow } from "../../core/billing/cancel-subscription-now.js";
import { createPayments } from "../../core/billing/payments.js";
import { eraseWorkspace } from "../../core/lifecycle/erase-workspace.js";
import type { Database } from "../../core/store/database.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { CliError } from "../cli-error.js";

/**
 * `tenant erase --slug x --confirm x`: the operator's workspace erasure (docs/erasure.md), the same
 * use case as the owner's POST /api/tenant/erase. The slug is typed twice, as on the dashboard.
 * With payments configured (STRIPE_*), the workspace's subscription is cancelled at Stripe first,
 * exactly as for the owner: if Stripe refuses, nothing is erased and the command fails.
 */
export async function tenantErase(
  db: Database,
  config: Config,
  options: { slug?: string | undefined; confirm?: string | undefined },
): Promise<string> {
  const slug = options.slug ?? "";
  if (!slug) throw new CliError("--slug: the workspace to erase is required", 2);
  if (options.confirm === undefined) throw new CliError("--confirm: type the slug again to confirm", 2);
  const [tenant] = await db.sql<{ id: string }[]>`select id from tenants where slug = ${slug}`;
  if (!tenant) throw new CliError(`no workspace "${slug}"`);
  const vectors = await openVectorStore(config.lancedbUri);
  const payments = config.stripe ? createPayments(config.stripe) : undefined;
  const logger = createLogger(config.logLevel, process.stderr);
  let cancelled = false;
  try {
    const result = await eraseWorkspace(
      {
        db,
        vectors,
        purgeDelayMs: config.vectorPurgeDelayMs,
        ...(payments
          ? {
              cancelSubscription: async (tenantId: string) => {
                cancelled = await cancelSubscriptionNow({ db, logger, payments }, tenantId);
                return cancelled;
              },
            }
          : {}),
      },
      { tenantId: tenant.id, confirmSlug: options.confirm, actor: "operator" },
    );
    const subscription = cancelled ? "; its subscription was cancelled at Stripe" : "";
    return `erased workspace "${slug}" (${result.tenantId}): ${result.rows} rows, ${result.vectorTables} vector tables${subscription}\n`;
  } finally {
    vectors.close();
  }
}
