-- Knowledge graph (issue 7, docs/graph.md): edges get valid time of their own.
--
-- An edge is current while both of its memories are current. When update_fact closes a version, it
-- closes that version's edges (valid_to = the same instant) and writes copies on the new version, so
-- the old version keeps the relations it had (history is never deleted) and the current graph never
-- points at a superseded version. Lineage edges (SUPERSEDES / SUPERSEDED_BY) never close.
ALTER TABLE edges ADD COLUMN valid_from timestamptz NOT NULL DEFAULT now();
ALTER TABLE edges ADD COLUMN valid_to timestamptz;
UPDATE edges SET valid_from = created_at;
ALTER TABLE edges ADD CONSTRAINT edges_valid_range CHECK (valid_to IS NULL OR valid_to >= valid_from);

-- Traversal (expandNeighbours) walks outgoing rows only: every link stores both directions. These
-- cover "current edges of a node, newest first" as an index-only scan, so the fan-out cap's LIMIT
-- stops after a few entries even on a hub with 100k edges; the second serves point-in-time walks.
-- Both start with (tenant_id, from_id), which makes the old edges_from_idx redundant.
CREATE INDEX edges_current_from_idx ON edges (tenant_id, from_id, valid_from DESC, id)
  INCLUDE (to_id, rel_type) WHERE valid_to IS NULL;
CREATE INDEX edges_from_valid_idx ON edges (tenant_id, from_id, valid_from DESC)
  INCLUDE (to_id, rel_type, valid_to);
DROP INDEX edges_from_idx;

-- Resolving a version to the one of its lineage valid at an instant (point-in-time traversal, links
-- given a superseded id). memories_current_lineage_key covers only the current version.
CREATE INDEX memories_lineage_valid_idx ON memories (tenant_id, lineage_id, valid_from DESC);
