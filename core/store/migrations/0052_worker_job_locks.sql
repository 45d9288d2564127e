-- A worker process runs several graphile-worker workers, each locking jobs under its own random id.
-- The process records those ids with its heartbeat, so a live worker can release the jobs of a
-- process that stopped beating (killed, crashed) with graphile-worker's forceUnlockWorkers,
-- instead of the jobs waiting for graphile-worker's own 4-hour lock expiry (issue 15).
ALTER TABLE worker_heartbeats ADD COLUMN job_worker_ids text[] NOT NULL DEFAULT '{}';
