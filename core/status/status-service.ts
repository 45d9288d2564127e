import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type ComponentStatus,
  ComponentStatusSchema,
  GetStatusResponseSchema,
  type StatusService,
} from "../../gen/memory/v1/status_service_pb.js";
import { principalKey } from "../auth/principal.js";

/** One dependency's check: "ok", "degraded" or "down", with a short detail. */
export interface ComponentCheck {
  readonly name: string;
  /** Whether the service can work without it ("degraded" instead of "down"). */
  readonly optional: boolean;
  /**
   * Reported, but never changes the overall status: facts about the caller's workspace (its embedding
   * space) rather than a dependency. A slow answer on a loaded database must not turn health degraded.
   */
  readonly informational?: boolean;
  check(): Promise<{ status: "ok" | "degraded" | "down"; detail: string }>;
}

export interface StatusServiceOptions {
  service: string;
  version: string;
  embeddingProvider: () => string;
  reranker: () => string;
  components: readonly ComponentCheck[];
  /** Checks of the caller's own workspace (e.g. its embedding space and re-embed progress), appended when the caller has one. */
  tenantComponents?: (tenantId: string) => readonly ComponentCheck[];
  /** A check slower than this counts as down. */
  timeoutMs?: number;
}

/**
 * Informational checks read the workspace's own rows on the shared pool; on a hung database they
 * must not hold the answer past the dependency checks' deadline (the 503 in under 2 s of issue 15).
 */
const INFORMATIONAL_TIMEOUT_MS = 1000;

async function run(component: ComponentCheck, timeoutMs: number): Promise<ComponentStatus> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ status: "down"; detail: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: "down", detail: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    const result = await Promise.race([component.check(), timeout]);
    return create(ComponentStatusSchema, {
      name: component.name,
      status: result.status === "down" && component.optional ? "degraded" : result.status,
      detail: result.detail,
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
    });
  } catch (error) {
    return create(ComponentStatusSchema, {
      name: component.name,
      status: component.optional ? "degraded" : "down",
      detail: error instanceof Error ? error.message : String(error),
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** REST /api/health and MCP service_health: every dependency checked in parallel. */
export function createStatusService(options: StatusServiceOptions): ServiceImpl<typeof StatusService> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return {
    async getStatus(_request, ctx) {
      const principal = ctx.values.get(principalKey);
      const tenantId = principal.kind === "anonymous" ? undefined : principal.tenantId;
      const checks = [
        ...options.components,
        ...(tenantId && options.tenantComponents ? options.tenantComponents(tenantId) : []),
      ];
      const components = await Promise.all(
        checks.map((c) =>
          run(c, c.informational ? Math.min(timeoutMs, INFORMATIONAL_TIMEOUT_MS) : timeoutMs),
        ),
      );
      const counted = components.filter((_, i) => checks[i]?.informational !== true);
      const status = counted.some((c) => c.status === "down")
        ? "down"
        : counted.some((c) => c.status === "degraded")
          ? "degraded"
          : "ok";
      return create(GetStatusResponseSchema, {
        status,
        service: options.service,
        version: options.version,
        components,
        embeddingProvider: options.embeddingProvider(),
        reranker: options.reranker(),
      });
    },
  };
}
