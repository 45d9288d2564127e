import type { AuditEntryRow } from "./audit-entries.js";

/** Columns of the audit-log CSV (docs/export.md), in order. */
export const AUDIT_CSV_COLUMNS = ["id", "createdAt", "action", "actor", "target", "ip", "details"] as const;

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"): = + - @, and
 * tab / carriage return, which some spreadsheets skip before looking for them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Characters that need a quoted field (RFC 4180 section 2, rules 6 and 7). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field. Audit targets and details can carry text a user typed (a token name, a slug), and
 * the file is opened in spreadsheets: a cell that would start a formula gets a leading apostrophe,
 * which spreadsheets show as text. Then RFC 4180 quoting: fields with a quote, comma or line break
 * are enclosed in double quotes, with inner quotes doubled.
 */
export function csvField(value: string): string {
  const inert = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

/** One CSV record, CRLF-terminated (RFC 4180 section 2, rule 1). */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

/** "user:<uuid>", "token:<uuid>", both (space-separated), or empty for the CLI and the system. */
export function auditActor(row: Pick<AuditEntryRow, "actor_user_id" | "actor_token_id">): string {
  const actors: string[] = [];
  if (row.actor_user_id) actors.push(`user:${row.actor_user_id}`);
  if (row.actor_token_id) actors.push(`token:${row.actor_token_id}`);
  return actors.join(" ");
}

/** The fields of one audit entry, in AUDIT_CSV_COLUMNS order. */
export function auditCsvFields(row: AuditEntryRow): string[] {
  return [
    row.id,
    row.created_at.toISOString(),
    row.action,
    auditActor(row),
    row.target ?? "",
    row.ip ?? "",
    JSON.stringify(row.details),
  ];
}
