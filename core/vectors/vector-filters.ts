import { isUuid } from "./vector-table-name.js";

/**
 * LanceDB filters are SQL strings. Ids come from PostgreSQL, but they are still checked to be uuids
 * so no caller can smuggle SQL into a predicate.
 */
export function requireUuids(ids: readonly string[]): void {
  for (const id of ids) if (!isUuid(id)) throw new RangeError(`not a uuid: ${id}`);
}

export function idListFilter(column: "memory_id" | "chunk_id", ids: readonly string[]): string {
  requireUuids(ids);
  return `${column} IN (${ids.map((id) => `'${id.toLowerCase()}'`).join(", ")})`;
}

/**
 * Spec "service_recall_at_time": valid_from <= as_of and (valid_to > as_of or valid_to unset).
 * Without as_of: the current versions (valid_to unset), as in PostgreSQL.
 */
export function validityFilter(asOf: Date | undefined): string {
  if (asOf === undefined) return "valid_to IS NULL";
  const ms = asOf.getTime();
  if (!Number.isFinite(ms)) throw new RangeError("asOf is not a valid date");
  return `valid_from <= ${ms} AND (valid_to IS NULL OR valid_to > ${ms})`;
}

/** Splits ids so a single IN list stays a reasonable size for the SQL parser. */
export function inBatches<T>(items: readonly T[], size = 500): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
