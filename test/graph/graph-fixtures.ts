import { randomUUID } from "node:crypto";
import type { MemoryKindName, MemoryTypeName } from "../../core/memories/relation-types.js";
import type { Sql } from "../../core/store/database.js";

// Direct SQL fixtures for the traversal tests, which need graphs of hundreds of nodes with exact
// shapes (hubs, chains, versions valid at chosen instants). Service-level tests create memories
// through the real ingest path instead.

export interface FixtureNode {
  readonly id: string;
  readonly lineageId: string;
}

export async function insertMemory(
  sql: Sql,
  tenantId: string,
  options: {
    kind?: MemoryKindName;
    memoryType?: MemoryTypeName;
    lineageId?: string;
    validFrom?: Date;
    validTo?: Date | null;
    title?: string;
  } = {},
): Promise<FixtureNode> {
  const id = randomUUID();
  const lineageId = options.lineageId ?? randomUUID();
  const title = options.title ?? `node ${id.slice(0, 8)}`;
  await sql`
    insert into memories (id, tenant_id, lineage_id, kind, memory_type, title, content, content_sha256,
                          status, valid_from, valid_to)
    values (${id}, ${tenantId}, ${lineageId}, ${options.kind ?? "entry"}, ${options.memoryType ?? "semantic"},
            ${title}, ${title}, sha256(convert_to(${title}, 'UTF8')), 'indexed',
            ${options.validFrom ?? new Date()}, ${options.validTo ?? null})`;
  return { id, lineageId };
}

/** Both directions of a link, as Link writes them. */
export async function insertEdgePair(
  sql: Sql,
  tenantId: string,
  fromId: string,
  toId: string,
  relType: string,
  inverse: string,
  validity: { validFrom?: Date; validTo?: Date | null } = {},
): Promise<void> {
  const a = randomUUID();
  const b = randomUUID();
  const from = validity.validFrom ?? new Date();
  const to = validity.validTo ?? null;
  await sql`
    insert into edges (id, tenant_id, from_id, to_id, rel_type, inverse_of, valid_from, valid_to)
    values (${a}, ${tenantId}, ${fromId}, ${toId}, ${relType}, ${b}, ${from}, ${to}),
           (${b}, ${tenantId}, ${toId}, ${fromId}, ${inverse}, ${a}, ${from}, ${to})`;
}
