import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * The service's OpenTelemetry tracer (docs/observability.md "Tracing"). Until a composition root
 * registers a provider (OTEL_EXPORTER_OTLP_ENDPOINT set, apps/start-tracing.ts), the API hands out
 * non-recording spans and runs callbacks directly: tracing off costs a function call per span.
 * A leaf module: the edge, gateways and core all create spans through it.
 */
export const tracer = trace.getTracer("memory-service");

/** Runs `work` inside a span (the current one's child), recording a thrown error on it. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      span.end();
    }
  });
}
