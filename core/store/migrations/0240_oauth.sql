-- MCP authorization with OAuth 2.1 (issue 24, ADR 0240). An OAuth connection (grant) is a row of
-- api_tokens with kind 'oauth': listed and revoked beside API tokens, counted against the 50 active
-- tokens, rate-limited per row like a kmt_ token. Its access tokens (kmt_ format, 1 hour) and refresh
-- tokens (kmr_, rotated on use) live in tables of their own, keyed by SHA-256 like every secret.
ALTER TABLE api_tokens ADD COLUMN kind text NOT NULL DEFAULT 'api' CHECK (kind IN ('api', 'oauth'));
ALTER TABLE api_tokens ALTER COLUMN token_hash DROP NOT NULL;

-- Clients register anonymously (RFC 7591 open registration), before any workspace is involved, so
-- this table holds no tenant data.
CREATE TABLE oauth_clients (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_name text NOT NULL,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  token_endpoint_auth_method text NOT NULL
    CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  secret_hash bytea,
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin'] AND cardinality(scopes) > 0),
  grant_types text[] NOT NULL,
  client_uri text,
  logo_uri text,
  software_id text,
  software_version text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((token_endpoint_auth_method = 'none') = (secret_hash IS NULL))
);

ALTER TABLE api_tokens ADD COLUMN oauth_client_id uuid REFERENCES oauth_clients (id);
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_kind_shape CHECK (
  (kind = 'api' AND token_hash IS NOT NULL AND oauth_client_id IS NULL)
  OR (kind = 'oauth' AND token_hash IS NULL AND oauth_client_id IS NOT NULL));

-- Authorization codes: single use (used_at), valid 10 minutes (spec "Limits").
CREATE TABLE oauth_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  code_hash bytea NOT NULL UNIQUE,
  client_id uuid NOT NULL REFERENCES oauth_clients (id),
  user_id uuid NOT NULL REFERENCES users (id),
  redirect_uri text NOT NULL,
  redirect_uri_given boolean NOT NULL,
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin'] AND cardinality(scopes) > 0),
  code_challenge text NOT NULL,
  resource text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  -- The grant the code was exchanged for: a second use of the code revokes it (RFC 6749 4.1.2).
  grant_id uuid REFERENCES api_tokens (id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_access_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  grant_id uuid NOT NULL REFERENCES api_tokens (id),
  token_hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin'] AND cardinality(scopes) > 0),
  -- RFC 8707: the resource (audience) the token was issued for; core refuses it anywhere else.
  resource text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_access_tokens_grant_idx ON oauth_access_tokens (grant_id);

CREATE TABLE oauth_refresh_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  grant_id uuid NOT NULL REFERENCES api_tokens (id),
  token_hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin'] AND cardinality(scopes) > 0),
  resource text NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Set when rotated; presenting a used refresh token again revokes the grant (OAuth 2.1 4.3.1).
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id);

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['oauth_codes', 'oauth_access_tokens', 'oauth_refresh_tokens']
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)',
      t);
  END LOOP;
END
$$;
