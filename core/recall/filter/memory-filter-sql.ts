import type postgres from "postgres";
import type { Sql, TransactionSql } from "../../store/database.js";
import type { RecallFilter } from "./recall-filter.js";

export type SqlFragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * The smallest string above every string that starts with `prefix` in byte order (UTF-8 byte order
 * is code point order): the prefix with its last code point incremented. Undefined when there is
 * none (last code point U+10FFFF); surrogates are skipped.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = [...prefix];
  const last = points.pop();
  if (last === undefined) return undefined;
  let next = (last.codePointAt(0) ?? 0) + 1;
  if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
  if (next > 0x10ffff) return undefined;
  return points.join("") + String.fromCodePoint(next);
}

/**
 * The filter as a condition on the memories row aliased `m` (AND of the conditions that are set).
 * origin is a byte-order range the text_pattern_ops index serves (migration 0220), with starts_with
 * as the exact test.
 */
export function memoryFilterSql(tx: Sql | TransactionSql, filter: RecallFilter): SqlFragment {
  const parts: SqlFragment[] = [];
  if (filter.memoryTypes) parts.push(tx`m.memory_type = any(${tx.array([...filter.memoryTypes])}::text[])`);
  if (filter.kinds) parts.push(tx`m.kind = any(${tx.array([...filter.kinds])}::text[])`);
  if (filter.tags) {
    const tags = tx.array([...filter.tags.values]);
    parts.push(filter.tags.match === "all" ? tx`m.tags @> ${tags}::text[]` : tx`m.tags && ${tags}::text[]`);
  }
  if (filter.origin !== undefined) {
    const upper = prefixUpperBound(filter.origin);
    parts.push(tx`m.source ~>=~ ${filter.origin}::text and starts_with(m.source, ${filter.origin}::text)`);
    if (upper !== undefined) parts.push(tx`m.source ~<~ ${upper}::text`);
  }
  if (filter.createdAfter) parts.push(tx`m.created_at >= ${filter.createdAfter}`);
  if (filter.createdBefore) parts.push(tx`m.created_at < ${filter.createdBefore}`);
  return parts.reduce<SqlFragment>((all, part) => tx`${all} and ${part}`, tx`true`);
}
