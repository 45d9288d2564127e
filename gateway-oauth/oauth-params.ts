import type { FastifyRequest } from "fastify";
import { OAuthRequestError } from "./oauth-errors.js";

export const FORM = "application/x-www-form-urlencoded";

/** OAuth requests are small; anything larger is not one. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Request parameters as lists, so a repeated one can be refused (RFC 6749 3.1, 3.2). */
export type Params = Readonly<Record<string, readonly string[]>>;

export function paramsOf(source: unknown): Params {
  if (source instanceof URLSearchParams) {
    const out: Record<string, string[]> = {};
    for (const [key, value] of source) out[key] = [...(out[key] ?? []), value];
    return out;
  }
  if (source === null || typeof source !== "object") return {};
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === "string") out[key] = [value];
    else if (Array.isArray(value)) out[key] = value.filter((v): v is string => typeof v === "string");
  }
  return out;
}

/** One parameter: undefined when absent or empty, invalid_request when repeated. */
export function single(params: Params, name: string): string | undefined {
  const values = params[name];
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new OAuthRequestError("invalid_request", `parameter '${name}' is repeated`);
  return values[0] === "" ? undefined : values[0];
}

export function required(params: Params, name: string, error = "invalid_request"): string {
  const value = single(params, name);
  if (value === undefined) throw new OAuthRequestError(error, `parameter '${name}' is required`);
  return value;
}

/** RFC 6749 3.3 scope: space-separated words; undefined when absent. */
export function scopeWords(scope: string | undefined): string[] | undefined {
  if (scope === undefined) return undefined;
  return [...new Set(scope.split(" ").filter((w) => w !== ""))];
}

/** The token and revocation endpoints take form-encoded parameters only (RFC 6749 3.2, RFC 7009 2.1). */
export function requireForm(request: FastifyRequest): Params {
  const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (type !== FORM) throw new OAuthRequestError("invalid_request", `send the parameters as ${FORM}`);
  return paramsOf(request.body);
}
