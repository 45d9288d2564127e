-- Okapi BM25 over chunks (docs/recall.md "BM25"). The chunks' german tsvector stays the source of
-- truth; triggers on chunks keep three derived structures in step with every insert, supersede
-- (valid_to set) and delete, so no writer has to call anything:
--
--   bm25_postings     one row per (current chunk, lexeme) with tf, document length and an impact key,
--                     indexed in impact order per term: recall reads each term's best postings first
--                     and stops early (threshold algorithm, core/recall/bm25/), instead of scoring
--                     every chunk that contains a query term.
--   bm25_stats_delta  append-only changes of document frequency (per term) and of chunk count and
--                     total length (term ''). Writers only ever INSERT here, so concurrent ingests of
--                     one tenant never wait on each other's counters and cannot deadlock on them.
--   bm25_term_stats / bm25_collection
--                     the compacted sums. Readers add the pending deltas; a compaction folds them in
--                     under a per-tenant advisory lock (one compactor at a time, never waited for).
--
-- Only current chunks (valid_to unset) are in the index and the statistics: recall without as_of is
-- the hot path. Point-in-time recall scores the chunks valid at as_of straight from their tsvectors.

CREATE TABLE bm25_postings (
  tenant_id uuid NOT NULL,
  term text COLLATE "C" NOT NULL,
  chunk_id uuid NOT NULL,
  -- Occurrences of the lexeme in the chunk (tsvector positions; PostgreSQL keeps at most 256).
  tf smallint NOT NULL,
  -- Lexeme occurrences in the whole chunk: BM25's document length.
  doc_len integer NOT NULL,
  -- BM25's term-frequency part, (k1 + 1) tf / (tf + k1 (1 - b + b doc_len / key_avgdl)), computed with
  -- the tenant's key_avgdl. Orders the postings; recall scores with the current average length and
  -- corrects its bounds for the difference (core/recall/bm25/impact-bound.ts).
  impact real NOT NULL,
  -- By chunk within a term: exact tf lookups of candidates, and removal.
  PRIMARY KEY (tenant_id, term, chunk_id) INCLUDE (tf, doc_len)
);
-- By impact within a term: the best postings of a list first, for early termination.
CREATE INDEX bm25_postings_impact_idx ON bm25_postings (tenant_id, term, impact DESC, chunk_id)
  INCLUDE (tf, doc_len);

CREATE TABLE bm25_term_stats (
  tenant_id uuid NOT NULL,
  term text COLLATE "C" NOT NULL,
  df integer NOT NULL,
  -- The largest impact a posting of the term ever had (removals leave it): MaxScore's term bound.
  max_impact real NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, term)
);

CREATE TABLE bm25_collection (
  tenant_id uuid PRIMARY KEY,
  chunk_count bigint NOT NULL DEFAULT 0,
  total_len bigint NOT NULL DEFAULT 0,
  -- The average length the impact keys were computed with; bm25_rekey() moves it to the current one.
  key_avgdl real NOT NULL CHECK (key_avgdl > 0),
  rekeyed_at timestamptz
);

CREATE TABLE bm25_stats_delta (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL,
  -- '' carries the collection figures: df_delta = change of chunk count, len_delta = of total length.
  term text COLLATE "C" NOT NULL,
  df_delta integer NOT NULL,
  len_delta bigint NOT NULL DEFAULT 0,
  max_impact real NOT NULL DEFAULT 0
);
CREATE INDEX bm25_stats_delta_term_idx ON bm25_stats_delta (tenant_id, term);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['bm25_postings', 'bm25_term_stats', 'bm25_collection', 'bm25_stats_delta']
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)',
      t);
  END LOOP;
END
$$;

