import { z } from "zod";
import type { RouteAuth } from "../gateway-kit/credentials.js";

/** Spec "Generic error body": `{ error: string }`. */
export const errorBodySchema = z
  .object({ error: z.string().describe("What went wrong, in words a user can act on") })
  .meta({ id: "ErrorBody" });

/** Spec "Plan-gate error body (HTTP 402)", returned verbatim from core's PlanGate detail. */
export const planGateBodySchema = z
  .object({
    error: z.literal("plan_upgrade_required"),
    feature: z.string(),
    currentPlan: z.string(),
    requiredPlans: z.array(z.string()),
    limit: z.int().optional().describe("memory-limit case"),
    used: z.int().optional().describe("memory-limit case"),
    message: z.string().optional().describe("plain text, memory-limit case"),
    upgradeUrl: z.string(),
  })
  .meta({ id: "PlanGateBody" });

/** Statuses any core call can answer (spec "HTTP status codes"), and those of credentials. */
const COMMON = [400, 429, 500, 501, 503, 504] as const;
const AUTHENTICATED = [401, 403] as const;

/**
 * Error responses of a route for its OpenAPI entry and serializer: the common ones, 401/403 unless
 * the route is public, plus `extra` (402 uses the plan-gate body, everything else the generic body).
 */
export function errorResponses(auth: RouteAuth, ...extra: number[]): Record<number, z.ZodType> {
  const statuses = new Set<number>([...COMMON, ...(auth === "none" ? [] : AUTHENTICATED), ...extra]);
  const responses: Record<number, z.ZodType> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    responses[status] = status === 402 ? planGateBodySchema : errorBodySchema;
  }
  return responses;
}
