import autocannon from "autocannon";

/**
 * bench:load's mixed phase (issue 15 "Deliver"): 70 % recall, 20 % store, 10 % list/stats, half of
 * each through REST and half through MCP (stateless JSON-RPC over POST /api/mcp/v1), at the given
 * connections. Latency per operation is timed from the request's setup to its answer; an MCP answer
 * counts as failed when it carries a JSON-RPC error (HTTP stays 200).
 */
export type MixedOperation =
  | "rest.recall"
  | "mcp.recall"
  | "rest.store"
  | "mcp.store"
  | "rest.recent"
  | "mcp.stats";

/** One cycle of 20 requests: 14 recalls, 4 stores, 2 list/stats. */
const CYCLE: readonly MixedOperation[] = [
  ...Array<MixedOperation>(7).fill("rest.recall"),
  ...Array<MixedOperation>(7).fill("mcp.recall"),
  "rest.store",
  "rest.store",
  "mcp.store",
  "mcp.store",
  "rest.recent",
  "mcp.stats",
];

export interface MixedLoadOptions {
  readonly base: string;
  readonly token: string;
  readonly connections: number;
  readonly seconds: number;
  readonly queries: readonly string[];
  /** Text of the n-th stored memory (distinct, so deduplication does not short-cut the write). */
  readonly content: (n: number) => string;
}

export interface OperationFigures {
  readonly requests: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Status and start of the body of the first failed answer, to say why. */
  readonly firstFailure?: string;
}

export interface MixedLoadResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly statuses: Record<string, number>;
  readonly operations: Record<string, OperationFigures>;
  readonly errors: number;
  readonly timeouts: number;
}

const round = (x: number) => Math.round(x * 10) / 10;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const mcpCall = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

interface Prepared {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: string;
}

function prepare(operation: MixedOperation, n: number, options: MixedLoadOptions): Prepared {
  const query = options.queries[n % options.queries.length] ?? "Frage";
  switch (operation) {
    case "rest.recall":
      return { method: "POST", path: "/api/memory/recall", body: JSON.stringify({ query, k: 10 }) };
    case "mcp.recall":
      return { method: "POST", path: "/api/mcp/v1", body: mcpCall(n, "service_recall", { query, k: 10 }) };
    case "rest.store":
      return {
        method: "POST",
        path: "/api/v1/memory/entries",
        body: JSON.stringify({ memory_type: "semantic", title: `Last ${n}`, content: options.content(n) }),
      };
    case "mcp.store":
      return {
        method: "POST",
        path: "/api/mcp/v1",
        body: mcpCall(n, "service_store_memory", { title: `Last ${n}`, content: options.content(n) }),
      };
    case "rest.recent":
      return { method: "GET", path: "/api/v1/memory/recent?k=10" };
    case "mcp.stats":
      return { method: "POST", path: "/api/mcp/v1", body: mcpCall(n, "service_stats", {}) };
  }
}

const withFailure = (failure: string | undefined) => (failure === undefined ? {} : { firstFailure: failure });

interface Context {
  operation?: MixedOperation;
  startedAt?: number;
}

export function runMixedLoad(options: MixedLoadOptions): Promise<MixedLoadResult> {
  const samples = new Map<MixedOperation, number[]>();
  const failed = new Map<MixedOperation, number>();
  const statuses = new Map<number, number>();
  const firstFailure = new Map<MixedOperation, string>();
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: options.base,
        connections: options.connections,
        duration: options.seconds,
        timeout: 30,
        headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json" },
        requests: [
          {
            setupRequest: (request, context: Context) => {
              const n = next++;
              const operation = CYCLE[n % CYCLE.length] ?? "rest.recall";
              const prepared = prepare(operation, n, options);
              context.operation = operation;
              context.startedAt = performance.now();
              // A fresh headers object: autocannon writes Content-Length into the one it is given,
              // which a body-less GET would otherwise inherit from the previous POST.
              const { "Content-Length": _stale, ...headers } = request.headers ?? {};
              return {
                ...request,
                headers,
                method: prepared.method,
                path: prepared.path,
                ...(prepared.body === undefined ? { body: undefined } : { body: prepared.body }),
              };
            },
            onResponse: (status, body, context: Context) => {
              const operation = context.operation ?? "rest.recall";
              const list = samples.get(operation) ?? [];
              list.push(performance.now() - (context.startedAt ?? performance.now()));
              samples.set(operation, list);
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
              const rpcError =
                operation.startsWith("mcp.") &&
                (body.includes('"error":{"code"') || body.includes('"isError":true'));
              if (status >= 300 || rpcError) {
                failed.set(operation, (failed.get(operation) ?? 0) + 1);
                if (!firstFailure.has(operation))
                  firstFailure.set(operation, `${status} ${body.slice(0, 300)}`);
              }
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const operations = Object.fromEntries(
          [...samples].map(([operation, list]) => {
            const sorted = [...list].sort((a, b) => a - b);
            const figures: OperationFigures = {
              requests: list.length,
              failed: failed.get(operation) ?? 0,
              ...withFailure(firstFailure.get(operation)),
              p50Ms: round(percentile(sorted, 50)),
              p99Ms: round(percentile(sorted, 99)),
            };
            return [operation, figures];
          }),
        );
        const requests = [...samples.values()].reduce((sum, list) => sum + list.length, 0);
        resolve({
          requests,
          requestsPerSecond: round(requests / result.duration),
          statuses: Object.fromEntries(statuses),
          operations,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
  });
}
