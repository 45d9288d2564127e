-- The GIN index on chunks.tsv goes (issue 23, bulk ingest). No query of the service can use it:
-- the service's role is subject to row-level security, and `@@` is not leakproof, so PostgreSQL
-- applies the tenant policy first and tests `tsv @@ query` on the tenant's rows instead of through
-- the index (EXPLAIN under memory_app: a scan of chunks_tenant_memory_idx with `@@` as a filter, even
-- with sequential scans disabled). Every chunk insert still paid for it: the pending-list insert of
-- each lexeme and the periodic merge of that list into the index.
DROP INDEX IF EXISTS chunks_tsv_idx;
