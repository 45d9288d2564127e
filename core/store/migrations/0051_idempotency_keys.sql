-- Idempotency-Key (REST header) / idempotency_key (MCP argument) on writes: the answer to the first
-- request with a key is kept for 24 hours and replayed to retries with the same key, so a client
-- that retries after a timeout never writes twice (issue 15). response is null while the first
-- request is still running.
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  method text NOT NULL,
  key text NOT NULL,
  request_sha256 text NOT NULL,
  response bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, method, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (tenant_id, created_at);

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON idempotency_keys
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
