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
  const patterns = needles.map((n) => `%${n.toLowerCase()}%`);
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
        if (row.toLowerCase().includes(needle.toLowerCase())) hits.push({ table, needle, row });
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
