import type postgres from "postgres";
import type { BundleAuditEntry, BundleEdge, BundleMemory, BundleTenant } from "../bundle/index.js";
import type { MemoryKindName, MemoryStatusName, MemoryTypeName } from "../memories/index.js";
import type { TransactionSql } from "../store/database.js";
import type { AuditEntryRow } from "./audit-entries.js";

/**
 * The rows of the tenant export and the bundle records they become (core/bundle/bundle-types.ts):
 * timestamps ISO 8601 UTC with milliseconds (as REST).
 */

const iso = (at: Date): string => at.toISOString();
const isoOrNull = (at: Date | null): string | null => (at ? at.toISOString() : null);

interface TenantRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly plan: string;
  readonly created_at: Date;
  /** The transaction's now(): the instant the export shows. */
  readonly exported_at: Date;
  /** exported_at minus the plan's audit retention: the oldest audit entry included. */
  readonly audit_since: Date;
}

export function selectTenant(tx: TransactionSql, tenantId: string, retentionDays: number) {
  return tx<TenantRow[]>`
    select id, slug, name, plan, created_at, now() as exported_at,
           now() - make_interval(days => ${retentionDays}) as audit_since
    from tenants where id = ${tenantId}`;
}

export function tenantRecord(row: TenantRow): BundleTenant {
  return { id: row.id, slug: row.slug, name: row.name, plan: row.plan, createdAt: iso(row.created_at) };
}

export interface MemoryRow {
  readonly id: string;
  readonly lineage_id: string;
  readonly kind: MemoryKindName;
  readonly memory_type: MemoryTypeName;
  readonly title: string;
  readonly content: string;
  readonly source: string | null;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
  readonly status: MemoryStatusName;
  readonly status_detail: string | null;
  readonly update_reason: string | null;
  readonly valid_from: Date;
  readonly valid_to: Date | null;
  readonly recorded_at: Date;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export function memoryRecord(row: MemoryRow): BundleMemory {
  return {
    id: row.id,
    lineageId: row.lineage_id,
    kind: row.kind,
    memoryType: row.memory_type,
    title: row.title,
    content: row.content,
    source: row.source,
    tags: row.tags,
    metadata: row.metadata,
    status: row.status,
    statusDetail: row.status_detail,
    updateReason: row.update_reason,
    validFrom: iso(row.valid_from),
    validTo: isoOrNull(row.valid_to),
    recordedAt: iso(row.recorded_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

interface EdgeRow {
  readonly id: string;
  readonly rel_type: string;
  readonly from_id: string;
  readonly to_id: string;
  readonly inverse_of: string | null;
  readonly valid_from: Date;
  readonly valid_to: Date | null;
  readonly created_at: Date;
}

/**
 * Every edge, current and closed (history of superseded versions), each direction of a link as its
 * own record. Ordered like the index edges_from_valid_idx (0042) so the read needs no sort: grouped
 * by source memory, newest first.
 */
export function selectEdges(tx: TransactionSql, tenantId: string): postgres.PendingQuery<EdgeRow[]> {
  return tx<EdgeRow[]>`
    select id, rel_type, from_id, to_id, inverse_of, valid_from, valid_to, created_at
    from edges
    where tenant_id = ${tenantId}
    order by from_id, valid_from desc, id`;
}

export function edgeRecord(row: EdgeRow): BundleEdge {
  return {
    id: row.id,
    relType: row.rel_type,
    fromId: row.from_id,
    toId: row.to_id,
    inverseEdgeId: row.inverse_of,
    validFrom: iso(row.valid_from),
    validTo: isoOrNull(row.valid_to),
    createdAt: iso(row.created_at),
  };
}

export function auditRecord(row: AuditEntryRow): BundleAuditEntry {
  return {
    id: row.id,
    createdAt: iso(row.created_at),
    action: row.action,
    actorUserId: row.actor_user_id,
    actorTokenId: row.actor_token_id,
    target: row.target,
    ip: row.ip,
    details: row.details,
  };
}
