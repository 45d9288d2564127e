import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";

// OpenTelemetry (issue 15 "Observability"): with OTEL_EXPORTER_OTLP_ENDPOINT set, a request's spans
// — HTTP, core RPC, recall stages, database transactions — reach an OTLP/HTTP receiver as one trace,
// continuing the caller's W3C traceparent. The receiver is a local fake that keeps what it is sent.

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
}
const received: OtlpSpan[] = [];
let receiver: Server;
let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString("utf8");
    });
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.includes("json")) {
        const parsed = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  service = await startTestService({
    models: testModels(),
    worker: false,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
  });
  tenant = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
  receiver?.close();
});

test("a recall's spans (HTTP, RPC, recall stages, database) arrive as one trace continuing the caller's", async (t) => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const response = await fetch(`${service.httpUrl}/api/memory/recall`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tenant.token}`,
      "content-type": "application/json",
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    },
    body: JSON.stringify({ query: "traced recall" }),
  });
  t.is(response.status, 200);
  const spans = await waitFor(
    () => {
      const mine = received.filter((s) => s.traceId === traceId);
      return mine.some((s) => s.name === "POST /api/memory/recall") ? mine : undefined;
    },
    { timeoutMs: 15_000, what: "the request's spans at the OTLP receiver" },
  );
  const byName = (name: string) => spans.find((s) => s.name === name);
  const http = byName("POST /api/memory/recall");
  const rpc = byName("memory.v1.RecallService/Recall");
  t.truthy(http);
  t.is(http?.parentSpanId, "00f067aa0ba902b7", "the HTTP span continues the caller's traceparent");
  t.is(rpc?.parentSpanId, http?.spanId, "core's span is the HTTP span's child");
  for (const stage of ["recall.fulltext", "recall.vector"]) {
    t.truthy(byName(stage), `${stage} in ${spans.map((s) => s.name).join(", ")}`);
  }
  t.true(spans.some((s) => s.name === "db.transaction"));
});
