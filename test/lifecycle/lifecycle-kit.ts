import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "../../core/store/database.js";
import type { VectorStore } from "../../core/vectors/vector-store.js";

export interface ScanHit {
  readonly table: string;
  readonly needle: string;
  readonly row: string;
}

/**
 * Every base table of every schema but PostgreSQL's own, from information_schema, so a table added
 * later (webhook deliveries, …) is scanned without a change here. Each row is searched as its text
 * form (every column) for each needle.
 */
export async function scanEveryTable(
  sql: Sql,
  needles: readonly string[],
  skipRow: (table: string, row: string) => boolean = () => false,
): Promise<{ hits: ScanHit[]; tables: string[] }> {
  const tables = await sql<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by 1, 2`;
  // bytea columns (kept protobuf answers, …) print as hex: each needle is searched as its UTF-8 hex
  // too, so content inside binary values is found.
  const hex = (n: string) => Buffer.from(n, "utf8").toString("hex");
  const patterns = needles.flatMap((n) => [`%${n.toLowerCase()}%`, `%${hex(n)}%`]);
  const hits: ScanHit[] = [];
  for (const { schema, name } of tables) {
    const qualified = `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
    const rows = await sql.unsafe<{ row: string }[]>(
      `select t::text as row from ${qualified} t where lower(t::text) like any($1::text[])`,
      [patterns],
    );
    for (const { row } of rows) {
      const table = `${schema}.${name}`;
      if (skipRow(table, row)) continue;
      for (const needle of needles)
        if (row.toLowerCase().includes(needle.toLowerCase()) || row.toLowerCase().includes(hex(needle)))
          hits.push({ table, needle, row });
    }
  }
  return { hits, tables: tables.map((t) => `${t.schema}.${t.name}`) };
}

/** Every row of every public table with a tenant_id column for one tenant, as sorted text per table. */
export async function tenantRows(sql: Sql, tenantId: string): Promise<Record<string, string[]>> {
  const tables = await sql<{ name: string }[]>`
    select c.table_name as name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and c.column_name = 'tenant_id' and t.table_type = 'BASE TABLE'
    order by 1`;
  const result: Record<string, string[]> = {};
  for (const { name } of tables) {
    const rows = await sql.unsafe<{ row: string }[]>(
      `select t::text as row from "${name}" t where tenant_id = $1 order by 1`,
      [tenantId],
    );
    result[name] = rows.map((r) => r.row);
  }
  const [tenant] = await sql<{ row: string }[]>`select t::text as row from tenants t where id = ${tenantId}`;
  result.tenants = tenant ? [tenant.row] : [];
  return result;
}

/** Every file under `dir` whose bytes contain one of the needles (as UTF-8 or, for ids, as hex). */
export async function filesContaining(dir: string, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const bytes = await readFile(full);
        if (
          needles.some(
            (n) =>
              bytes.includes(Buffer.from(n, "utf8")) ||
              bytes.includes(Buffer.from(n.replaceAll("-", ""), "utf8")),
          )
        )
          found.push(full);
      }
    }
  };
  await walk(dir);
  return found;
}

/**
 * For each version LanceDB still keeps of the tenant's tables, the rows whose memory_id is one of
 * `memoryIds` — old versions are where a delete alone leaves them.
 */
export async function rowsInAnyVersion(
  vectors: VectorStore,
  tenantId: string,
  memoryIds: readonly string[],
): Promise<{ versions: number; hits: number; physicalRows: number; liveRows: number; deletedRows: number }> {
  let versions = 0;
  let hits = 0;
  let physicalRows = 0;
  let liveRows = 0;
  let deletedRows = 0;
  const filter = `memory_id IN (${memoryIds.map((id) => `'${id}'`).join(", ")})`;
  for (const space of await vectors.spaces(tenantId)) {
    const table = await vectors.openTable(tenantId, space);
    if (!table) continue;
    const all = await table.listVersions();
    for (const v of all) {
      versions++;
      const at = await vectors.connection.openTable(table.name);
      await at.checkout(v.version);
      hits += await at.countRows(filter);
      at.close();
    }
    const latest = all.at(-1);
    physicalRows += Number(latest?.metadata.total_data_file_rows ?? 0);
    deletedRows += Number(latest?.metadata.total_deletion_file_rows ?? 0);
    liveRows += await table.countRows();
  }
  return { versions, hits, physicalRows, liveRows, deletedRows };
}

/** `npm run cli -- …` as a child process against a test service's database and data directory. */
export function runCli(
  service: { readonly database: { readonly url: string }; readonly dataDir: string },
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "cli/main.ts", ...args], {
    env: {
      ...process.env,
      DATABASE_URL: service.database.url,
      DATA_DIR: service.dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** A bundle of `n` unrelated memories in the export format (docs/export.md), for a quick fill. */
export function fillerBundle(n: number): string {
  const at = "2025-03-01T10:00:00.000Z";
  const lines = [`{"format":"memory-service-export/v1","tenant":{"id":"${randomUUID()}"},`, `"memories":[`];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const record = {
      id,
      lineageId: id,
      kind: "entry",
      memoryType: "semantic",
      title: `Eintrag ${i}`,
      content: `Eintrag ${i} über Lager ${i % 37}, Route ${i % 11} und Kunde ${i % 101}.`,
      source: null,
      tags: [],
      metadata: {},
      status: "indexed",
      statusDetail: null,
      updateReason: null,
      validFrom: at,
      validTo: null,
      recordedAt: at,
      createdAt: at,
      updatedAt: at,
    };
    lines.push(`${JSON.stringify(record)}${i < n - 1 ? "," : ""}`);
  }
  lines.push("],", `"edges":[],`, `"audit":[],`, `"counts":{"memories":${n},"edges":0,"audit":0}}`);
  return `${lines.join("\n")}\n`;
}
