import { clientIpOf, tenantCaller } from "../auth/caller.js";
import { exportAudit } from "./export-audit.js";
import { exportTenant } from "./export-tenant.js";
import type { TenancyHandlers, TenancyServiceDeps } from "./tenancy-deps.js";

/** The export streams' byte chunks as response messages. */
async function* asChunks(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<{ chunk: Uint8Array }> {
  for await (const chunk of bytes) yield { chunk };
}

/** The workspace's exports: its audit log (CSV) and its whole content (the bundle). */
export function exportRpcs(deps: TenancyServiceDeps): TenancyHandlers<"exportAudit" | "exportTenant"> {
  return {
    // Not generators: the caller check and the plan gate throw before the stream starts, so the
    // error interceptor and the gateways see them as a plain refusal (402, 401), not a cut stream.
    exportAudit(_req, ctx) {
      return asChunks(exportAudit(deps, tenantCaller(ctx), { ip: clientIpOf(ctx), signal: ctx.signal }));
    },

    exportTenant(_req, ctx) {
      return asChunks(exportTenant(deps, tenantCaller(ctx), { ip: clientIpOf(ctx), signal: ctx.signal }));
    },
  };
}
