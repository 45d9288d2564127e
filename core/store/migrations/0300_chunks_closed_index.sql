-- Point-in-time recall (`as_of`) reads the current chunks from the in-process BM25 index and only the
-- chunks closed since (valid_to set) from PostgreSQL (issue 23): this index finds a tenant's closed
-- chunks by valid_to without reading its current ones. Current chunks (valid_to unset) are not in it,
-- so a chunk insert does not maintain it; closing a version adds its chunks.
CREATE INDEX IF NOT EXISTS chunks_closed_idx ON chunks (tenant_id, valid_to) WHERE valid_to IS NOT NULL;
