import { ConnectError } from "@connectrpc/connect";
import type { GuardedResponse, OutboundGuard } from "../../../lib/net/outbound-guard.js";
import type { Database } from "../../store/database.js";
import { type ClientRow, findClient, oauthRejected } from "./oauth-rules.js";
import { type CheckedClientMetadata, checkClientMetadata } from "./register-oauth-client.js";

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document; MCP authorization
 * 2025-11-25 "Client ID Metadata Documents"; ADR 0400): a client with no registration here names
 * itself by an https URL, and the document at that URL is its registration. Core fetches it
 * through the product's one outbound guard (lib/net/outbound-guard.ts: no private or reserved
 * address, checked at connect time; no redirects), reads at most 5 KB within 5 s (after a DNS answer within 5 s), checks it with
 * the same rules as a dynamic registration, and keeps what it read in oauth_clients (keyed by the
 * URL), so codes and grants reference it like any client.
 */

/** The draft's recommended ceiling (6, "Maximum Response Size"). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5000;
/** Our bounds on the document's HTTP cache lifetime (draft 4.2 "Metadata Caching"). */
export const MIN_CACHE_MS = 60_000;
export const MAX_CACHE_MS = 24 * 3_600_000;
/** Without cache headers a document is reused for 10 minutes. */
export const DEFAULT_CACHE_MS = 10 * 60_000;
/** Documents kept per process; the oldest goes first. */
const MAX_CACHED = 1000;
/** The proto bounds client_id to 2,000 characters. */
const MAX_URL_LENGTH = 2000;

export interface ClientMetadataDocuments {
  /**
   * The client of a client ID metadata document URL: from the cache while it is fresh, else
   * fetched, checked and stored. Every problem is invalid_client naming it.
   */
  resolve(clientId: string): Promise<ClientRow>;
}

export interface ClientMetadataDocumentsOptions {
  readonly db: Database;
  /** The outbound guard; with allowPrivate (OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS) also http:// URLs. */
  readonly guard: OutboundGuard;
  readonly now?: () => number;
}

/** Whether a client_id names a metadata document rather than a registered client (a UUID). */
export const isClientIdUrl = (clientId: string): boolean =>
  clientId.startsWith("https://") || clientId.startsWith("http://");

/**
 * Draft 2 "Client Identifier URL": https, no userinfo, a path other than "/", no dot segments, no
 * fragment (and, being compared as plain strings, already in the normal form a URL parser gives).
 * http:// only where private URLs are allowed (development and tests; never the default).
 */
