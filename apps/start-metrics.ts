import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsConfig } from "../config/config.js";
import type { Logger } from "../config/logger.js";
import type { Database } from "../core/store/database.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import type { Shutdown } from "./shutdown.js";

/**
 * METRICS_PORT: a plain HTTP listener serving only GET /metrics, without credentials, bound to
 * METRICS_HOST (loopback by default): what a Prometheus beside the process scrapes, for every kind
 * of process (all-in-one, core, gateway, worker), also those without an HTTP edge (ADR 0150).
 */
export async function startMetricsServer(
  config: MetricsConfig,
  metrics: ServiceMetrics,
  logger: Logger,
  shutdown: Shutdown,
): Promise<number | undefined> {
  if (config.port === undefined) return undefined;
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics here\n");
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain" }).end("scrape failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  shutdown.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const port = (server.address() as AddressInfo).port;
  logger.info({ metrics: `http://${config.host}:${port}/metrics` }, "metrics listening");
  return port;
}

/**
 * Scrape-time readings of the database a process uses: whether it answers a ping, and the job
 * queue's depth by task and the age of its oldest runnable job (graphile-worker's jobs view).
 */
export function observeDatabase(metrics: ServiceMetrics, db: Database): void {
  metrics.beforeScrape(async () => {
    metrics.databaseUp.set((await db.ping(800)) ? 1 : 0);
  });
  metrics.beforeScrape(async () => {
    const rows = await db.sql<{ task: string; n: number; oldest: number | null }[]>`
      select task_identifier as task, count(*)::int as n,
             extract(epoch from now() - min(run_at) filter (where run_at <= now()))::float8 as oldest
      from graphile_worker.jobs
      where locked_at is null and attempts < max_attempts
      group by task_identifier`;
    metrics.jobQueueDepth.reset();
    let oldest = 0;
    for (const row of rows) {
      metrics.jobQueueDepth.set({ task: row.task }, row.n);
      oldest = Math.max(oldest, row.oldest ?? 0);
    }
    metrics.jobQueueOldestSeconds.set(oldest);
  });
}
