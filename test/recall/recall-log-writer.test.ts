import test from "ava";
import { createLogger } from "../../config/logger.js";
import { createRecallLogWriter } from "../../core/recall/recall-log-writer.js";
import type { Database, TransactionSql } from "../../core/store/database.js";

/** A Database that records, per transaction, its tenant and the parameters of each statement. */
function recordingDatabase() {
  const transactions: { tenantId: string; statements: unknown[][] }[] = [];
  const db = {
    async withTenant<T>(tenantId: string, fn: (tx: TransactionSql) => Promise<T>): Promise<T> {
      const statements: unknown[][] = [];
      transactions.push({ tenantId, statements });
      const tx = Object.assign(
        (_strings: TemplateStringsArray, ...params: unknown[]) => {
          statements.push(params);
          return Promise.resolve([]);
        },
        { array: (values: unknown[]) => values },
      );
      return fn(tx as unknown as TransactionSql);
    },
  } as unknown as Database;
  return { db, transactions };
}

const logger = createLogger("silent");

test("recalls are written per tenant in one statement each, rounded, when flushed", async (t) => {
  const { db, transactions } = recordingDatabase();
  const writer = createRecallLogWriter({ db, logger, intervalMs: 60_000 });
  writer.record("tenant-a", 12.4);
  writer.record("tenant-b", 3);
  writer.record("tenant-a", 7.6);
  t.is(transactions.length, 0, "nothing is written before a flush or the interval");
  await writer.flush("tenant-a");
  t.is(transactions.length, 1);
  t.is(transactions[0]?.tenantId, "tenant-a");
  t.deepEqual(transactions[0]?.statements.at(-1), ["tenant-a", [12, 8]]);
  await writer.flush();
  t.is(transactions.length, 2);
  t.deepEqual(transactions[1]?.statements.at(-1), ["tenant-b", [3]]);
  await writer.flush();
  t.is(transactions.length, 2, "a flush with nothing pending writes nothing");
});

test("pending rows are written within the interval without a flush", async (t) => {
  const { db, transactions } = recordingDatabase();
  const writer = createRecallLogWriter({ db, logger, intervalMs: 10 });
  writer.record("tenant-a", 5);
  writer.record("tenant-a", 6);
  for (let i = 0; i < 100 && transactions.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.deepEqual(transactions[0]?.statements.at(-1), ["tenant-a", [5, 6]]);
});

test("a tenant's rows are written at once when maxPending are waiting", async (t) => {
  const { db, transactions } = recordingDatabase();
  const writer = createRecallLogWriter({ db, logger, intervalMs: 60_000, maxPending: 3 });
  for (const ms of [1, 2, 3]) writer.record("tenant-a", ms);
  t.is(transactions.length, 1);
  await new Promise((r) => setImmediate(r));
  t.deepEqual(transactions[0]?.statements.at(-1), ["tenant-a", [1, 2, 3]]);
});
