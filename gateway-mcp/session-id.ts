import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { GetSessionResponse } from "../gen/memory/v1/tenancy_service_pb.js";

/**
 * 2025-11-25 Mcp-Session-Id values (ADR 0425): `<payload>.<principal tag>`. The payload is
 * base64url JSON naming the revision, whether the client declared form elicitation, and a random
 * nonce (two sessions of one caller differ); the tag is a hash of the workspace and the token — for
 * an OAuth access token its grant, which a refresh keeps. Not derived from the bearer secret, so a
 * refreshed token keeps its session; bound to the principal, so another token or workspace cannot
 * use it. No server secret is needed: the tag is compared with the tag of the caller core just
 * authenticated, so a forged id can only ever name the forger's own principal.
 */
export interface McpSession {
  /** The header value as the client sent it (elicitation answers are filed under it). */
  readonly id: string;
  readonly elicitation: boolean;
  readonly principalTag: string;
}

const MAX_LENGTH = 512;
const PRINCIPAL_TAG_LENGTH = 32;

/** Who the caller is, as far as a session cares: the workspace and the token (or user). */
export function principalTagOf(caller: GetSessionResponse): string | undefined {
  const who = caller.tokenId
    ? `token:${caller.tokenId}`
    : caller.userId
      ? `user:${caller.userId}`
      : undefined;
  if (who === undefined || !caller.tenantId) return undefined;
  return createHash("sha256")
    .update(`mcp-session\u0000${caller.tenantId}\u0000${who}`)
    .digest("base64url")
    .slice(0, PRINCIPAL_TAG_LENGTH);
}

/** A new session id for the caller, or undefined when the caller has no principal to bind it to. */
export function issueSessionId(
  caller: GetSessionResponse,
  value: { revision: string; elicitation: boolean },
): string | undefined {
  const tag = principalTagOf(caller);
  if (tag === undefined) return undefined;
  const payload = Buffer.from(
    JSON.stringify({ ...value, nonce: randomBytes(12).toString("base64url") }),
  ).toString("base64url");
  return `${payload}.${tag}`;
}

/** The session an Mcp-Session-Id header names, or undefined when it is not one of ours. */
export function readSessionId(header: string | string[] | undefined): McpSession | undefined {
  if (typeof header !== "string" || header.length > MAX_LENGTH) return undefined;
  const dot = header.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const principalTag = header.slice(dot + 1);
  if (principalTag.length !== PRINCIPAL_TAG_LENGTH) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(header.slice(0, dot), "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    return {
      id: header,
      elicitation: (value as { elicitation?: unknown }).elicitation === true,
      principalTag,
    };
  } catch {
    return undefined;
  }
}

/** Whether the session was issued to this caller (same workspace and token or OAuth grant). */
export function belongsTo(session: McpSession, caller: GetSessionResponse): boolean {
  const tag = principalTagOf(caller);
  if (tag === undefined) return false;
  const a = Buffer.from(session.principalTag);
  const b = Buffer.from(tag);
  return a.length === b.length && timingSafeEqual(a, b);
}
