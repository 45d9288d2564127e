import test from "ava";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";
import { type SwitchableModels, switchableModels } from "../mcp/switchable-embedder.js";

let service: TestService;
let tenant: TestTenant;
let models: SwitchableModels;

test.before(async () => {
  models = switchableModels();
  // Without a worker, nothing but the request under test writes log lines meanwhile, so "every line
  // written during the request carries its id" is checked strictly. The worker test has its own.
  service = await startTestService({ models, captureLogs: true, worker: false });
  tenant = await service.createTenant();
});
test.after.always(async () => {
  await service?.stop();
});

interface LogLine {
  readonly reqId?: string;
  readonly msg?: string;
  readonly level?: number;
}
const parsed = (from: number): { line: string; log: LogLine }[] =>
  service.logLines.slice(from).map((line) => ({ line, log: JSON.parse(line) as LogLine }));

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.httpUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

test.serial(
  "a sane X-Request-Id is kept, echoed, and named by every log line of the request, core's included; no token is logged",
  async (t) => {
    const from = service.logLines.length;
    // The embedder fails: core logs "indexing failed" on behalf of this request.
    models.mode = "crash";
    const response = await post(
      "/api/v1/memory/entries",
      { title: "Doomed", content: "this memory cannot be embedded", memoryType: "semantic" },
      { "x-request-id": "client-chosen.id-42" },
    );
    models.mode = "ok";
    t.true(response.status >= 400);
    t.is(response.headers.get("x-request-id"), "client-chosen.id-42");
    const lines = parsed(from);
    // Incoming, core's warning, completed: all of them carry the id, and nothing else was logged.
    t.true(lines.some(({ log }) => log.msg === "incoming request"));
    t.true(lines.some(({ log }) => log.msg === "embedding failed; memory recorded as failed"));
    t.true(lines.some(({ log }) => log.msg === "request completed"));
    for (const { line, log } of lines) {
      t.is(log.reqId, "client-chosen.id-42", line);
      t.false(line.includes(tenant.token), "no token in logs");
      t.false(line.includes(tenant.token.slice(-20)), "no part of a token in logs");
    }
  },
);

test.serial(
  "an insane X-Request-Id is replaced by a generated one, used in the response and the logs",
  async (t) => {
    const from = service.logLines.length;
    const response = await post(
      "/api/memory/recall",
      { query: "anything" },
      { "x-request-id": "bad id with spaces\u00e9" },
    );
    t.is(response.status, 200);
    const id = response.headers.get("x-request-id") ?? "";
    t.regex(id, /^[0-9a-f-]{36}$/);
    const lines = parsed(from);
    t.true(lines.length >= 2);
    for (const { line, log } of lines) t.is(log.reqId, id, line);
  },
);

test.serial(
  "the worker's log lines for a queued document carry the id of the request that queued it",
  async (t) => {
    const withWorker = await startTestService({ models: switchableModels(), captureLogs: true });
    t.teardown(() => withWorker.stop());
    const owner = await withWorker.createTenant();
    const response = await fetch(`${withWorker.httpUrl}/api/v1/documents`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${owner.token}`,
        "content-type": "application/json",
        "x-request-id": "queued-doc-7",
      },
      body: JSON.stringify({
        title: "Long",
        content: "Queued documents are indexed by the worker. ".repeat(300),
      }),
    });
    t.is(response.status, 202);
    const done = await waitFor(
      () =>
        withWorker.logLines
          .map((line) => JSON.parse(line) as LogLine)
          .find((log) => log.msg === "index-memory done"),
      { timeoutMs: 60_000, what: "the worker's index-memory log line" },
    );
    t.is(done.reqId, "queued-doc-7");
  },
);
