-- BM25 postings leave PostgreSQL (ADR 0230 "Consequences", issue 23). Recall reads BM25 from the
-- derived in-process index (migration 0230's change feed); the SQL design that read bm25_postings in
-- impact order is replaced by scoring the chunks' tsvectors found through the GIN index, the way
-- point-in-time recall always did (core/recall/bm25/search-bm25.ts). What the postings cost: one row
-- per (chunk, lexeme) with two B-tree indexes, ≈ 21× the chunk text on disk, and about a third of a
-- one-chunk write's PostgreSQL time; for a large document most of its insert time.
--
-- Kept: the document frequencies and collection figures (bm25_term_stats, bm25_collection and the
-- append-only bm25_stats_delta, maintained by the same statement triggers), which give every recall
-- its term weights, and the vocabulary compound expansion looks words up in. Gone with the postings:
-- the impact keys (key_avgdl, max_impact) and the re-key that kept them near the average length.

DROP FUNCTION bm25_rekey(uuid, double precision);
DROP TABLE bm25_postings;

-- Pending deltas move into the compacted tables before their max_impact column goes.
DO $$
DECLARE
  t uuid;
BEGIN
  FOR t IN SELECT DISTINCT tenant_id FROM bm25_stats_delta LOOP
    PERFORM bm25_compact(t);
  END LOOP;
END
$$;

ALTER TABLE bm25_stats_delta DROP COLUMN max_impact;
ALTER TABLE bm25_term_stats DROP COLUMN max_impact;
ALTER TABLE bm25_collection DROP COLUMN key_avgdl, DROP COLUMN rekeyed_at;

-- Folds the pending deltas of a tenant into the compacted tables (as before, without max_impact);
-- creates the tenant's collection row on first use. Skips when another session is compacting.
CREATE OR REPLACE FUNCTION bm25_compact(p_tenant uuid) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(bm25_compact_lock(p_tenant)) THEN
    RETURN false;
  END IF;
  WITH moved AS (
    DELETE FROM bm25_stats_delta WHERE tenant_id = p_tenant RETURNING term, df_delta, len_delta
  ), summed AS (
    SELECT term, sum(df_delta)::bigint AS df, sum(len_delta)::bigint AS len FROM moved GROUP BY term
  ), collection AS (
    INSERT INTO bm25_collection AS c (tenant_id, chunk_count, total_len)
    SELECT p_tenant, s.df, s.len FROM summed s WHERE s.term = ''
    ON CONFLICT (tenant_id) DO UPDATE
      SET chunk_count = c.chunk_count + excluded.chunk_count, total_len = c.total_len + excluded.total_len
  )
  INSERT INTO bm25_term_stats AS ts (tenant_id, term, df)
  SELECT p_tenant, term, df FROM summed WHERE term <> '' ORDER BY term
  ON CONFLICT (tenant_id, term) DO UPDATE SET df = ts.df + excluded.df;
  DELETE FROM bm25_term_stats WHERE tenant_id = p_tenant AND df <= 0;
  RETURN true;
END
$$;

-- Adds (p_sign = 1) or removes (p_sign = -1) chunks from the statistics: one delta row per distinct
-- lexeme of the statement's chunks, and one ('') with the change of chunk count and total length.
-- Document length and term frequency as migration 0030 defined them (the index agrees).
CREATE OR REPLACE FUNCTION bm25_apply(p_chunks bm25_chunk[], p_sign integer) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  t uuid;
  n integer;
BEGIN
  FOR t IN SELECT DISTINCT c.tenant_id FROM unnest(p_chunks) c ORDER BY 1 LOOP
    SELECT count(*) INTO n FROM unnest(p_chunks) c WHERE c.tenant_id = t;
    WITH lexemes AS (
      SELECT u.lexeme, least(coalesce(cardinality(u.positions), 1), 32767) AS tf
      FROM unnest(p_chunks) c CROSS JOIN LATERAL unnest(c.tsv) u
      WHERE c.tenant_id = t
    ), per_term AS (
      INSERT INTO bm25_stats_delta (tenant_id, term, df_delta)
      SELECT t, l.lexeme, p_sign * count(*) FROM lexemes l GROUP BY l.lexeme
    )
    -- Chunks without lexemes still count towards N (and add 0 to the total length).
    INSERT INTO bm25_stats_delta (tenant_id, term, df_delta, len_delta)
    SELECT t, '', p_sign * n, p_sign * coalesce((SELECT sum(l.tf) FROM lexemes l), 0);
    -- Compacting now and then keeps the pending deltas short for readers; the try-lock makes it free
    -- of waits. A statement of many chunks (bulk import, a large document) compacts at once.
    IF random() < 1.0 / 16 OR n >= 64 THEN
      PERFORM bm25_compact(t);
    END IF;
  END LOOP;
END
$$;

DROP FUNCTION bm25_tenant_key(uuid, double precision);
DROP FUNCTION bm25_impact(integer, integer, double precision);
DROP FUNCTION bm25_key_lock(uuid);
DROP TYPE bm25_lexeme;
