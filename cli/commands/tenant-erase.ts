import type { Config } from "../../config/config.js";
import { eraseWorkspace } from "../../core/lifecycle/erase-workspace.js";
import type { Database } from "../../core/store/database.js";
import { openVectorStore } from "../../core/vectors/vector-store.js";
import { CliError } from "../cli-error.js";

/**
 * `tenant erase --slug x --confirm x`: the operator's workspace erasure (docs/erasure.md), the same
 * use case as the owner's POST /api/tenant/erase. The slug is typed twice, as on the dashboard.
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
  try {
    const result = await eraseWorkspace(
      { db, vectors, purgeDelayMs: config.vectorPurgeDelayMs },
      { tenantId: tenant.id, confirmSlug: options.confirm, actor: "operator" },
    );
    return `erased workspace "${slug}" (${result.tenantId}): ${result.rows} rows, ${result.vectorTables} vector tables\n`;
  } finally {
    vectors.close();
  }
}
