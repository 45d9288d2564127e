import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  FetchWebPageRequestSchema,
  type FetchWebPageResponse,
} from "../../gen/memory/v1/ingest_service_pb.js";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import { errorResponses } from "../error-schemas.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";
import { storedMemoryBody, storedMemorySchema } from "../stored-memory.js";

const fields = FetchWebPageRequestSchema.field;

/** docs/ingest.md "Web pages". */
export const webPageRequestSchema = z
  .strictObject({
    url: protoString(fields.url, { required: true }).describe("An http or https URL of a public host"),
    title: protoString(fields.title)
      .optional()
      .describe(
        "Unset: the title the URL's document already has, else the page's <title>, else the final URL",
      ),
  })
  .meta({ id: "WebPageFetchRequest" });

export const webPageStoredSchema = storedMemorySchema
  .extend({
    replacedDocumentIds: z
      .array(z.string())
      .describe("The earlier versions of this page's document that the new one replaced"),
    url: z.string().describe("The URL after redirects: the document's source"),
    pageType: z.enum(["html", "markdown", "text", "pdf", "docx"]).describe("What the page was read as"),
    characters: z.int().describe("Characters of the text extracted and stored"),
  })
  .meta({ id: "WebPageStored" });

/** POST /api/v1/documents/fetch → IngestService/FetchWebPage. */
export const documentFetchRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/documents/fetch",
    {
      schema: {
        ...describeOperation(options, {
          id: "fetchWebPage",
          summary: "Fetch a web page by URL and store it as a document",
          description:
            "The page is fetched by the service (http or https, public addresses only, at most 5 redirects, " +
            "15 s and 5 MB), HTML reduced to its main content as Markdown, and stored as a document with " +
            "source = the URL after redirects; fetching the same URL again replaces that document. " +
            "201 when stored and indexed; 202 when queued (over 10,000 characters); 200 with unchanged=true " +
            "when the page's text is what the document already holds. 400: the URL is refused; 413: the " +
            "page is too large; 415: not HTML, Markdown or plain text; 422: the page holds no text; " +
            "502: the page's server failed; 504: it did not answer in time.",
          tag: "documents",
          rpc: "memory.v1.IngestService/FetchWebPage",
        }),
        body: webPageRequestSchema,
        response: {
          200: webPageStoredSchema,
          201: webPageStoredSchema,
          202: webPageStoredSchema,
          ...errorResponses(options.auth, 402, 413, 415, 422, 502),
        },
      },
    },
    async (request, reply) => {
      const { url, title } = request.body;
      const result = await options.clients.ingest.fetchWebPage(
        { url, ...(title === undefined ? {} : { title }) },
        coreCall(request, options),
      );
      const status = result.memory?.unchanged
        ? 200
        : result.memory?.status === IndexStatus.QUEUED
          ? 202
          : 201;
      return reply.code(status).send(webPageBody(result));
    },
  );
};

export function webPageBody(result: FetchWebPageResponse) {
  return {
    ...storedMemoryBody(result.memory),
    replacedDocumentIds: result.memory?.replacedDocumentIds ?? [],
    url: result.url,
    pageType: result.pageType as "html" | "markdown" | "text" | "pdf" | "docx",
    characters: result.characters,
  };
}
