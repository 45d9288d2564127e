import { randomUUID } from "node:crypto";
import type { Logger } from "../../config/logger.js";
import type { Database } from "../store/database.js";

/** How often a core process says it is alive, and after how long without a beat it counts as dead. */
export const HEARTBEAT_INTERVAL_MS = 2000;
export const OWNER_DEAD_AFTER_SECONDS = 10;

/** This process as the owner of idempotency claims (core_instances, migration 0320). */
export interface InstanceHeartbeat {
  readonly id: string;
  stop(): Promise<void>;
}

/**
 * Registers this core process and beats every 2 s, so a claim whose owner died is recognised by its
 * stale beat (10 s) rather than held for the key's 24 hours. A beat that fails (database down or
 * frozen) is retried at the next interval; rows of processes gone for an hour are removed.
 */
export function startInstanceHeartbeat(db: Database, logger: Logger): InstanceHeartbeat {
  const id = randomUUID();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const beat = async () => {
    try {
      await db.sql`
        insert into core_instances (id) values (${id})
        on conflict (id) do update set heartbeat_at = now()`;
    } catch (error) {
      logger.debug({ err: error }, "instance heartbeat failed; retrying");
    }
  };
  const loop = async () => {
    await beat();
    if (stopped) return;
    timer = setTimeout(() => void loop(), HEARTBEAT_INTERVAL_MS);
    timer.unref();
  };
  void loop();
  void db.sql`delete from core_instances where heartbeat_at < now() - interval '1 hour'`.catch(
    () => undefined,
  );
  return {
    id,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await db.sql`delete from core_instances where id = ${id}`.catch(() => undefined);
    },
  };
}
