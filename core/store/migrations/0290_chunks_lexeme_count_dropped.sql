-- chunks.lexeme_count goes (issue 23, bulk ingest). Nothing reads it since the BM25 statistics and
-- the in-process index take a chunk's length from its tsvector's positions (migrations 0030, 0250).
-- Every chunk insert still computed it with a subquery over the unnested tsvector: ≈ 55 of 280 ms of
-- PostgreSQL time for a shared write of 385 one-chunk memories (EXPLAIN ANALYZE, 2026-12-02), on
-- the one path a tenant's bulk load runs through. Dropping a column rewrites nothing.
ALTER TABLE chunks DROP COLUMN IF EXISTS lexeme_count;