-- BM25 parameters (issue #6: k1 = 1.2, b = 0.75); core/recall/bm25/bm25-parameters.ts must agree.
CREATE FUNCTION bm25_impact(tf integer, doc_len integer, avgdl double precision) RETURNS real
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (2.2 * tf / (tf + 1.2 * (0.25 + 0.75 * doc_len / avgdl)))::real;

-- The same in double precision, for scoring inside SQL (search-bm25.ts).
CREATE FUNCTION bm25_tf_part(tf integer, doc_len integer, avgdl double precision) RETURNS double precision
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN 2.2 * tf / (tf + 1.2 * (0.25 + 0.75 * doc_len / avgdl));

-- One advisory lock per tenant guards the impact keys: writers of postings hold it shared, bm25_rekey
-- exclusively, so every posting of a tenant is keyed with the same key_avgdl at any commit.
CREATE FUNCTION bm25_key_lock(p_tenant uuid) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN hashtextextended('bm25-key:' || p_tenant::text, 0);

CREATE FUNCTION bm25_compact_lock(p_tenant uuid) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN hashtextextended('bm25-compact:' || p_tenant::text, 0);

-- The chunks a statement added to or removed from the current set.
CREATE TYPE bm25_chunk AS (id uuid, tenant_id uuid, tsv tsvector);

-- Folds the pending deltas of a tenant into the compacted tables. Skips (returns false) when another
-- session is compacting the same tenant: nobody ever waits here. Deltas are deleted and summed in one
-- statement and applied in term order.
CREATE FUNCTION bm25_compact(p_tenant uuid) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(bm25_compact_lock(p_tenant)) THEN
    RETURN false;
  END IF;
  WITH moved AS (
    DELETE FROM bm25_stats_delta WHERE tenant_id = p_tenant RETURNING term, df_delta, len_delta, max_impact
  ), summed AS (
    SELECT term, sum(df_delta)::bigint AS df, sum(len_delta)::bigint AS len, max(max_impact) AS max_impact
    FROM moved GROUP BY term
  ), collection AS (
    UPDATE bm25_collection c SET chunk_count = c.chunk_count + s.df, total_len = c.total_len + s.len
    FROM summed s WHERE s.term = '' AND c.tenant_id = p_tenant
  )
  INSERT INTO bm25_term_stats AS ts (tenant_id, term, df, max_impact)
  SELECT p_tenant, term, df, max_impact FROM summed WHERE term <> '' ORDER BY term
  ON CONFLICT (tenant_id, term) DO UPDATE
    SET df = ts.df + excluded.df, max_impact = greatest(ts.max_impact, excluded.max_impact);
  DELETE FROM bm25_term_stats WHERE tenant_id = p_tenant AND df <= 0;
  RETURN true;
END
$$;

-- The tenant's key_avgdl, creating its collection row on first use (keyed with this batch's average).
CREATE FUNCTION bm25_tenant_key(p_tenant uuid, p_first_avgdl double precision) RETURNS double precision
  LANGUAGE plpgsql AS $$
DECLARE
  k double precision;
BEGIN
  SELECT key_avgdl INTO k FROM bm25_collection WHERE tenant_id = p_tenant;
  IF k IS NULL THEN
    INSERT INTO bm25_collection (tenant_id, key_avgdl) VALUES (p_tenant, greatest(p_first_avgdl, 1))
    ON CONFLICT (tenant_id) DO NOTHING;
    SELECT key_avgdl INTO k FROM bm25_collection WHERE tenant_id = p_tenant;
  END IF;
  RETURN k;
END
$$;

-- One lexeme of one chunk, with the chunk's length.
CREATE TYPE bm25_lexeme AS (chunk_id uuid, term text, tf integer, doc_len integer);

-- Adds (p_sign = 1) or removes (p_sign = -1) chunks from the index and the statistics.
CREATE FUNCTION bm25_apply(p_chunks bm25_chunk[], p_sign integer) RETURNS void
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
    IF random() < 1.0 / 16 THEN
      PERFORM bm25_compact(t);
    END IF;
  END LOOP;
END
$$;

CREATE FUNCTION bm25_chunks_inserted() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  added bm25_chunk[];
BEGIN
  SELECT array_agg(ROW(n.id, n.tenant_id, n.tsv)::bm25_chunk) INTO added
  FROM inserted n WHERE n.valid_to IS NULL;
  IF added IS NOT NULL THEN
    PERFORM bm25_apply(added, 1);
  END IF;
  RETURN NULL;
END
$$;

-- An update matters when it changes whether a chunk is current (supersede: valid_to set) or what it
-- indexes (tsv). Other updates (vector_stored after the LanceDB write) pass through untouched.
CREATE FUNCTION bm25_chunks_updated() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  removed bm25_chunk[];
  added bm25_chunk[];
