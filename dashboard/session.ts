/** GET /api/auth/session. */
export interface Session {
  readonly credential: "session" | "token";
  readonly userId: string | null;
  readonly email: string | null;
  readonly tenantId: string | null;
  readonly tenantSlug: string | null;
  readonly plan: string | null;
  readonly scopes: readonly string[];
  /** Feature words of the workspace's plan: byok, audit_export, webhooks, api_tokens. */
  readonly features?: readonly string[];
}

export const DASHBOARD = "/dashboard";

/** Goes to another dashboard page without reloading (the App listens to popstate). */
export function navigate(path: string): void {
  if (location.pathname + location.search === path) return;
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}
