-- Outgoing webhooks (spec "Events", "Delivery rules"; docs/webhooks.md). Subscriptions hold their
-- signing secrets sealed with MASTER_KEY (AES-256-GCM: nonce, tag and ciphertext in one value);
-- deliveries are created from the outbox and carry the exact body every attempt sends.

CREATE TABLE webhook_subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  url text NOT NULL CHECK (url LIKE 'https://%' AND char_length(url) <= 2048),
  event_kinds text[] NOT NULL
    CHECK (cardinality(event_kinds) > 0
           AND event_kinds <@ ARRAY['memory.created', 'memory.updated', 'webhook.test']),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 200),
  secret_sealed bytea NOT NULL,
  -- The secret before the last rotation, valid until previous_secret_expires_at.
  previous_secret_sealed bytea,
  previous_secret_expires_at timestamptz,
  active boolean NOT NULL DEFAULT true,
  consecutive_failures integer NOT NULL DEFAULT 0,
  deactivated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_tenant_idx ON webhook_subscriptions (tenant_id, created_at);

CREATE TABLE webhook_deliveries (
  -- Sent as X-service-Delivery: the same on every attempt of this delivery.
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  -- The outbox event this delivery fans out (none for webhook.test); one delivery per pair.
  outbox_id bigint,
  event text NOT NULL,
  -- The exact body of every attempt, so retries are byte-identical and the signature stays valid.
  body text NOT NULL,
  occurred_at timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- A worker's claim on the next attempt: nobody else sends it until the lease expires.
  lease_token uuid,
  lease_expires_at timestamptz,
  last_attempt_at timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, outbox_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, occurred_at)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC);

ALTER TABLE webhook_subscriptions ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON webhook_subscriptions
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON webhook_deliveries
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- Wakes delivery workers (LISTEN webhook_events) when an event or a delivery commits; NOTIFY is
-- sent at commit, so a worker never looks before the row is visible. Workers also poll, so a lost
-- notification only delays.
CREATE FUNCTION notify_webhook_event() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM pg_notify('webhook_events', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER outbox_notify_webhooks AFTER INSERT ON outbox
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_event();
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_event();