export function clientIdUrlProblem(clientId: string, allowHttp: boolean): string | undefined {
  if (clientId.length > MAX_URL_LENGTH) return `is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) return "must use https";
  if (url.username !== "" || url.password !== "") return "must not contain credentials";
  if (clientId.includes("#")) return "must not contain a fragment";
  if (url.pathname === "/" || url.pathname === "") return "must have a path (e.g. /oauth/client.json)";
  if (url.href !== clientId) return "must be in normal form, without dot segments";
  return undefined;
}

/**
 * Draft 4.2: respect the HTTP cache lifetime (RFC 9111 `max-age`) within our bounds; `no-store`
 * and `no-cache` mean the document is fetched on every use.
 */
export function cacheLifetimeMs(cacheControl: string | null): number {
  if (cacheControl === null) return DEFAULT_CACHE_MS;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const maxAge = directives.find((d) => d.startsWith("max-age="));
  if (maxAge === undefined) return DEFAULT_CACHE_MS;
  const seconds = Number(maxAge.slice("max-age=".length));
  if (!Number.isFinite(seconds) || seconds < 0) return DEFAULT_CACHE_MS;
  return Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, seconds * 1000));
}

const stringField = (doc: Record<string, unknown>, field: string): string | undefined => {
  const value = doc[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw refused(`${field} must be a string`);
  return value;
};

const stringList = (doc: Record<string, unknown>, field: string): string[] => {
  const value = doc[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw refused(`${field} must be an array of strings`);
  }
  return value as string[];
};

const refused = (why: string) => oauthRejected("invalid_client", `client metadata document: ${why}`);

export interface CheckedDocument extends CheckedClientMetadata {
  readonly softwareId: string | null;
  readonly softwareVersion: string | null;
}

/** The metadata of a fetched document, checked (draft 3, 3.1) with the registration rules. */
export function checkDocument(clientId: string, text: string): CheckedDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw refused("is not JSON");
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw refused("is not a JSON object");
  const fields = doc as Record<string, unknown>;
  if (fields.client_id !== clientId) throw refused("its client_id is not the URL it was fetched from");
  // Draft 3.1: no shared secrets in a document; private_key_jwt is not offered here (ADR 0400).
  if (fields.client_secret !== undefined || fields.client_secret_expires_at !== undefined) {
    throw refused("must not contain client_secret");
  }
  const method = stringField(fields, "token_endpoint_auth_method") ?? "none";
  if (method !== "none") {
    throw refused(`token_endpoint_auth_method '${method.slice(0, 40)}' is not supported; use none (PKCE)`);
  }
  const softwareId = stringField(fields, "software_id") ?? null;
  const softwareVersion = stringField(fields, "software_version") ?? null;
  try {
    const checked = checkClientMetadata({
      // client_name is optional (RFC 7591 2); without one — or a blank one — the client is called by
      // its document's host, the name the user can check (draft "OAuth Phishing Attacks").
      clientName: (stringField(fields, "client_name")?.trim() || new URL(clientId).host).slice(0, 200),
      redirectUris: stringList(fields, "redirect_uris"),
      tokenEndpointAuthMethod: method,
      grantTypes: stringList(fields, "grant_types"),
      responseTypes: stringList(fields, "response_types"),
      scope: stringField(fields, "scope"),
      clientUri: stringField(fields, "client_uri"),
      logoUri: stringField(fields, "logo_uri"),
      softwareId: softwareId ?? undefined,
      softwareVersion: softwareVersion ?? undefined,
    });
    return { ...checked, softwareId, softwareVersion };
  } catch (error) {
    // The registration rules' own words, as an invalid client (draft: the request is aborted).
    throw refused(error instanceof ConnectError ? error.rawMessage : "invalid metadata");
  }
}

/** Reads a body up to `limit` bytes; undefined when it is longer. */
async function readAtMost(body: ReadableStream<Uint8Array>, limit: number): Promise<string | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createClientMetadataDocuments(
  options: ClientMetadataDocumentsOptions,
): ClientMetadataDocuments {
  const { db, guard } = options;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { row: ClientRow; until: number }>();

  /** Draft 4: GET, 200 only, no redirects (the guard never follows one), bounded in size and time. */
  async function fetchDocument(clientId: string): Promise<{ text: string; lifetimeMs: number }> {
    const problem = await guard.urlProblem(clientId, {
      protocols: guard.allowPrivate ? ["https:", "http:"] : ["https:"],
    });
    if (problem !== undefined) throw refused(`${clientId.slice(0, 200)} ${problem}`);
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    const failed = (error: unknown) =>
      refused(
        signal.aborted
          ? `could not be fetched within ${FETCH_TIMEOUT_MS / 1000} s`
          : `could not be fetched (${fetchFailure(error)})`,
      );
    let response: GuardedResponse;
    try {
      response = await guard.fetch(clientId, {
        method: "GET",
        headers: { accept: "application/json" },
        signal,
      });
    } catch (error) {
      throw failed(error);
    }
    const { body } = response;
    if (response.status !== 200) {
      await body?.cancel().catch(() => undefined);
      throw refused(
        `fetching it answered HTTP ${response.status} (200 is required, redirects are not followed)`,
      );
    }
    if (!body || Number(response.headers.get("content-length") ?? "0") > MAX_DOCUMENT_BYTES) {
      await body?.cancel().catch(() => undefined);
      throw refused(`is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    let text: string | undefined;
    try {
      text = await readAtMost(body, MAX_DOCUMENT_BYTES);
    } catch (error) {
      throw failed(error);
    }
    if (text === undefined) throw refused(`is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    return { text, lifetimeMs: cacheLifetimeMs(response.headers.get("cache-control")) };
  }

  /** Stores what the document says; a changed document replaces the client's metadata. */
  async function store(clientId: string, m: CheckedDocument): Promise<ClientRow> {
    const [row] = await db.sql<ClientRow[]>`
      insert into oauth_clients (client_name, redirect_uris, token_endpoint_auth_method, secret_hash, scopes,
                                 grant_types, client_uri, logo_uri, software_id, software_version,
                                 metadata_url, metadata_fetched_at)
      values (${m.name}, ${m.redirectUris}, 'none', null, ${m.scopes}, ${m.grantTypes}, ${m.clientUri},
              ${m.logoUri}, ${m.softwareId}, ${m.softwareVersion}, ${clientId}, now())
      on conflict (metadata_url) do update set
        client_name = excluded.client_name, redirect_uris = excluded.redirect_uris, scopes = excluded.scopes,
        grant_types = excluded.grant_types, client_uri = excluded.client_uri, logo_uri = excluded.logo_uri,
        software_id = excluded.software_id, software_version = excluded.software_version,
        metadata_fetched_at = excluded.metadata_fetched_at
      returning *`;
    if (!row) throw new Error("client upsert returned no row");
    return row;
  }

  return {
    async resolve(clientId) {
      const problem = clientIdUrlProblem(clientId, guard.allowPrivate);
      if (problem !== undefined) throw refused(`client_id ${problem}`);
      const cached = cache.get(clientId);
      if (cached !== undefined && cached.until > now()) return cached.row;
      cache.delete(clientId);
      const { text, lifetimeMs } = await fetchDocument(clientId);
      const row = await store(clientId, checkDocument(clientId, text));
      // Draft 4.2: errors and invalid documents are never cached (they threw above).
      if (lifetimeMs > 0) {
        cache.set(clientId, { row, until: now() + lifetimeMs });
        if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value ?? clientId);
      }
      return row;
    },
  };
}

/** Why a fetch failed, for the user: the guard's refusal, or the network error's code. */
function fetchFailure(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.message === "string" && cause.code === "ERR_OUTBOUND_ADDRESS_BLOCKED") {
    return cause.message;
  }
  if (cause && typeof cause.code === "string") return cause.code;
  return error instanceof Error ? error.message.slice(0, 200) : "network error";
}

/**
 * The client of an authorization request: a metadata-document client read afresh (or from the
 * cache), a registered one from its row.
 */
export async function clientForAuthorization(
  deps: { readonly db: Database; readonly clientMetadataDocuments: ClientMetadataDocuments },
  clientId: string,
): Promise<ClientRow | undefined> {
  return isClientIdUrl(clientId)
    ? deps.clientMetadataDocuments.resolve(clientId)
    : findClient(deps.db.sql, clientId);
}
