-- Knowledge graph (issue 7, docs/graph.md): closing a memory version closes its edges.
--
-- Invariant: a current edge (valid_to unset) joins two current versions, so graph traversal needs no
-- per-node version check. update_fact closes a version and then copies the closed edges onto the new
-- version; any other writer that closes versions (upsert-by-title replacing a document) gets the same
-- guarantee here without knowing about edges. Lineage edges (SUPERSEDES / SUPERSEDED_BY) record history
-- and never close. The edge closes at the version's valid_to, or at its own start if it began later.
CREATE FUNCTION close_edges_of_closed_version() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  UPDATE edges SET valid_to = greatest(NEW.valid_to, valid_from)
  WHERE tenant_id = NEW.tenant_id
    AND (from_id = NEW.id OR to_id = NEW.id)
    AND valid_to IS NULL
    AND rel_type NOT IN ('SUPERSEDES', 'SUPERSEDED_BY');
  RETURN NULL;
END
$$;

CREATE TRIGGER memories_close_edges
  AFTER UPDATE OF valid_to ON memories
  FOR EACH ROW
  WHEN (OLD.valid_to IS NULL AND NEW.valid_to IS NOT NULL)
  EXECUTE FUNCTION close_edges_of_closed_version();
