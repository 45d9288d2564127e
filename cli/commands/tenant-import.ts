import { createReadStream } from "node:fs";
import type { Config } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import type { PlanName } from "../../core/auth/principal.js";
import { importTenant } from "../../core/lifecycle/import-tenant.js";
import { loadModels } from "../../core/models/load-models.js";
import { type LimitsOverride, limitsFor } from "../../core/plans/plans.js";
import type { Database } from "../../core/store/database.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { CliError } from "../cli-error.js";

/**
 * `tenant import --slug x --file bundle.json`: the operator's import (docs/export.md "Import"), the
 * same use case as POST /api/tenant/import: into an empty workspace, all or nothing, re-embedded with
 * the configured embedder. The file is streamed, never read whole.
 */
export async function tenantImport(
  db: Database,
  config: Config,
  options: { slug?: string | undefined; file?: string | undefined },
): Promise<string> {
  const slug = options.slug ?? "";
  if (!slug) throw new CliError("--slug: the workspace to import into is required", 2);
  if (!options.file) throw new CliError("--file: the bundle (GET /api/tenant/export) is required", 2);
  const [tenant] = await db.sql<{ id: string; plan: PlanName; limits_override: LimitsOverride | null }[]>`
    select id, plan, limits_override from tenants where slug = ${slug}`;
  if (!tenant) throw new CliError(`no workspace "${slug}"`);
  const logger = createLogger(config.logLevel);
  const models = await loadModels(config, logger);
  const vectors = await openVectorStore(config.lancedbUri);
  try {
    const result = await importTenant(
      {
        db,
        vectors,
        embedder: models.embedder,
        logger,
        purgeDelayMs: config.vectorPurgeDelayMs,
        upgradeUrl: `${config.publicUrl}/dashboard/billing`,
      },
      {
        tenantId: tenant.id,
        plan: tenant.plan,
        limits: limitsFor(tenant.plan, tenant.limits_override ?? {}),
        userId: undefined,
        tokenId: undefined,
      },
      { chunks: createReadStream(options.file), ip: undefined },
    );
    return `imported into "${slug}": ${result.memories} memory versions, ${result.edges} edges, ${result.chunks} chunks (${result.format})\n`;
  } finally {
    vectors.close();
    await models.close();
  }
}
