import { type Context, context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { FastifyInstance } from "fastify";
import { REQUEST_ID_HEADER, runWithRequestId } from "../config/request-context.js";
import type { ServiceMetrics } from "../lib/metrics/service-metrics.js";
import { tracer } from "../lib/tracing/tracer.js";

/** Label of requests that matched no route: never the raw URL (unbounded, may carry secrets). */
const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The request id is current for everything a request runs (core calls and their log lines):
 * from the first hook, and again before the handler, since body parsing (stream events) runs
 * outside the async context the first hook entered.
 * The same for the request's trace span (a child of an incoming W3C traceparent); with tracing
 * off the span does not record and the context calls run their callback directly.
 */
export function installRequestContext(app: FastifyInstance): void {
  const traceContexts = new WeakMap<object, Context>();
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": request.method, "request.id": request.id },
      },
      parent,
    );
    const traced = trace.setSpan(parent, span);
    traceContexts.set(request, traced);
    context.with(traced, () => runWithRequestId(String(request.id), done));
  });
  app.addHook("preHandler", (request, _reply, done) => {
    context.with(traceContexts.get(request) ?? context.active(), () =>
      runWithRequestId(String(request.id), done),
    );
  });
  app.addHook("onResponse", (request, reply, done) => {
    const span = trace.getSpan(traceContexts.get(request) ?? context.active());
    if (span) {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": reply.statusCode });
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}

/** Every answered request into the HTTP request histogram, by method, route pattern and status. */
export function installHttpMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook("onResponse", (request, reply, done) => {
    metrics.httpRequests.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
