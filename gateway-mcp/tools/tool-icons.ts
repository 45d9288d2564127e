import type { Icon } from "@modelcontextprotocol/sdk/types.js";

/**
 * Tool icons (MCP 2025-11-25 "icons", SEP-973): small stroke SVGs as `data:` URIs, so a client
 * fetches nothing (no credentials, no third-party origin, no redirect: the spec's icon security
 * rules hold trivially) and the tools/list answer stays the same on every replica. Scalable, so
 * `sizes: ["any"]`; dark grey strokes on a transparent background, which
 * reads on light themes — no `theme` is claimed.
 */
function svgIcon(paths: string): Icon {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1f2937" ' +
    `stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${paths}</svg>`;
  return {
    src: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
    mimeType: "image/svg+xml",
    sizes: ["any"],
  };
}

export const TOOL_ICONS = {
  /** Magnifier: recall. */
  search: svgIcon('<circle cx="11" cy="11" r="7"/><path d="m20 20-4-4"/>'),
  /** Clock: recall at a past instant. */
  history: svgIcon('<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>'),
  /** Three connected nodes: relations of a memory. */
  graph: svgIcon(
    '<circle cx="6" cy="6" r="2.5"/><circle cx="18" cy="8" r="2.5"/><circle cx="9" cy="18" r="2.5"/><path d="M8.3 7.2 15.6 7.7M7 8.4l1.4 7.2M16.6 10.1l-5.6 6.3"/>',
  ),
  /** Pulse line: health. */
  health: svgIcon('<path d="M3 12h4l2-5 4 10 2-5h6"/>'),
  /** Bars: stats and quota. */
  stats: svgIcon('<path d="M5 20V11M12 20V5M19 20v-6"/>'),
  /** Lines: recent memories. */
  list: svgIcon('<path d="M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01"/>'),
  /** Plus in a box: store a memory. */
  add: svgIcon('<rect x="4" y="4" width="16" height="16" rx="2"/><path d="M12 8v8M8 12h8"/>'),
  /** Speech bubble: store a conversation. */
  conversation: svgIcon('<path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/>'),
  /** Page: upload a document. */
  document: svgIcon(
    '<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5M9 13h6M9 17h6"/>',
  ),
  /** Globe: fetch a web page. */
  web: svgIcon(
    '<circle cx="12" cy="12" r="9"/><path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18"/>',
  ),
  /** Pencil: update a fact. */
  edit: svgIcon('<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="m13 7 4 4"/>'),
  /** Chain: link two memories. */
  link: svgIcon(
    '<path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1"/><path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1"/>',
  ),
  /** Broken chain: unlink. */
  unlink: svgIcon(
    '<path d="M15 9l3-3a3 3 0 0 0-4.2-4.2L11 4.6M9 15l-3 3a3 3 0 0 0 4.2 4.2L13 19.4M4 4l16 16"/>',
  ),
  /** Bin: erase a memory. */
  erase: svgIcon('<path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3"/>'),
} as const satisfies Record<string, Icon>;
