-- Erasing a lineage (DELETE /api/v1/memories/{id}) took ≈ 600 ms at 100k memories (bench:lifecycle),
-- most of it in foreign-key checks: deleting a memory row makes PostgreSQL look for edges still
-- naming it, `from_id = $1` and `to_id = $1` — and no index of edges leads with those columns (they
-- all lead with tenant_id), so each deleted version scanned the edges of every tenant of the
-- instance twice (41 + 45 ms for 10 versions over 40k edges), and the commit scanned them again
-- for each deleted edge's `inverse_of` (the deferred self-reference).
--
-- The edge ends now reference (tenant_id, id): the check becomes `tenant_id = $1 AND from_id = $2`,
-- which the existing (tenant_id, from_id, …) and (tenant_id, to_id) indexes answer, and the database
-- itself refuses an edge between memories of different tenants. inverse_of gets its own index.
CREATE UNIQUE INDEX memories_tenant_id_key ON memories (tenant_id, id);

ALTER TABLE edges
  ADD CONSTRAINT edges_tenant_from_fkey FOREIGN KEY (tenant_id, from_id) REFERENCES memories (tenant_id, id),
  ADD CONSTRAINT edges_tenant_to_fkey FOREIGN KEY (tenant_id, to_id) REFERENCES memories (tenant_id, id);
ALTER TABLE edges DROP CONSTRAINT edges_from_id_fkey, DROP CONSTRAINT edges_to_id_fkey;

CREATE INDEX edges_inverse_of_idx ON edges (inverse_of) WHERE inverse_of IS NOT NULL;
