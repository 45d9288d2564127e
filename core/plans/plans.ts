/** The plans of the spec's REST API; one table below maps each to its limits. */
export type PlanName = "free" | "plus" | "pro" | "team" | "api";

/**
 * The one table of plan limits and features (DESIGN "Plans"). REST plan names map onto the
 * rate-limit/retention names of the spec: free → Privat; plus → Privat limits with paid features
 * (BYOK); pro → Pro; team → Team; api → Business (API tokens, MCP 60/60 s per IP). Enterprise is a
 * per-tenant override (`tenants.limits_override`), not a plan of its own.
 */
export interface PlanLimits {
  /** Name of the spec's limit tables. */
  readonly tier: "Privat" | "Pro" | "Team" | "Business" | "Enterprise";
  /** Unset: unlimited. */
  readonly memoryLimit?: number;
  readonly requestsPerMinutePerToken: number;
  readonly auditRetentionDays: number;
  /** MCP requests per IP per 60 s; unset: no per-IP limit. */
  readonly mcpRequestsPerMinutePerIp?: number;
  readonly features: ReadonlySet<Feature>;
}

export type Feature = "byok" | "api_tokens" | "audit_export" | "webhooks";

const PRIVAT = { memoryLimit: 2500, requestsPerMinutePerToken: 30, auditRetentionDays: 30 } as const;

export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: { tier: "Privat", ...PRIVAT, features: new Set() },
  plus: { tier: "Privat", ...PRIVAT, features: new Set(["byok"]) },
  pro: {
    tier: "Pro",
    requestsPerMinutePerToken: 60,
    auditRetentionDays: 90,
    features: new Set(["byok", "audit_export"]),
  },
  team: {
    tier: "Team",
    requestsPerMinutePerToken: 120,
    auditRetentionDays: 365,
    features: new Set(["byok", "audit_export", "webhooks"]),
  },
  api: {
    tier: "Business",
    requestsPerMinutePerToken: 120,
    auditRetentionDays: 730,
    mcpRequestsPerMinutePerIp: 60,
    features: new Set(["byok", "audit_export", "webhooks", "api_tokens"]),
  },
};

/**
 * The dashboard's own budget per session per minute on every plan (ADR 0450): its calls are not
 * counted against the plan's per-credential limit (a free plan's 30 would be spent by loading a few
 * pages), yet still limited against a runaway script.
 */
export const DASHBOARD_REQUESTS_PER_MINUTE_PER_SESSION = 300;

export const ENTERPRISE_DEFAULTS = { requestsPerMinutePerToken: 600, auditRetentionDays: 1825 } as const;

/** Which plans unlock a feature, cheapest first (for the plan-gate body's requiredPlans). */
export function plansWith(feature: Feature): PlanName[] {
  return (Object.keys(PLANS) as PlanName[]).filter((p) => PLANS[p].features.has(feature));
}

/** Per-tenant overrides stored in tenants.limits_override (Enterprise contracts, tests, eval). */
export interface LimitsOverride {
  memoryLimit?: number | null;
  requestsPerMinutePerToken?: number;
  auditRetentionDays?: number;
  mcpRequestsPerMinutePerIp?: number | null;
}

export function limitsFor(plan: PlanName, override: LimitsOverride = {}): PlanLimits {
  const base = PLANS[plan];
  const memoryLimit = override.memoryLimit === null ? undefined : (override.memoryLimit ?? base.memoryLimit);
  const mcp =
    override.mcpRequestsPerMinutePerIp === null
      ? undefined
      : (override.mcpRequestsPerMinutePerIp ?? base.mcpRequestsPerMinutePerIp);
  const overridden = Object.keys(override).length > 0;
  return {
    tier: overridden ? "Enterprise" : base.tier,
    ...(memoryLimit === undefined ? {} : { memoryLimit }),
    requestsPerMinutePerToken: override.requestsPerMinutePerToken ?? base.requestsPerMinutePerToken,
    auditRetentionDays: override.auditRetentionDays ?? base.auditRetentionDays,
    ...(mcp === undefined ? {} : { mcpRequestsPerMinutePerIp: mcp }),
    features: base.features,
  };
}
