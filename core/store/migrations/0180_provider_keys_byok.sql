-- BYOK (issue 18): what a stored provider key is used with, which master key sealed it, and the
-- workspace's choice of embedder / reranker with the embedding-space switch in progress.

ALTER TABLE provider_keys
  ADD COLUMN model text NOT NULL DEFAULT '',
  ADD COLUMN dimension integer NOT NULL DEFAULT 0,
  ADD COLUMN last_used_at timestamptz,
  ADD COLUMN last_test_error text,
  -- First 16 hex of SHA-256(master key): which MASTER_KEY sealed the record (rotation is resumable).
  ADD COLUMN master_key_id text NOT NULL DEFAULT '';

-- One row per workspace that chose a provider key; no row: the service's own models.
CREATE TABLE tenant_model_selection (
  tenant_id uuid PRIMARY KEY REFERENCES tenants (id),
  embedding_key_id uuid REFERENCES provider_keys (id),
  rerank_key_id uuid REFERENCES provider_keys (id),
  -- The space recall searches (NULL: the service embedder's) and the key that embeds into it.
  active_space text,
  active_key_id uuid REFERENCES provider_keys (id),
  -- Set while a re-embed job fills a new space; recall switches when it is complete.
  target_space text,
  reembed_total integer NOT NULL DEFAULT 0,
  reembed_done integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE tenant_model_selection ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_model_selection
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
