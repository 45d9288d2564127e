/** How the answer to a POST travels: one JSON object, or one Streamable HTTP server-sent event. */
export type ResponseFormat = "json" | "sse";

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(",")) {
    const [mediaType = "", ...parameters] = part.split(";").map((s) => s.trim().toLowerCase());
    const [type, subtype] = mediaType.split("/");
    if (!type || !subtype) continue;
    let q = 1;
    for (const parameter of parameters) {
      const match = /^q=([0-9.]+)$/.exec(parameter);
      if (match) q = Math.min(1, Math.max(0, Number(match[1]) || 0));
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** Quality of `type/subtype` under the most specific matching range (RFC 9110 §12.5.1); 0 if none. */
function qualityOf(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === "*"
          ? 1
          : range.type === "*" && range.subtype === "*"
            ? 0
            : -1;
    if (specificity >= 0 && (best === undefined || specificity > best.specificity)) {
      best = { specificity, q: range.q };
    }
  }
  return best?.q ?? 0;
}

/**
 * Spec "MCP endpoint": the default answer is a single JSON object; a client that asks for
 * text/event-stream gets Streamable HTTP frames. MCP clients send both types (the 2025-06-18
 * transport lets the server pick), so SSE is chosen only when the client prefers it by q-value or
 * does not accept JSON at all. Undefined: neither is acceptable (HTTP 406).
 */
export function negotiateResponseFormat(accept: string | undefined): ResponseFormat | undefined {
  if (accept === undefined || accept.trim() === "") return "json";
  const ranges = parseAccept(accept);
  const json = qualityOf(ranges, "application", "json");
  const sse = qualityOf(ranges, "text", "event-stream");
  if (json === 0 && sse === 0) return undefined;
  return sse > json ? "sse" : "json";
}

/**
 * Whether the client accepts an event stream at all (q > 0), whatever it prefers: a 2025-11-25
 * tools/call that must elicit answers as a stream even when plain JSON was preferred.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && qualityOf(parseAccept(accept), "text", "event-stream") > 0;
}
