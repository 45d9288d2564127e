import { healthTool } from "./health.js";
import { linkTool } from "./link.js";
import { listRecentTool } from "./list-recent.js";
import { listRelationsTool } from "./list-relations.js";
import { recallTool } from "./recall.js";
import { recallAtTimeTool } from "./recall-at-time.js";
import { statsTool } from "./stats.js";
import { storeMemoryTool } from "./store-memory.js";
import type { RegisteredTool } from "./tool-definition.js";
import { unlinkTool } from "./unlink.js";
import { updateFactTool } from "./update-fact.js";
import { uploadDocumentTool } from "./upload-document.js";

/** The 11 tools of the spec's "MCP tools (11)" table, in its order; tools/list is authoritative. */
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
];

export const TOOLS_BY_NAME: ReadonlyMap<string, RegisteredTool> = new Map(TOOLS.map((t) => [t.name, t]));
