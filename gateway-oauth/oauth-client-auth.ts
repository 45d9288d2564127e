import type { FastifyRequest } from "fastify";
import { OAuthRequestError } from "./oauth-errors.js";
import { type Params, single } from "./oauth-params.js";

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  /** Whether the client authenticated with HTTP Basic (a 401 then names the Basic scheme). */
  readonly basic: boolean;
}

/**
 * RFC 6749 2.3.1: client_secret_basic (Authorization: Basic, form-encoded id and secret) or
 * client_id (+ client_secret) in the body; a public client sends only client_id. Using both
 * methods at once is invalid_request.
 */
export function clientCredentials(request: FastifyRequest, form: Params): ClientCredentials {
  const header = request.headers.authorization;
  const bodyId = single(form, "client_id");
  const bodySecret = single(form, "client_secret");
  if (header?.startsWith("Basic ")) {
    if (bodySecret !== undefined) {
      throw new OAuthRequestError(
        "invalid_request",
        "send client credentials either in the header or in the body",
      );
    }
    const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 1) throw new OAuthRequestError("invalid_client", "malformed Basic credentials", 401);
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replaceAll("+", " "));
      } catch {
        throw new OAuthRequestError("invalid_client", "malformed Basic credentials", 401);
      }
    };
    const clientId = decode(decoded.slice(0, colon));
    if (bodyId !== undefined && bodyId !== clientId) {
      throw new OAuthRequestError("invalid_request", "client_id differs from the Basic credentials");
    }
    return { clientId, clientSecret: decode(decoded.slice(colon + 1)), basic: true };
  }
  if (bodyId === undefined) throw new OAuthRequestError("invalid_client", "client_id is required", 401);
  return { clientId: bodyId, clientSecret: bodySecret, basic: false };
}
