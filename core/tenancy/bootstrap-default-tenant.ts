import type { Database } from "../store/database.js";
import { issueApiToken } from "./api-tokens.js";
import { countTenants, createTenant } from "./tenants.js";

/**
 * First start in embedded mode: with no tenant yet, create the self-hosted `default` workspace and
 * print one admin token once, so the README's quick start can `curl` right away. Self-hosting has no
 * plan limits: the workspace is on the api plan with an unlimited override.
 */
export async function bootstrapDefaultTenant(db: Database, publicUrl: string): Promise<void> {
  const claimed = await db.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(7311420002)`;
    if ((await countTenants(tx)) > 0) return undefined;
    return createTenant(tx, {
      slug: "default",
      name: "Default workspace",
      plan: "api",
      limitsOverride: { memoryLimit: null, requestsPerMinutePerToken: 600, mcpRequestsPerMinutePerIp: null },
    });
  });
  if (!claimed) return;
  const issued = await issueApiToken(db.sql, {
    tenantId: claimed.id,
    name: "bootstrap admin token",
    scopes: ["read", "write", "admin"],
  });
  process.stdout.write(
    [
      "",
      "  First start: created workspace 'default' and an admin API token (shown once, store it now):",
      "",
      `    ${issued.token}`,
      "",
      `  Try:  curl -s -H 'Authorization: Bearer ${issued.token}' ${publicUrl}/api/health`,
      "",
    ].join("\n"),
  );
}