BEGIN
  SELECT array_agg(ROW(o.id, o.tenant_id, o.tsv)::bm25_chunk) INTO removed
  FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE o.valid_to IS NULL AND (n.valid_to IS NOT NULL OR n.tsv <> o.tsv OR n.tenant_id <> o.tenant_id);
  SELECT array_agg(ROW(n.id, n.tenant_id, n.tsv)::bm25_chunk) INTO added
  FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE n.valid_to IS NULL AND (o.valid_to IS NOT NULL OR n.tsv <> o.tsv OR n.tenant_id <> o.tenant_id);
  IF removed IS NOT NULL THEN
    PERFORM bm25_apply(removed, -1);
  END IF;
  IF added IS NOT NULL THEN
    PERFORM bm25_apply(added, 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION bm25_chunks_deleted() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  removed bm25_chunk[];
BEGIN
  SELECT array_agg(ROW(o.id, o.tenant_id, o.tsv)::bm25_chunk) INTO removed
  FROM old_rows o WHERE o.valid_to IS NULL;
  IF removed IS NOT NULL THEN
    PERFORM bm25_apply(removed, -1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER bm25_chunks_inserted AFTER INSERT ON chunks
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunks_inserted();
CREATE TRIGGER bm25_chunks_updated AFTER UPDATE ON chunks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunks_updated();
CREATE TRIGGER bm25_chunks_deleted AFTER DELETE ON chunks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunks_deleted();

-- Re-keys a tenant's postings with its current average chunk length, so impact order and bounds stay
-- tight as the corpus changes. Takes the key lock exclusively: waits for running writers of the
-- tenant and holds new ones back while it runs. Recall calls it in the background when the average
-- has drifted far from key_avgdl (core/recall/bm25/maintain-bm25-index.ts); rarely needed, since the
-- average of a growing corpus moves ever more slowly.
CREATE FUNCTION bm25_rekey(p_tenant uuid, p_min_drift double precision DEFAULT 1.5) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  total bigint;
  current_key double precision;
  avgdl double precision;
BEGIN
  PERFORM pg_advisory_xact_lock(bm25_key_lock(p_tenant));
  PERFORM bm25_compact(p_tenant);
  SELECT c.chunk_count + coalesce(sum(d.df_delta), 0), c.total_len + coalesce(sum(d.len_delta), 0), c.key_avgdl
    INTO n, total, current_key
  FROM bm25_collection c LEFT JOIN bm25_stats_delta d ON d.tenant_id = c.tenant_id AND d.term = ''
  WHERE c.tenant_id = p_tenant
  GROUP BY c.chunk_count, c.total_len, c.key_avgdl;
  IF n IS NULL OR n <= 0 THEN
    RETURN false;
  END IF;
  -- Rounded to real as stored, so the impacts and key_avgdl agree exactly.
  avgdl := greatest(total::double precision / n, 1)::real;
  IF greatest(avgdl / current_key, current_key / avgdl) < p_min_drift THEN
    RETURN false;
  END IF;
  UPDATE bm25_postings SET impact = bm25_impact(tf, doc_len, avgdl) WHERE tenant_id = p_tenant;
  UPDATE bm25_term_stats s SET max_impact = m.max_impact
  FROM (SELECT term, max(impact) AS max_impact FROM bm25_postings WHERE tenant_id = p_tenant GROUP BY term) m
  WHERE s.tenant_id = p_tenant AND s.term = m.term;
  UPDATE bm25_collection SET key_avgdl = avgdl, rekeyed_at = now() WHERE tenant_id = p_tenant;
  RETURN true;
END
$$;

-- Backfill: chunks written before this migration.
DO $$
DECLARE
  t uuid;
  batch bm25_chunk[];
BEGIN
  FOR t IN SELECT DISTINCT tenant_id FROM chunks WHERE valid_to IS NULL LOOP
    SELECT array_agg(ROW(c.id, c.tenant_id, c.tsv)::bm25_chunk) INTO batch
    FROM chunks c WHERE c.tenant_id = t AND c.valid_to IS NULL;
    PERFORM bm25_apply(batch, 1);
    PERFORM bm25_compact(t);
  END LOOP;
END
$$;
