-- Knowledge graph (issue 7): point-in-time traversal reads a node's edges valid at as_of newest first
-- (order by valid_from desc, id, as for the current graph). Without id in the key the index could not
-- deliver that order, so each visit sorted all of a node's edges — thousands for a hub — before the
-- fan-out LIMIT. Replaces 0040's edges_from_valid_idx.
DROP INDEX edges_from_valid_idx;
CREATE INDEX edges_from_valid_idx ON edges (tenant_id, from_id, valid_from DESC, id)
  INCLUDE (to_id, rel_type, valid_to);
