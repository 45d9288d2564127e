-- Initial schema (see ../shared/DESIGN.md "Storage"). PostgreSQL is the source of truth; LanceDB
-- vectors can be rebuilt from the chunks here.

-- The application runs tenant transactions as this role so Row-Level Security applies even when the
-- login user is a superuser (superusers bypass RLS). Roles are cluster-wide, so tolerate a
-- concurrent creator (another database migrating at the same time).
DO $$
BEGIN
  CREATE ROLE memory_app NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;
DO $$
BEGIN
  EXECUTE format('GRANT memory_app TO %I', current_user);
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

-- Tenancy -----------------------------------------------------------------------------------------

CREATE TABLE tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'plus', 'pro', 'team', 'api')),
  -- Per-tenant overrides of plan limits (Enterprise), e.g. {"rateLimitPerMinute": 600}.
  limits_override jsonb NOT NULL DEFAULT '{}',
  payment_customer_id text,
  payment_subscription_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  user_id uuid NOT NULL REFERENCES users (id),
  role text NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE magic_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  callback_path text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE api_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  name text NOT NULL,
  -- SHA-256 of the clear-text token; the token itself is never stored.
  token_hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin'] AND cardinality(scopes) > 0),
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_tokens_tenant_idx ON api_tokens (tenant_id) WHERE revoked_at IS NULL;

CREATE TABLE provider_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  provider text NOT NULL,
  label text NOT NULL DEFAULT '',
  -- AES-256-GCM: ciphertext, 12-byte nonce, 16-byte tag; key from MASTER_KEY.
  ciphertext bytea NOT NULL,
  nonce bytea NOT NULL,
  auth_tag bytea NOT NULL,
  last4 text NOT NULL,
  base_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_tested_at timestamptz,
  last_test_ok boolean
);
CREATE INDEX provider_keys_tenant_idx ON provider_keys (tenant_id);

CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid REFERENCES tenants (id),
  actor_user_id uuid,
  actor_token_id uuid,
  action text NOT NULL,
  target text,
  ip inet,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant_time_idx ON audit_log (tenant_id, created_at DESC);

-- Memories ----------------------------------------------------------------------------------------

-- One row per version. lineage_id ties the versions of one fact; valid_from/valid_to is valid time,
-- recorded_at transaction time. Fact updates never delete rows.
CREATE TABLE memories (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  lineage_id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('document', 'entry')),
  memory_type text NOT NULL DEFAULT 'semantic'
    CHECK (memory_type IN ('semantic', 'episodic', 'procedural', 'reference', 'working', 'entity')),
  title text NOT NULL,
  content text NOT NULL,
  content_sha256 bytea NOT NULL,
  source text,
  tags text[] NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'indexed', 'failed')),
  status_detail text,
  chunks_written integer NOT NULL DEFAULT 0,
  embedding_space text,
  update_reason text,
  valid_from timestamptz NOT NULL DEFAULT now(),
  valid_to timestamptz,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
-- At most one current version per lineage.
CREATE UNIQUE INDEX memories_current_lineage_key ON memories (tenant_id, lineage_id) WHERE valid_to IS NULL;
CREATE INDEX memories_tenant_created_idx ON memories (tenant_id, created_at DESC);
CREATE INDEX memories_tenant_title_idx ON memories (tenant_id, kind, title) WHERE valid_to IS NULL;
CREATE INDEX memories_tenant_hash_idx ON memories (tenant_id, content_sha256);

CREATE TABLE chunks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  memory_id uuid NOT NULL REFERENCES memories (id),
  ordinal integer NOT NULL,
  content text NOT NULL,
  char_start integer NOT NULL,
  char_end integer NOT NULL,
  token_count integer NOT NULL,
  -- German analyzer: Snowball stemming and stop words.
  tsv tsvector NOT NULL,
  -- Number of lexeme occurrences in tsv: the BM25 document length.
  lexeme_count integer NOT NULL DEFAULT 0,
  -- Copied from the memory version so recall filters chunks without a join.
  valid_from timestamptz NOT NULL,
  valid_to timestamptz,
  vector_stored boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (memory_id, ordinal)
);
CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_tenant_memory_idx ON chunks (tenant_id, memory_id);
CREATE INDEX chunks_unvectored_idx ON chunks (tenant_id) WHERE NOT vector_stored;

-- Graph -------------------------------------------------------------------------------------------

CREATE TABLE edges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  from_id uuid NOT NULL REFERENCES memories (id),
  to_id uuid NOT NULL REFERENCES memories (id),
  rel_type text NOT NULL CHECK (rel_type ~ '^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$'),
  -- The edge this one mirrors; each link writes both directions.
  inverse_of uuid REFERENCES edges (id) DEFERRABLE INITIALLY DEFERRED,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, from_id, to_id, rel_type)
);
CREATE INDEX edges_from_idx ON edges (tenant_id, from_id);
CREATE INDEX edges_to_idx ON edges (tenant_id, to_id);

-- Events and statistics ---------------------------------------------------------------------------

-- Written in the same transaction as the memory; the webhook dispatcher reads it.
CREATE TABLE outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  event text NOT NULL,
  payload jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE dispatched_at IS NULL;

-- One row per recall, for queriesLast24h / p50Ms / p99Ms.
CREATE TABLE recall_log (
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  at timestamptz NOT NULL DEFAULT now(),
  latency_ms integer NOT NULL
);
CREATE INDEX recall_log_tenant_time_idx ON recall_log (tenant_id, at DESC);

-- Row-Level Security ------------------------------------------------------------------------------

-- Tenant transactions run as memory_app with app.tenant_id set (core/store/database.ts), so these
-- policies bind them. The owner (the login user) is deliberately not forced: system work that has no
-- tenant yet (token lookup by hash, sign-in, onboarding, migrations) runs as the owner.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['api_tokens', 'provider_keys', 'audit_log', 'memories', 'chunks', 'edges',
                           'outbox', 'recall_log']
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)',
      t);
  END LOOP;
END
$$;
ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants
  USING (id = nullif(current_setting('app.tenant_id', true), '')::uuid);

GRANT USAGE ON SCHEMA public TO memory_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO memory_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO memory_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO memory_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO memory_app;

-- Workers report here so a separately running core can tell whether any worker is alive.
CREATE TABLE worker_heartbeats (
  worker_id text PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- Enqueue a graphile-worker job from a tenant transaction (role memory_app cannot write
-- graphile-worker's RLS-protected tables). The queue's schema is installed by core/store/job-queue.ts.
CREATE FUNCTION enqueue_job(p_task text, p_payload json, p_job_key text DEFAULT NULL,
                            p_run_at timestamptz DEFAULT NULL, p_max_attempts integer DEFAULT NULL,
                            p_priority integer DEFAULT NULL)
  RETURNS bigint
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN (SELECT j.id FROM graphile_worker.add_job(p_task, p_payload,
                                                   job_key => p_job_key,
                                                   run_at => p_run_at,
                                                   max_attempts => p_max_attempts,
                                                   priority => p_priority) j);
END
$$;
REVOKE ALL ON FUNCTION enqueue_job(text, json, text, timestamptz, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION enqueue_job(text, json, text, timestamptz, integer, integer) TO memory_app;
