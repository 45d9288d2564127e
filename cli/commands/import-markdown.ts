import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Config } from "../../config/config.js";
import { createLogger } from "../../config/logger.js";
import type { PlanName } from "../../core/auth/principal.js";
import {
  importMarkdownVault,
  type NoteOutcome,
} from "../../core/ingest/markdown-vault/import-markdown-vault.js";
import { parseMasterKey } from "../../core/keys/key-cipher.js";
import { createTenantModels } from "../../core/keys/tenant-models.js";
import { loadModels } from "../../core/models/load-models.js";
import { type LimitsOverride, limitsFor } from "../../core/plans/plans.js";
import type { Database } from "../../core/store/database.js";
import { openVectorStore } from "../../core/vectors/lancedb-vector-store.js";
import { sharedOutboundGuard } from "../../lib/net/outbound-guard.js";
import { CliError } from "../cli-error.js";

/**
 * `import markdown --tenant <slug> <folder>`: an Obsidian-style vault into a workspace (docs/ingest.md
 * "Markdown vault"). Every `.md` file below the folder (dot folders such as `.obsidian` and `.trash`
 * skipped); one line per note on stdout (`created`, `updated`, `unchanged`, `failed: why`), a progress
 * bar on stderr when it is a terminal. Exit code 1 when a note failed.
 */
export async function importMarkdown(
  db: Database,
  config: Config,
  options: { tenant?: string | undefined; folder?: string | undefined },
  terminal: { write(text: string): void; readonly isTTY: boolean },
): Promise<{ stdout: string; failed: boolean }> {
  const slug = options.tenant ?? "";
  if (!slug) throw new CliError("--tenant: the workspace to import into is required", 2);
  if (!options.folder)
    throw new CliError("the vault folder is required: import markdown --tenant <slug> <folder>", 2);
  const folder = options.folder;
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new CliError(`${folder} is not a folder`, 2);
  const [tenant] = await db.sql<{ id: string; plan: PlanName; limits_override: LimitsOverride | null }[]>`
    select id, plan, limits_override from tenants where slug = ${slug}`;
  if (!tenant) throw new CliError(`no workspace "${slug}"`);
  const paths = await markdownFiles(folder);
  const files = await Promise.all(
    paths.map(async (path) => ({
      path: relative(folder, path).split(sep).join("/"),
      text: await readFile(path, "utf8"),
    })),
  );
  const logger = createLogger(config.logLevel);
  const models = await loadModels(config, logger);
  const vectors = await openVectorStore(config.lancedbUri);
  try {
    // The workspace's own embedder when it brought one (BYOK), as the service's ingest uses it.
    const embedder = await createTenantModels({
      db,
      masterKey: config.masterKey === undefined ? undefined : parseMasterKey(config.masterKey),
      defaultEmbedder: models.embedder,
      defaultReranker: models.reranker,
      logger,
      guard: sharedOutboundGuard(config.providerAllowPrivateUrls),
    }).embedderFor(tenant.id);
    const result = await importMarkdownVault(
      {
        db,
        vectors,
        embedder,
        logger,
        upgradeUrl: `${config.publicUrl}/dashboard/billing`,
      },
      {
        tenantId: tenant.id,
        plan: tenant.plan,
        limits: limitsFor(tenant.plan, tenant.limits_override ?? {}),
      },
      files,
      terminal.isTTY ? (done, total, note) => terminal.write(progressBar(done, total, note)) : undefined,
    );
    if (terminal.isTTY) terminal.write("\r\x1b[K");
    const count = (status: NoteOutcome["status"]) => result.notes.filter((n) => n.status === status).length;
    const lines = result.notes.map(
      (n) => `${n.status === "failed" ? `failed: ${n.error}` : n.status}\t${n.path}`,
    );
    for (const u of result.unresolved) lines.push(`unresolved link [[${u.target}]]\t${u.path}`);
    lines.push(
      `imported ${result.notes.length} notes into "${slug}": ${count("created")} created, ${count("updated")} updated, ` +
        `${count("unchanged")} unchanged, ${count("failed")} failed; ${result.links} links, ${result.unresolved.length} unresolved`,
    );
    return { stdout: `${lines.join("\n")}\n`, failed: count("failed") > 0 };
  } finally {
    vectors.close();
    await models.close();
  }
}

/** `.md` files below the folder, sorted, skipping dot entries (`.obsidian`, `.trash`, `.git`). */
async function markdownFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await markdownFiles(path)));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) found.push(path);
  }
  return found.sort();
}

const BAR_WIDTH = 30;

function progressBar(done: number, total: number, note: NoteOutcome): string {
  const filled = Math.round((done / Math.max(1, total)) * BAR_WIDTH);
  const name = note.path.length > 40 ? `…${note.path.slice(-39)}` : note.path;
  return `\r\x1b[K[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${done}/${total} ${name}`;
}
