import type { Logger } from "../../config/logger.js";
import type { Database } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";
import { carryOverEdges } from "./carry-over-edges.js";
import { closeVersions } from "./close-versions.js";
import { lockTitle } from "./find-identical-memory.js";
import { lockTenantGraph } from "./graph-lock.js";

export interface ReplaceDeps {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly logger: Logger;
}

/**
 * Upsert-by-title (spec behaviour rule 3): once the new document is indexed, the current documents
 * with the same title written before it are replaced. "Deleted" is implemented as closing their valid
 * time at the new version's valid_from — they leave every current read (recall, list_recent, quota)
 * but stay in the bi-temporal history (recall_at_time before the upload still finds them). The new
 * version joins the lineage of the newest replaced one (merging the lineages of all replaced ones), so
 * a document's versions form one lineage as with update_fact. Idempotent: a version already replaced by a newer upload, or not indexed, replaces
 * nothing. Returns the replaced ids (spec: replaced_document_ids).
 */
export async function replaceDocumentsByTitle(
  deps: ReplaceDeps,
  tenantId: string,
  memoryId: string,
): Promise<string[]> {
  const result = await deps.db.withTenant(tenantId, async (tx) => {
    const [titled] = await tx<{ title: string }[]>`
      select title from memories where tenant_id = ${tenantId} and id = ${memoryId} and kind = 'document'`;
    if (!titled) return undefined;
    await lockTitle(tx, tenantId, "document", titled.title);
    const [doc] = await tx<
      { valid_from: Date; recorded_at: Date; status: string; valid_to: Date | null; lineage_id: string }[]
    >`
      select valid_from, recorded_at, status, valid_to, lineage_id from memories
      where tenant_id = ${tenantId} and id = ${memoryId}`;
    if (!doc || doc.valid_to !== null || doc.status !== "indexed") return undefined;
    const older = await tx<{ id: string; lineage_id: string }[]>`
      select id, lineage_id from memories
      where tenant_id = ${tenantId} and kind = 'document' and title = ${titled.title} and valid_to is null
        and id <> ${memoryId} and recorded_at < ${doc.recorded_at}
      order by recorded_at desc`;
    if (older.length === 0) return undefined;
    // docs/graph.md: code that closes versions holds the graph lock exclusively, so no link lands on a
    // version being closed; the replaced document's relations move to the new version as with
    // update_fact (the old version keeps them as history).
    await lockTenantGraph(tx, tenantId, "exclusive");
    const closed = await closeVersions(
      tx,
      tenantId,
      older.map((o) => o.id),
      doc.valid_from,
    );
    // From the newest replaced version only: several current versions of one title exist only after
    // concurrent uploads, and copying each one's relations could add the same edge twice.
    const newest = older[0];
    if (newest && closed.includes(newest.id)) {
      await carryOverEdges(tx, { tenantId, oldId: newest.id, newId: memoryId, at: doc.valid_from });
    }
    // One lineage for the document: the new version and every replaced one (with their earlier
    // versions) take the lineage of the newest replaced version. Safe for the one-current-version-per-
    // lineage index: the versions replaced here were the only current ones of their lineages.
    if (newest) {
      const lineages = [...new Set([doc.lineage_id, ...older.map((o) => o.lineage_id)])];
      await tx`update memories set lineage_id = ${newest.lineage_id}
               where tenant_id = ${tenantId} and lineage_id = any(${tx.array(lineages)}::uuid[])
                 and lineage_id <> ${newest.lineage_id}`;
    }
    return { closed, validTo: doc.valid_from };
  });
  if (!result) return [];
  await deps.vectors.setValidTo(tenantId, result.closed, result.validTo).catch((error: unknown) => {
    // PostgreSQL is the truth; the reconcile job brings LanceDB's validity in line.
    deps.logger.warn({ err: error, tenantId, memoryId }, "could not close replaced vectors; reconcile will");
  });
  return result.closed;
}
