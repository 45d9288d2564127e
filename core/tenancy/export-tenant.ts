import type { Logger } from "../../config/logger.js";
import { createHeapGrowthBound } from "../../lib/heap-growth-bound.js";
import type { TenantCaller } from "../auth/caller.js";
import { notFound } from "../errors.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { withTenantSnapshot } from "../store/with-tenant-snapshot.js";
import { selectAuditEntries } from "./audit-entries.js";
import { readMemoriesInBatches } from "./read-memories-in-batches.js";
import { streamFromTransaction, type WriteText } from "./stream-from-transaction.js";
import {
  auditRecord,
  edgeRecord,
  memoryRecord,
  selectEdges,
  selectTenant,
  tenantRecord,
} from "./tenant-export-records.js";

/** The bundle's `format`; a change to the shape gets a new version (docs/export.md). */
export const TENANT_EXPORT_FORMAT = "memory-service-export/v1";

/** Edge and audit rows are small: rows fetched per cursor round trip. */
const BATCH_ROWS = 500;

/**
 * Writes `"name":[` + one record per line + `]`, reading `batches` as they come; returns how many
 * records were written.
 */
async function writeArray<Row>(
  write: WriteText,
  name: string,
  batches: AsyncIterable<readonly Row[]>,
  toRecord: (row: Row) => unknown,
): Promise<number> {
  await write(`${JSON.stringify(name)}:[`);
  let count = 0;
  // Sent batches are garbage V8 would let grow the heap to 190 MB in a 100k export (ADR 0201).
  const boundHeap = createHeapGrowthBound();
  for await (const rows of batches) {
    for (const row of rows) {
      await write(`${count === 0 ? "" : ","}\n${JSON.stringify(toRecord(row))}`);
      count++;
    }
    boundHeap();
  }
  await write(count === 0 ? "]" : "\n]");
  return count;
}

/**
 * GET /api/tenant/export (GDPR, every plan): one JSON document with the workspace, every version of
 * every memory, every edge (current and closed) and the audit entries within the plan's retention
 * (docs/export.md). Streamed from one REPEATABLE READ snapshot, so memories, edges and audit agree
 * with each other even while the workspace is being written to, and read in batches, so a large
 * workspace never sits in memory. The caller's tenant only: the tenant comes from the session,
 * every query filters by it, and Row-Level Security backs that up.
 */
export function exportTenant(
  deps: { db: Database; logger: Logger },
  caller: TenantCaller,
  input: { ip: string | undefined; signal: AbortSignal },
): AsyncGenerator<Uint8Array> {
  const { tenantId } = caller;
  const retentionDays = caller.limits.auditRetentionDays;
  return streamFromTransaction({
    method: "TenancyService/ExportTenant",
    logger: deps.logger,
    signal: input.signal,
    produce: async (write) => {
      // Committed before the snapshot is taken: an export is recorded even when the transfer breaks
      // off, and the bundle's audit section ends with this export's own entry.
      await deps.db.withTenant(tenantId, (tx) =>
        recordAudit(tx, {
          tenantId,
          actorUserId: caller.userId,
          actorTokenId: caller.tokenId,
          action: "tenant.exported",
          target: tenantId,
          ip: input.ip,
          details: { format: TENANT_EXPORT_FORMAT },
        }),
      );
      await withTenantSnapshot(deps.db, tenantId, async (tx) => {
        const [tenant] = await selectTenant(tx, tenantId, retentionDays);
        if (!tenant) throw notFound("workspace");
        const head = JSON.stringify({
          format: TENANT_EXPORT_FORMAT,
          exportedAt: tenant.exported_at.toISOString(),
          tenant: tenantRecord(tenant),
          auditRetentionDays: retentionDays,
          auditSince: tenant.audit_since.toISOString(),
        });
        // The head object without its closing brace; the arrays and counts follow as members.
        await write(`${head.slice(0, -1)},\n`);
        const memories = await writeArray(
          write,
          "memories",
          readMemoriesInBatches(tx, tenantId),
          memoryRecord,
        );
        await write(",\n");
        const edges = await writeArray(
          write,
          "edges",
          selectEdges(tx, tenantId).cursor(BATCH_ROWS),
          edgeRecord,
        );
        await write(",\n");
        const audit = await writeArray(
          write,
          "audit",
          selectAuditEntries(tx, tenantId, retentionDays).cursor(BATCH_ROWS),
          auditRecord,
        );
        // Last, so a reader can check it received everything the server sent.
        await write(`,\n"counts":${JSON.stringify({ memories, edges, audit })}}\n`);
      });
    },
  });
}
