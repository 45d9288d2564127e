-- Recall filters (issue 22, ADR 0220): the filter is resolved against the tenant's current memories
-- before the channels run ("which memories may be recalled?", LIMIT-bounded), so each condition gets
-- an index the planner can combine (bitmap AND) with the tenant. Partial on current, not failed
-- versions like the hot path of recall, with the id included so the listing is an index-only scan
-- (at 100k memories, 2,000 heap visits cost ≈ 45 ms under load); point-in-time recall filters the
-- versions valid at as_of without them.

-- memory_types (and created_after/before within a type).
CREATE INDEX memories_filter_type_created_idx ON memories (tenant_id, memory_type, created_at)
  INCLUDE (id) WHERE valid_to IS NULL AND status <> 'failed';
-- kinds (and created_after/before within a kind); created_after/before alone use
-- memories_tenant_created_idx.
CREATE INDEX memories_filter_kind_created_idx ON memories (tenant_id, kind, created_at)
  INCLUDE (id) WHERE valid_to IS NULL AND status <> 'failed';
-- tags, any (&&) or all (@>). GIN holds no tenant column (btree_gin is not in every PostgreSQL we run
-- on); tenant_id is rechecked from the bitmap heap scan or combined with another index.
CREATE INDEX memories_filter_tags_idx ON memories USING gin (tags) WHERE valid_to IS NULL AND status <> 'failed';
-- origin: a prefix of source, as a byte-order range (text_pattern_ops ~>=~ / ~<~).
CREATE INDEX memories_filter_source_idx ON memories (tenant_id, source text_pattern_ops)
  INCLUDE (id) WHERE valid_to IS NULL AND status <> 'failed' AND source IS NOT NULL;
