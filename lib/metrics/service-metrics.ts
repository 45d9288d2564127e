import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus metrics (docs/observability.md, ADR 0150). One registry per process,
 * built in its composition root and handed to the parts that record: the edge (HTTP), the MCP
 * gateway (tool calls), core's interceptor chain (RPCs, recall stages), the worker (jobs, webhook
 * deliveries). A leaf module: it knows no part of the service, so gateways and core may both use it.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** HTTP requests by method, route pattern (never the raw URL) and status. */
  readonly httpRequests: Histogram<"method" | "route" | "status">;
  /** MCP tools/call by tool name and outcome (ok, tool_error, input_required, or error). */
  readonly mcpToolCalls: Histogram<"tool" | "outcome">;
  /** Core RPCs by method (Service/Method), gRPC code name and transport (grpc, in_process). */
  readonly coreCalls: Histogram<"method" | "code" | "transport">;
  /** Recall stages as RecallResponse.timings reports them. */
  readonly recallStages: Histogram<"stage">;
  /** Background jobs by task and outcome (success, error). */
  readonly jobs: Histogram<"task" | "outcome">;
  /** Queued jobs by task, read from the queue at scrape time. */
  readonly jobQueueDepth: Gauge<"task">;
  /** Age of the oldest runnable job, read at scrape time. */
  readonly jobQueueOldestSeconds: Gauge;
  /** Outgoing webhook attempts by result (delivered, retry, dead, lease_lost, not_recorded …). */
  readonly webhookDeliveries: Counter<"result">;
  /** 1 when the database answered a ping at scrape time, else 0. */
  readonly databaseUp: Gauge;
  /** Connections of the job queue's pg pool by state (total, idle, waiting). */
  readonly jobPoolConnections: Gauge<"state">;
  /**
   * Adds work to run before each scrape (reading queue depth, pinging the database). Each runs with
   * a deadline, so a hung dependency makes a scrape report it rather than hang.
   */
  beforeScrape(update: () => Promise<void>): void;
  /** The exposition text, after the beforeScrape updates. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

const SCRAPE_UPDATE_DEADLINE_MS = 1000;
/** Request, RPC and tool latencies: 5 ms … 10 s. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Jobs run longer (embedding large documents): 10 ms … 5 min. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

export function createServiceMetrics(options: { readonly prefix?: string } = {}): ServiceMetrics {
  const prefix = options.prefix ?? "memory_";
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  const updates: (() => Promise<void>)[] = [];
  const registers = [registry];
  return {
    registry,
    httpRequests: new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: "HTTP requests by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    mcpToolCalls: new Histogram({
      name: `${prefix}mcp_tool_call_duration_seconds`,
      help: "MCP tool calls by tool and outcome",
      labelNames: ["tool", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    coreCalls: new Histogram({
      name: `${prefix}rpc_duration_seconds`,
      help: "Core RPCs by method, gRPC code and transport",
      labelNames: ["method", "code", "transport"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    recallStages: new Histogram({
      name: `${prefix}recall_stage_duration_seconds`,
      help: "Recall stage durations (RecallResponse.timings)",
      labelNames: ["stage"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobs: new Histogram({
      name: `${prefix}job_duration_seconds`,
      help: "Background jobs by task and outcome",
      labelNames: ["task", "outcome"],
      buckets: JOB_BUCKETS,
      registers,
    }),
    jobQueueDepth: new Gauge({
      name: `${prefix}job_queue_depth`,
      help: "Jobs waiting in the queue by task (read at scrape time)",
      labelNames: ["task"],
      registers,
    }),
    jobQueueOldestSeconds: new Gauge({
      name: `${prefix}job_queue_oldest_seconds`,
      help: "Age of the oldest runnable job in seconds (read at scrape time)",
      registers,
    }),
    webhookDeliveries: new Counter({
      name: `${prefix}webhook_deliveries_total`,
      help: "Outgoing webhook delivery attempts by result",
      labelNames: ["result"],
      registers,
    }),
    databaseUp: new Gauge({
      name: `${prefix}database_up`,
      help: "1 when PostgreSQL answered a ping at scrape time",
      registers,
    }),
    jobPoolConnections: new Gauge({
      name: `${prefix}job_pool_connections`,
      help: "Connections of the job queue's PostgreSQL pool by state",
      labelNames: ["state"],
      registers,
    }),
    beforeScrape(update) {
      updates.push(update);
    },
    async scrape() {
      await Promise.all(updates.map((update) => withDeadline(update(), SCRAPE_UPDATE_DEADLINE_MS)));
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

/** Waits for `work` at most `ms`; a failure or a late answer leaves the previous values. */
async function withDeadline(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
