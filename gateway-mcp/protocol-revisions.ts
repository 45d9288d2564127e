/**
 * The MCP revisions this endpoint speaks (issue 47, item 1; docs/decisions/0420). One tool
 * implementation; what differs per revision is framing only, and every place that differs asks
 * this module which revision a request is on.
 *
 * - 2025-06-18: the spec's revision (fixed contract), `initialize` handshake, results as they are.
 * - 2025-11-25: the same handshake; icons on tools, form elicitation for erase confirmation.
 * - 2026-07-28: stateless; every request carries its version and capabilities in `_meta`,
 *   results carry `resultType`, list results cache hints, user input by multi round-trip.
 */
export const MODERN_REVISION = "2026-07-28";
export const LATEST_LEGACY_REVISION = "2025-11-25";
export const BASELINE_REVISION = "2025-06-18";

export type Revision = typeof MODERN_REVISION | typeof LATEST_LEGACY_REVISION | typeof BASELINE_REVISION;

/** Newest first, as server/discover and -32022 list them. */
export const SUPPORTED_REVISIONS: readonly Revision[] = [
  MODERN_REVISION,
  LATEST_LEGACY_REVISION,
  BASELINE_REVISION,
];

/** The revisions negotiated by `initialize` (the versioning page's "legacy" era). */
export const LEGACY_REVISIONS: readonly Revision[] = [LATEST_LEGACY_REVISION, BASELINE_REVISION];

export function isLegacyRevision(
  value: unknown,
): value is typeof LATEST_LEGACY_REVISION | typeof BASELINE_REVISION {
  return value === LATEST_LEGACY_REVISION || value === BASELINE_REVISION;
}

/**
 * Lifecycle "Version Negotiation" (2025-06-18 and 2025-11-25): a requested revision the server
 * speaks is echoed; otherwise the server names one it speaks. A client asking for something newer
 * than 2025-11-25 over `initialize` (a dual-era client that chose the handshake) gets 2025-11-25;
 * an older client gets 2025-06-18, the spec's revision, as before this change.
 */
export function negotiateLegacyRevision(
  requested: string,
): typeof LATEST_LEGACY_REVISION | typeof BASELINE_REVISION {
  if (isLegacyRevision(requested)) return requested;
  return requested > LATEST_LEGACY_REVISION ? LATEST_LEGACY_REVISION : BASELINE_REVISION;
}

/** Whether a revision lists tool icons (SEP-973, new in 2025-11-25). */
export function hasIcons(revision: Revision): boolean {
  return revision !== BASELINE_REVISION;
}

/** 2026-07-28 "_meta" reserved keys of the per-request protocol fields. */
export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/**
 * Client capabilities (either era) → whether form elicitation may be sent: `elicitation` declared,
 * with `form` or with no mode at all (2025-11-25 "Capabilities": an empty object means form only).
 */
export function supportsFormElicitation(capabilities: unknown): boolean {
  if (typeof capabilities !== "object" || capabilities === null) return false;
  const elicitation = (capabilities as Record<string, unknown>).elicitation;
  if (typeof elicitation !== "object" || elicitation === null || Array.isArray(elicitation)) return false;
  const modes = elicitation as Record<string, unknown>;
  return "form" in modes || !("url" in modes);
}
