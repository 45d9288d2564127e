-- Ingest (issue 5, docs/ingest.md).

-- Set on documents written by upload_document / POST /api/documents: once the version is indexed it
-- replaces the current documents with the same title (spec behaviour rule 3, upsert-by-title). Kept on
-- the row so the worker and reconcile finish an interrupted replacement the same way.
ALTER TABLE memories ADD COLUMN upsert_by_title boolean NOT NULL DEFAULT false;

-- Quota check (spec "Quotas and sizes"): counting the current, not failed versions of a tenant is an
-- index-only scan, done under the tenant's quota lock on every quota-checked insert.
CREATE INDEX memories_quota_idx ON memories (tenant_id) WHERE valid_to IS NULL AND status <> 'failed';

-- Reconcile and the worker look for versions still queued (interrupted writes, lost jobs).
CREATE INDEX memories_queued_idx ON memories (tenant_id, updated_at) WHERE status = 'queued';
