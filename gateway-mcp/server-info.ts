import { MCP_RESOURCE_PATH } from "../lib/gateway-metadata.js";
/** Where the MCP endpoint lives (spec "MCP endpoint"). */
export const MCP_PATH = MCP_RESOURCE_PATH;

/**
 * Spec: "MCP protocol version: 2025-06-18" — the fixed contract's revision, still served as it was;
 * 2025-11-25 and 2026-07-28 are spoken beside it (protocol-revisions.ts, docs/decisions/0420).
 */
export const PROTOCOL_VERSION = "2025-06-18";

/** The service's name as MCP clients show it; the same name core's status reports. */
export const SERVER_NAME = "memory-service";
export const SERVER_TITLE = "Memory service";

/**
 * The largest POST body. Content may be up to 1,000,000 characters (spec: too_large above that);
 * JSON-escaped and UTF-8 encoded that can take several bytes per character, so the limit leaves
 * room for core to answer too_large itself instead of the transport cutting the request off.
 */
export const MCP_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Response headers a browser page on an allowed origin (CORS_ORIGINS) must be able to read from the
 * endpoint (Access-Control-Expose-Headers): the session id to send back, the 401/403 challenge that
 * starts (step-up) authorization, and how long to wait after a 429. The CORS safelist has none.
 */
export const MCP_EXPOSED_HEADERS = ["Mcp-Session-Id", "WWW-Authenticate", "Retry-After"] as const;

/** A core call that has not answered within this is given up (-32006, spec 504 class). */
export const CORE_CALL_TIMEOUT_MS = 30_000;

/** initialize's `instructions`: how an assistant should use this server, in a few sentences. */
export const SERVER_INSTRUCTIONS = [
  "Persistent memory for this workspace: a knowledge graph of memories with full-text, vector and graph recall.",
  "Before answering questions about the user's projects, people, decisions or earlier conversations, call service_recall.",
  "Save durable facts with service_store_memory (append-only); when a stored fact changed, use service_update_fact on the old memory instead of storing a contradicting one.",
  "Relate memories with service_link (UPPER_SNAKE_CASE relation types such as REFERENCES); service_recall_at_time answers what was true at a past instant.",
  "Only when the user asks to delete something for good, service_erase_memory erases it: if the client can ask the user, the server asks for confirmation itself; otherwise call it without confirm, show the user what it names, and call again with confirm: true only after they agree.",
].join(" ");
