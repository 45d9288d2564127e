-- BM25 statistics (docs/recall.md "BM25"): a statement that writes many chunks at once (bulk import,
-- a large document) compacts the tenant's pending deltas right away. With only the one-in-sixteen
-- chance, a bulk load of 100k chunks left tens of thousands of delta rows for every reader to add up
-- until later writes happened to compact them.

CREATE OR REPLACE FUNCTION bm25_apply(p_chunks bm25_chunk[], p_sign integer) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  t uuid;
  k double precision;
  lexemes bm25_lexeme[];
BEGIN
  FOR t IN SELECT DISTINCT c.tenant_id FROM unnest(p_chunks) c ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock_shared(bm25_key_lock(t));
    SELECT array_agg(ROW(w.id, w.lexeme, w.tf, w.doc_len)::bm25_lexeme) INTO lexemes
    FROM (
      SELECT l.id, l.lexeme, l.tf, (sum(l.tf) OVER (PARTITION BY l.id))::integer AS doc_len
      FROM (
        SELECT c.id, u.lexeme, least(coalesce(cardinality(u.positions), 1), 32767) AS tf
        FROM unnest(p_chunks) c CROSS JOIN LATERAL unnest(c.tsv) u
        WHERE c.tenant_id = t
      ) l
    ) w;
    IF p_sign > 0 AND lexemes IS NOT NULL THEN
      SELECT bm25_tenant_key(t, avg(d.doc_len)) INTO k
      FROM (SELECT DISTINCT l.chunk_id, l.doc_len FROM unnest(lexemes) l) d;
      INSERT INTO bm25_postings (tenant_id, term, chunk_id, tf, doc_len, impact)
      SELECT t, l.term, l.chunk_id, l.tf, l.doc_len, bm25_impact(l.tf, l.doc_len, k) FROM unnest(lexemes) l;
    ELSIF lexemes IS NOT NULL THEN
      DELETE FROM bm25_postings p USING unnest(lexemes) l
      WHERE p.tenant_id = t AND p.term = l.term AND p.chunk_id = l.chunk_id;
    END IF;
    INSERT INTO bm25_stats_delta (tenant_id, term, df_delta, max_impact)
    SELECT t, l.term, p_sign * count(*),
           CASE WHEN p_sign > 0 THEN max(bm25_impact(l.tf, l.doc_len, k)) ELSE 0 END
    FROM unnest(lexemes) l GROUP BY l.term;
    -- Chunks without lexemes still count towards N (and add 0 to the total length).
    INSERT INTO bm25_stats_delta (tenant_id, term, df_delta, len_delta)
    SELECT t, '', p_sign * count(*),
           p_sign * coalesce((SELECT sum(l.tf) FROM unnest(lexemes) l), 0)
    FROM unnest(p_chunks) c WHERE c.tenant_id = t;
    -- Compacting now and then keeps the pending deltas short for readers; the try-lock makes it free
    -- of waits, and only one session per tenant ever holds locks on the compacted rows.
    IF random() < 1.0 / 16 OR (SELECT count(*) FROM unnest(p_chunks) c WHERE c.tenant_id = t) >= 64 THEN
      PERFORM bm25_compact(t);
    END IF;
  END LOOP;
END
$$;
