import type { Logger } from "../config/logger.js";
import type { Shutdown } from "./shutdown.js";

/**
 * OpenTelemetry tracing, only when OTEL_EXPORTER_OTLP_ENDPOINT is set: a tracer provider with the
 * async-hooks context manager and W3C trace-context propagation, exporting spans in batches over
 * OTLP/HTTP to `${endpoint}/v1/traces`. The SDK is imported only then, so a process without tracing
 * loads none of it. Call before the parts that create spans start.
 */
export async function startTracing(
  tracing: { readonly otlpEndpoint?: string; readonly serviceName: string },
  logger: Logger,
  shutdown: Shutdown,
): Promise<boolean> {
  if (!tracing.otlpEndpoint) return false;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  const url = `${tracing.otlpEndpoint.replace(/\/+$/, "")}/v1/traces`;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": tracing.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 1000 })],
  });
  provider.register();
  // Pushed first, so it runs last: spans of the final requests are still flushed.
  shutdown.push(() => provider.shutdown());
  logger.info({ traces: url }, "tracing on");
  return true;
}
