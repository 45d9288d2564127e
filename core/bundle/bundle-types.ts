import type { MemoryKindName, MemoryStatusName, MemoryTypeName } from "../memories/index.js";

/**
 * The records of the export bundle (docs/export.md), as the writer writes them and the reader checks
 * them: camelCase like REST, timestamps ISO 8601 UTC, every field present (null when unset) so the
 * shape does not depend on the data.
 */

type Instant = string;

export interface BundleTenant {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly plan: string;
  readonly createdAt: Instant;
}

/** The head: the members before the arrays. */
export interface BundleHead {
  readonly format: string;
  readonly exportedAt: Instant;
  readonly tenant: BundleTenant;
  readonly auditRetentionDays: number;
  /** The oldest audit entry included: exportedAt minus the plan's audit retention. */
  readonly auditSince: Instant;
}

/** A memory version. */
export interface BundleMemory {
  readonly id: string;
  readonly lineageId: string;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
  readonly title: string;
  readonly content: string;
  readonly source: string | null;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
  readonly status: MemoryStatusName;
  readonly statusDetail: string | null;
  readonly updateReason: string | null;
  readonly validFrom: Instant;
  readonly validTo: Instant | null;
  readonly recordedAt: Instant;
  readonly createdAt: Instant;
  readonly updatedAt: Instant;
}

/** One direction of a link: each edge and its inverse are records of their own. */
export interface BundleEdge {
  readonly id: string;
  readonly relType: string;
  readonly fromId: string;
  readonly toId: string;
  readonly inverseEdgeId: string | null;
  readonly validFrom: Instant;
  readonly validTo: Instant | null;
  readonly createdAt: Instant;
}

export interface BundleAuditEntry {
  readonly id: string;
  readonly createdAt: Instant;
  readonly action: string;
  readonly actorUserId: string | null;
  readonly actorTokenId: string | null;
  readonly target: string | null;
  readonly ip: string | null;
  readonly details: Record<string, unknown>;
}

/** The last member: how many records each array holds, so a reader knows it received them all. */
export interface BundleCounts {
  readonly memories: number;
  readonly edges: number;
  readonly audit: number;
}

/** The record type of each array. */
export interface BundleRecords {
  readonly memories: BundleMemory;
  readonly edges: BundleEdge;
  readonly audit: BundleAuditEntry;
}
