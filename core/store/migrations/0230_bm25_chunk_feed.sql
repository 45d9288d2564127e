-- The transactional change feed of ADR 0230: recall serves BM25 from a derived in-process index per
-- tenant (core/recall/bm25/tenant-bm25-index.ts) and keeps it current from this feed. Statement
-- triggers on chunks append the ids of the chunks a statement added to or removed from the current
-- set (the same conditions as migration 0030's postings triggers), with the writing transaction's id.
-- A reader applies, inside its own REPEATABLE READ snapshot, exactly the feed rows that snapshot sees
-- (core/recall/bm25/read-chunk-feed.ts): transaction ids let it tell which committed transactions it
-- has applied, so a transaction that commits late — after later ones — is never skipped.
--
-- The feed holds chunk ids only, never content: the reader re-reads each listed chunk's tsvector in
-- its snapshot. Insert-only for writers (no counters, no waits between concurrent ingests); only an
-- erasure rewrites earlier rows, to take the erased ids out.

CREATE TABLE bm25_chunk_feed (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL,
  -- pg_current_xact_id() of the writer (xid8 as bigint, so plain comparisons and min/max work).
  xid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
  chunk_ids uuid[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bm25_chunk_feed_tenant_xid_idx ON bm25_chunk_feed (tenant_id, xid);

-- Per tenant: feed rows of transactions below this id may have been pruned. A reader whose watermark
-- is below it rebuilds its index from the chunks instead of reading the feed.
CREATE TABLE bm25_chunk_feed_horizon (
  tenant_id uuid PRIMARY KEY,
  pruned_below bigint NOT NULL
);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['bm25_chunk_feed', 'bm25_chunk_feed_horizon']
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)',
      t);
  END LOOP;
END
$$;

-- Removes a tenant's feed rows older than p_keep whose transactions have all finished, and records
-- the horizon. Writers call it now and then (below); readers never wait on it.
CREATE FUNCTION bm25_chunk_feed_prune(p_tenant uuid, p_keep interval) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  finished bigint := pg_snapshot_xmin(pg_current_snapshot())::text::bigint;
  below bigint;
BEGIN
  WITH gone AS (
    DELETE FROM bm25_chunk_feed
    WHERE tenant_id = p_tenant AND xid < finished AND created_at < now() - p_keep
    RETURNING xid
  )
  SELECT max(xid) + 1 INTO below FROM gone;
  IF below IS NOT NULL THEN
    INSERT INTO bm25_chunk_feed_horizon AS h (tenant_id, pruned_below) VALUES (p_tenant, below)
    ON CONFLICT (tenant_id) DO UPDATE SET pruned_below = greatest(h.pruned_below, excluded.pruned_below);
  END IF;
END
$$;

-- Appends one feed row per tenant of the changed chunks; now and then prunes that tenant's old rows.
CREATE FUNCTION bm25_chunk_feed_append(p_changes uuid[], p_tenants uuid[]) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  t uuid;
BEGIN
  INSERT INTO bm25_chunk_feed (tenant_id, chunk_ids)
  SELECT c.tenant_id, array_agg(DISTINCT c.id)
  FROM unnest(p_changes, p_tenants) c(id, tenant_id)
  GROUP BY c.tenant_id;
  IF random() < 1.0 / 64 THEN
    FOR t IN SELECT DISTINCT u FROM unnest(p_tenants) u LOOP
      PERFORM bm25_chunk_feed_prune(t, interval '1 hour');
    END LOOP;
  END IF;
END
$$;

CREATE FUNCTION bm25_chunk_feed_inserted() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  tenants uuid[];
BEGIN
  SELECT array_agg(n.id), array_agg(n.tenant_id) INTO ids, tenants FROM inserted n WHERE n.valid_to IS NULL;
  IF ids IS NOT NULL THEN
    PERFORM bm25_chunk_feed_append(ids, tenants);
  END IF;
  RETURN NULL;
END
$$;

-- As bm25_chunks_updated: only changes of currentness, tsv or tenant matter (not vector_stored).
CREATE FUNCTION bm25_chunk_feed_updated() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  tenants uuid[];
BEGIN
  SELECT array_agg(c.id), array_agg(c.tenant_id) INTO ids, tenants
  FROM (
    SELECT o.id, o.tenant_id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.valid_to IS NULL) <> (n.valid_to IS NULL)
       OR (n.valid_to IS NULL AND (n.tsv <> o.tsv OR n.tenant_id <> o.tenant_id))
    UNION
    SELECT n.id, n.tenant_id FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE n.tenant_id <> o.tenant_id AND n.valid_to IS NULL
  ) c;
  IF ids IS NOT NULL THEN
    PERFORM bm25_chunk_feed_append(ids, tenants);
  END IF;
  RETURN NULL;
END
$$;

-- Deleted chunks are erased data (docs/erasure.md): their ids must not stay behind in the feed. The
-- trigger strips them from the tenant's earlier feed rows and appends an empty row instead — a
-- reader that sees it reconciles its index with the tenant's current chunk ids and drops the rest.
CREATE FUNCTION bm25_chunk_feed_deleted() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  t uuid;
  ids uuid[];
BEGIN
  FOR t, ids IN SELECT o.tenant_id, array_agg(o.id) FROM old_rows o GROUP BY o.tenant_id LOOP
    UPDATE bm25_chunk_feed f
    SET chunk_ids = coalesce(ARRAY(SELECT x FROM unnest(f.chunk_ids) x WHERE x <> ALL (ids)), '{}')
    WHERE f.tenant_id = t AND f.chunk_ids && ids;
    INSERT INTO bm25_chunk_feed (tenant_id, chunk_ids) VALUES (t, '{}');
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER bm25_chunk_feed_inserted AFTER INSERT ON chunks
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunk_feed_inserted();
CREATE TRIGGER bm25_chunk_feed_updated AFTER UPDATE ON chunks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunk_feed_updated();
CREATE TRIGGER bm25_chunk_feed_deleted AFTER DELETE ON chunks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bm25_chunk_feed_deleted();
