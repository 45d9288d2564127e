import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { context, propagation, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  acceptRequestId,
  currentRequestId,
  REQUEST_ID_HEADER,
  runWithRequestId,
} from "../config/request-context.js";
import type { RecallResponse } from "../gen/memory/v1/recall_service_pb.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { tracer } from "../lib/tracing/tracer.js";

const RECALL_METHOD = "memory.v1.RecallService/Recall";

/**
 * First interceptor of core's chain: runs the call under the request id its gateway (or gRPC client)
 * sent, so core's log lines carry it, and records the call's duration by method and gRPC code. A
 * recall's stage timings, which core reports in the answer anyway, feed the stage histogram.
 */
export function createMetricsInterceptor(
  metrics: ServiceMetrics | undefined,
  transport: "grpc" | "in_process",
): Interceptor {
  return (next) => async (req) => {
    const given = req.header.get(REQUEST_ID_HEADER);
    // A gateway always sends its request's id; a direct gRPC client may, else the call gets one.
    const requestId = acceptRequestId(given);
    const method = `${req.service.typeName}/${req.method.name}`;
    // In process the gateway's span is current; a network caller may send a W3C traceparent.
    const parent =
      transport === "grpc"
        ? propagation.extract(context.active(), req.header, {
            get: (carrier, key) => carrier.get(key) ?? undefined,
            keys: (carrier) => [...carrier.keys()],
          })
        : context.active();
    const run = () =>
      tracer.startActiveSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { "rpc.method": method } },
        parent,
        (span) =>
          observe()
            .finally(() => span.end())
            .catch((error: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR });
              throw error;
            }),
      );
    const observe = async () => {
      const started = performance.now();
      let code = "OK";
      try {
        const res = await next(req);
        res.header.set(REQUEST_ID_HEADER, requestId);
        if (metrics && !res.stream && method === RECALL_METHOD) {
          for (const t of (res.message as RecallResponse).timings ?? []) {
            metrics.recallStages.observe({ stage: t.stage }, t.ms / 1000);
          }
        }
        return res;
      } catch (error) {
        const connectError = ConnectError.from(error);
        code = Code[connectError.code] ?? "Unknown";
        connectError.metadata.set(REQUEST_ID_HEADER, requestId);
        throw connectError;
      } finally {
        metrics?.coreCalls.observe({ method, code, transport }, (performance.now() - started) / 1000);
      }
    };
    // In process the gateway's context is already current; over the network it starts here.
    return currentRequestId() === requestId ? run() : runWithRequestId(requestId, run);
  };
}
