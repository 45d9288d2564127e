-- Payments (issue 16): processed payment-provider events, subscription state on the tenant, and the
-- public cancellations (Kündigung) received.

-- One row per payment-provider event id, inserted in the same transaction as the event's effect:
-- the primary key makes each event take effect exactly once (a replay or a concurrent duplicate
-- delivery conflicts and changes nothing). System data written by the owner: the webhook has no
-- tenant before it read the event, so no RLS.
CREATE TABLE payment_events (
  event_id text PRIMARY KEY CHECK (char_length(event_id) BETWEEN 1 AND 255),
  event_type text NOT NULL,
  tenant_id uuid REFERENCES tenants (id),
  -- What the event did: 'applied', 'ignored' (kind not handled), 'unknown_tenant', 'stale'.
  outcome text NOT NULL,
  created_at timestamptz NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payment_events_tenant_idx ON payment_events (tenant_id) WHERE tenant_id IS NOT NULL;

ALTER TABLE tenants
  -- When the running subscription ends (cancel_at_period_end or a cancellation date); null: renews.
  ADD COLUMN subscription_cancel_at timestamptz,
  -- Creation time of the last subscription event applied: older events arriving late change nothing.
  ADD COLUMN subscription_event_at timestamptz;
CREATE UNIQUE INDEX tenants_payment_subscription_key ON tenants (payment_subscription_id)
  WHERE payment_subscription_id IS NOT NULL;

-- Cancellations confirmed through /api/kuendigung (§312k BGB), only for existing contracts. nonce is
-- the confirmation token's: the unique key makes each token usable once.
CREATE TABLE cancellations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id),
  nonce text NOT NULL UNIQUE,
  email text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('ordinary', 'extraordinary')),
  reason text,
  wished_date date,
  received_at timestamptz NOT NULL DEFAULT now(),
  effective_at timestamptz,
  subscription_id text
);
CREATE INDEX cancellations_tenant_idx ON cancellations (tenant_id, received_at DESC);
ALTER TABLE cancellations ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON cancellations
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
