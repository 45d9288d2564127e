/** A REST answer other than 2xx: the status and the body's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> | undefined,
  ) {
    super(message);
  }
}

/** The session's anti-CSRF token, put into the page by the server (never into browser storage). */
const csrfToken = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ?? "";

/**
 * One call of the public REST API with the session cookie (same origin). Every call carries the
 * anti-CSRF header, which the edge requires on writes (edge/csrf-guard.ts).
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (csrfToken) headers["x-csrf-token"] = csrfToken;
  // A FormData body (a file upload) is sent as multipart/form-data; the browser sets its boundary.
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!res.ok) {
    const record = typeof data === "object" && data !== null ? (data as Record<string, unknown>) : undefined;
    const message = record?.message ?? record?.error ?? `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, String(message), record);
  }
  return data as T;
}

/** The message to show for a failed call. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Spec "Plan-gate error body" (HTTP 402), the fields the dashboard shows. */
export interface PlanGate {
  readonly feature: string;
  readonly currentPlan: string;
  readonly requiredPlans: readonly string[];
}

/** The plan gate a failed call ran into, or undefined when it failed otherwise. */
export function planGateOf(error: unknown): PlanGate | undefined {
  if (!(error instanceof ApiError) || error.status !== 402) return undefined;
  const body = error.body ?? {};
  if (body.error !== "plan_upgrade_required") return undefined;
  const plans = Array.isArray(body.requiredPlans) ? body.requiredPlans.map(String) : [];
  return {
    feature: String(body.feature ?? ""),
    currentPlan: String(body.currentPlan ?? ""),
    requiredPlans: plans,
  };
}
