import { eraseMemoryTool } from "./erase-memory.js";
import { fetchWebPageTool } from "./fetch-web-page.js";
import { healthTool } from "./health.js";
import { linkTool } from "./link.js";
import { listRecentTool } from "./list-recent.js";
import { listRelationsTool } from "./list-relations.js";
import { recallTool } from "./recall.js";
import { recallAtTimeTool } from "./recall-at-time.js";
import { statsTool } from "./stats.js";
import { storeConversationTool } from "./store-conversation.js";
import { storeMemoryTool } from "./store-memory.js";
import type { RegisteredTool } from "./tool-definition.js";
import { unlinkTool } from "./unlink.js";
import { updateFactTool } from "./update-fact.js";
import { uploadDocumentTool } from "./upload-document.js";

/**
 * The tools in the order tools/list gives them, the same on every call and every replica: the 11 of
 * the spec's "MCP tools (11)" table in its order, then this service's additions in the order they
 * were added (docs/mcp.md "Tools"). A new tool goes at the end, so a client that caches the list or
 * compares it sees the old tools where they were.
 */
export const TOOLS: readonly RegisteredTool[] = [
  recallTool,
  recallAtTimeTool,
  listRelationsTool,
  healthTool,
  statsTool,
  listRecentTool,
  storeMemoryTool,
  uploadDocumentTool,
  updateFactTool,
  linkTool,
  unlinkTool,
  // Additions beyond the spec's table, in the order they were added.
  eraseMemoryTool, // issue 47, item 5
  storeConversationTool, // issue 48, item 3
  fetchWebPageTool, // issue 48, item 2
];

export const TOOLS_BY_NAME: ReadonlyMap<string, RegisteredTool> = new Map(TOOLS.map((t) => [t.name, t]));
