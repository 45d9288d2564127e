/**
 * One LanceDB table per (tenant, embedding space) (DESIGN "Storage": a flat search costs ~6 µs per row
 * of the *table*, and a tenant pre-filter does not make a shared table cheaper). The name is
 * reversible so tenant-wide operations (setValidTo, delete) can list a tenant's spaces without a
 * second registry: `v1_<tenant uuid as 32 hex>_<base64url(space id)>`.
 */

const PREFIX = "v1_";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The prefix shared by every table of one tenant. */
export function tenantTablePrefix(tenantId: string): string {
  if (!isUuid(tenantId)) throw new RangeError(`tenant id is not a uuid: ${tenantId}`);
  return `${PREFIX}${tenantId.replaceAll("-", "").toLowerCase()}_`;
}

export function vectorTableName(tenantId: string, space: string): string {
  if (space.length === 0) throw new RangeError("embedding space must not be empty");
  return tenantTablePrefix(tenantId) + Buffer.from(space, "utf8").toString("base64url");
}

export interface ParsedTableName {
  readonly tenantId: string;
  readonly space: string;
}

/** Undefined for tables that are not chunk-vector tables. */
export function parseVectorTableName(name: string): ParsedTableName | undefined {
  const match = /^v1_([0-9a-f]{32})_([A-Za-z0-9_-]+)$/.exec(name);
  if (!match?.[1] || !match[2]) return undefined;
  const hex = match[1];
  const tenantId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { tenantId, space: Buffer.from(match[2], "base64url").toString("utf8") };
}
