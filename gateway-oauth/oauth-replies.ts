import type { FastifyReply, FastifyRequest } from "fastify";
import { toOAuthError } from "./oauth-errors.js";
import { errorPage, type Language } from "./oauth-pages.js";

/** Metadata, registration, token and revocation are called from browser-based clients too. */
export function openCors(reply: FastifyReply): FastifyReply {
  return reply
    .header("access-control-allow-origin", "*")
    .header("access-control-allow-headers", "authorization, content-type, mcp-protocol-version");
}

/**
 * An RFC error answer `{error, error_description}` of the JSON endpoints (RFC 6749 5.2); a client
 * that authenticated with HTTP Basic is told the Basic scheme on a 401 (RFC 6749 5.2 invalid_client).
 */
export function sendOAuthError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  basic = false,
): FastifyReply {
  const answer = toOAuthError(error);
  if (answer.status >= 500) request.log.error({ err: error }, "OAuth endpoint failed");
  if (answer.status === 401 && basic) reply.header("www-authenticate", 'Basic realm="oauth"');
  return openCors(reply)
    .code(answer.status)
    .headers(answer.headers)
    .header("cache-control", "no-store")
    .send({ error: answer.error, error_description: answer.description });
}

/** A page of the browser flow: never cached, never framed, no scripts. */
export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    )
    .send(body);
}

/**
 * A problem the user must see rather than the client (an unknown client, a redirect URI that is not
 * the client's, a core failure): an HTML page for browsers, the RFC JSON otherwise.
 */
export function showError(
  request: FastifyRequest,
  reply: FastifyReply,
  lang: Language,
  error: unknown,
): FastifyReply {
  const answer = toOAuthError(error);
  if (answer.status >= 500) request.log.error({ err: error }, "authorization endpoint failed");
  reply.code(answer.status).headers(answer.headers).header("cache-control", "no-store");
  if (request.headers.accept?.includes("text/html")) {
    return reply.type("text/html; charset=utf-8").send(errorPage(lang, answer.error, answer.description));
  }
  return reply.send({ error: answer.error, error_description: answer.description });
}

/**
 * The authorization response at the client's redirect URI (RFC 6749 4.1.2 / 4.1.2.1): 303, so the
 * browser follows a POSTed consent with a GET. RFC 9207: the issuer travels with every response,
 * code or error, so a client talking to several servers can tell which one answered (mix-up defence).
 */
export function redirectBack(
  reply: FastifyReply,
  issuer: string,
  redirectUri: string,
  values: Readonly<Record<string, string | undefined>>,
): FastifyReply {
  const target = new URL(redirectUri);
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) target.searchParams.set(key, value);
  }
  target.searchParams.set("iss", issuer);
  return reply.code(303).header("location", target.href).header("cache-control", "no-store").send();
}
