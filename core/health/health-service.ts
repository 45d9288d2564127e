import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type Health,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";

export interface HealthServiceOptions {
  /** Names answered besides "" (the whole server): every memory.v1 service. */
  services: readonly string[];
  /** True while PostgreSQL answers. */
  isDatabaseUp: () => Promise<boolean>;
  /** Poll interval of Watch streams. */
  watchIntervalMs?: number;
}

/**
 * grpc.health.v1.Health for load balancers and orchestrators: SERVING while PostgreSQL (the source
 * of truth) answers, NOT_SERVING otherwise. Unknown service names are NOT_FOUND, as the protocol
 * asks. Written here because grpc-health-check only attaches to a grpc-js Server.
 */
export function createHealthService(options: HealthServiceOptions): ServiceImpl<typeof Health> {
  const known = new Set(["", ...options.services]);
  const interval = options.watchIntervalMs ?? 1000;

  async function statusOf(): Promise<HealthCheckResponse> {
    const up = await options.isDatabaseUp();
    return create(HealthCheckResponseSchema, {
      status: up ? ServingStatus.SERVING : ServingStatus.NOT_SERVING,
    });
  }

  return {
    async check(req) {
      if (!known.has(req.service)) throw new ConnectError(`unknown service ${req.service}`, Code.NotFound);
      return statusOf();
    },
    async list() {
      const statuses: Record<string, HealthCheckResponse> = {};
      for (const name of known) statuses[name] = await statusOf();
      return create(HealthListResponseSchema, { statuses });
    },
    async *watch(req, ctx) {
      if (!known.has(req.service)) {
        yield create(HealthCheckResponseSchema, { status: ServingStatus.SERVICE_UNKNOWN });
        return;
      }
      let last: ServingStatus | undefined;
      while (!ctx.signal.aborted) {
        const current = await statusOf();
        if (current.status !== last) {
          last = current.status;
          yield current;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, interval);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}
