import postgres from "postgres";
import { inSpan } from "../../lib/tracing/tracer.js";
import { answeredInTime, type DatabaseWatchdog, watchDatabase } from "./database-watchdog.js";

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

/** PostgreSQL access shared by core's services and the worker. */
export interface Database {
  /** The pool, as the table owner: for work with no tenant yet (sign-in, token lookup, migrations). */
  readonly sql: Sql;
  /**
   * Runs `fn` in a transaction bound to one tenant: as role memory_app with app.tenant_id set, so
   * Row-Level Security backs up the tenant filters every query also writes itself. `snapshot`: one
   * REPEATABLE READ snapshot for readers that query in several rounds (recall, exports).
   */
  withTenant<T>(
    tenantId: string,
    fn: (tx: TransactionSql) => Promise<T>,
    options?: { readonly snapshot?: boolean },
  ): Promise<T>;
  /** True when a trivial query answers within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  /** Whether the database answers at all (a frozen one is stalled); requests fail fast on it. */
  readonly watchdog: DatabaseWatchdog;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  maxConnections?: number;
  /** Receives PostgreSQL notices (e.g. "relation already exists, skipping"); dropped when unset. */
  onNotice?: (message: string) => void;
  /** Told when the database stops answering pings and when it answers again (the watchdog). */
  onStallChange?: (stalled: boolean) => void;
}

/**
 * Delay in seconds before the next connection attempt after `retries` failed ones: exponential from
 * 50 ms, capped at 1 s, with jitter. The driver's default grows to 20 s and its retry counter is
 * shared by the whole pool, so a database that was down for two seconds kept every connection
 * waiting 10–20 s after it came back (issue 15: recovery after a restart must not take minutes).
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);
}

export function createDatabase(options: DatabaseOptions): Database {
  const sql = postgres(options.url, {
    max: options.maxConnections ?? 10,
    backoff: reconnectDelaySeconds,
    // Queries name their columns in snake_case; services map rows to their own types.
    onnotice: (n) => options.onNotice?.(String(n.message)),
    connect_timeout: 10,
    idle_timeout: 60,
    // Prepared statements are safe: we never change search_path or types under a running pool.
    prepare: true,
  });

  // The health ping has a connection of its own: a pool busy with requests is not a database that
  // is down, and /api/health must tell the two apart within its deadline.
  const pingSql = postgres(options.url, {
    max: 1,
    backoff: reconnectDelaySeconds,
    connect_timeout: 10,
    idle_timeout: 60,
    onnotice: () => undefined,
  });

  async function withTenant<T>(
    tenantId: string,
    fn: (tx: TransactionSql) => Promise<T>,
    options: { readonly snapshot?: boolean } = {},
  ): Promise<T> {
    const bound = async (tx: TransactionSql) => {
      // Pipelined: sent before fn's first statement without waiting for its answer. The connection
      // runs its statements in order, so each of fn's runs with role and tenant set, and a failure
      // here aborts the transaction under them. One round trip less per transaction.
      const binding =
        tx`select set_config('role', 'memory_app', true), set_config('app.tenant_id', ${tenantId}, true)`.execute();
      const [, result] = await Promise.all([binding, fn(tx)]);
      return result;
    };
    // A trace span per tenant transaction: where a request's database time goes.
    const result = await inSpan("db.transaction", { "db.system": "postgresql" }, () =>
      options.snapshot ? sql.begin("isolation level repeatable read", bound) : sql.begin(bound),
    );
    return result as T;
  }

  const answerPing = () => pingSql`select 1`.then(() => true as const);
  // 1.8 s: /api/health must report a hung database as down within 2 s (issue 15). Timed like the
  // watchdog, so a busy event loop is not reported as a database that is down.
  const ping = (timeoutMs = 1800): Promise<boolean> => answeredInTime(answerPing(), timeoutMs);

  const watchdog = watchDatabase({
    ping: answerPing,
    ...(options.onStallChange ? { onChange: options.onStallChange } : {}),
  });

  return {
    sql,
    withTenant,
    ping,
    watchdog,
    close: async () => {
      watchdog.stop();
      await Promise.all([sql.end({ timeout: 5 }), pingSql.end({ timeout: 1 })]);
    },
  };
}
