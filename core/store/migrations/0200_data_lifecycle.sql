-- Data lifecycle (issue 20, docs/erasure.md): erasure of a memory lineage or a whole workspace.

-- The one record a workspace erasure leaves: outside the tenant (no foreign key, no RLS, never
-- exported), without any of its content — which workspace, when, and who asked.
CREATE TABLE workspace_erasures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL,
  erased_at timestamptz NOT NULL DEFAULT now(),
  -- "user:<uuid>" for the owner's session, "operator" for the CLI.
  actor text NOT NULL,
  -- Row and table counts removed (numbers only).
  details jsonb NOT NULL DEFAULT '{}'
);
REVOKE ALL ON workspace_erasures FROM memory_app;

-- Removes the queued jobs (graphile-worker) of a tenant that concern the given memories, or every
-- job of the tenant when p_memory_ids is null. A job a worker holds right now is not touched: it finds
-- its memory gone and ends (index-memory skips a missing memory), and the vector purge removes what it
-- may leave behind. SECURITY DEFINER: tenant transactions (memory_app) cannot reach the queue's tables.
CREATE FUNCTION remove_tenant_jobs(p_tenant uuid, p_memory_ids uuid[]) RETURNS integer
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM graphile_worker._private_jobs j
  WHERE j.payload->>'tenantId' = p_tenant::text
    AND (j.locked_at IS NULL OR j.locked_at < now() - interval '4 hours')
    AND (p_memory_ids IS NULL OR j.payload->>'memoryId' = ANY (p_memory_ids::text[]));
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;
REVOKE ALL ON FUNCTION remove_tenant_jobs(uuid, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION remove_tenant_jobs(uuid, uuid[]) TO memory_app;

-- Jobs of a tenant that name a memory which no longer exists (a job that was running during an
-- erasure and then failed for good keeps its payload): the vector purge removes them.
CREATE FUNCTION remove_orphan_memory_jobs(p_tenant uuid) RETURNS integer
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM graphile_worker._private_jobs j
  WHERE j.payload->>'tenantId' = p_tenant::text
    AND j.payload->>'memoryId' IS NOT NULL
    AND (j.locked_at IS NULL OR j.locked_at < now() - interval '4 hours')
    AND NOT EXISTS (SELECT 1 FROM public.memories m
                    WHERE m.tenant_id = p_tenant AND m.id::text = j.payload->>'memoryId');
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;
REVOKE ALL ON FUNCTION remove_orphan_memory_jobs(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION remove_orphan_memory_jobs(uuid) TO memory_app;
