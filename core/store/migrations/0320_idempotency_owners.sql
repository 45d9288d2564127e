-- Crash-proof Idempotency-Key (issue 45, item 1). A key is claimed before its write runs; when the
-- process that claimed it died (kill -9, OOM) the claim stayed "still running" for 24 hours. Each
-- core process now registers itself in core_instances and beats every 2 s; a claim names its owner
-- process and a claim id. A claim whose owner has stopped beating is taken over by the next retry,
-- which re-runs the write: every keyed write is idempotent by content (identical entries and
-- documents are found, not written again; an update whose successor is already there is replayed),
-- so the write happens exactly once either way.
CREATE TABLE core_instances (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE idempotency_keys
  ADD COLUMN owner uuid,
  ADD COLUMN claim uuid;
