import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import { FetchWebPageRequestSchema } from "../../gen/memory/v1/ingest_service_pb.js";
import { storedMemoryResult, uploadedDocumentSchema } from "../translate/stored-memory-result.js";
import { defineTool } from "./tool-definition.js";
import { TOOL_ICONS } from "./tool-icons.js";

const fields = FetchWebPageRequestSchema.field;

export const fetchWebPageInput = z.strictObject({
  url: protoString(fields.url, { required: true }).meta({
    description: "The page's address: an absolute http:// or https:// URL of a public web site.",
  }),
  title: protoString(fields.title).optional().meta({
    description:
      "Document title. Default: the title this URL's document already has, else the page's own title.",
  }),
});

export const fetchedWebPageSchema = uploadedDocumentSchema.extend({
  url: z.string().describe("The URL after redirects, stored as the document's source."),
  page_type: z.enum(["html", "markdown", "text", "pdf", "docx"]).describe("What the page was read as."),
  characters: z.number().int().describe("Characters of text extracted from the page and stored."),
});

/**
 * service_fetch_web_page (write) → IngestService.FetchWebPage (docs/ingest.md "Web pages"). The
 * service fetches the page itself, through its outbound guard. Fetching the same URL again replaces
 * its document (identical text: unchanged), so a retry is safe without an idempotency key.
 */
export const fetchWebPageTool = defineTool({
  name: "service_fetch_web_page",
  title: "Fetch a web page",
  description:
    "Fetch a public web page by its URL and store its main text (without navigation, footers or scripts) as a document, " +
    "so its passages can be recalled. Fetching the same URL again replaces the stored page with its current text. " +
    "Reads HTML, Markdown and plain text up to 5 MB; long pages (over 10,000 characters) are indexed in the background " +
    "(status 'queued'). For text you already have, use service_upload_document.",
  input: fetchWebPageInput,
  output: fetchedWebPageSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  icons: [TOOL_ICONS.web],
  async call(args, { clients, callOptions }) {
    const response = await clients.ingest.fetchWebPage(
      { url: args.url, ...(args.title !== undefined ? { title: args.title } : {}) },
      callOptions,
    );
    const hint = response.memory?.quota?.hint;
    return {
      structured: {
        ...storedMemoryResult(response.memory),
        replaced_document_ids: response.memory?.replacedDocumentIds ?? [],
        url: response.url,
        page_type: response.pageType as "html" | "markdown" | "text" | "pdf" | "docx",
        characters: response.characters,
      },
      ...(hint ? { note: hint } : {}),
    };
  },
});
