import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../../gen/memory/v1/errors_pb.js";
import {
  type FetchWebPageRequest,
  type FetchWebPageResponse,
  FetchWebPageResponseSchema,
} from "../../../gen/memory/v1/ingest_service_pb.js";
import type { OutboundGuard } from "../../../lib/net/outbound-guard.js";
import type { TenantCaller } from "../../auth/caller.js";
import { coreError, invalidArgument, type SentErrorReason } from "../../errors.js";
import { checkDocumentSize, type WriteNewMemoryDeps } from "../../memories/index.js";
import { ExtractionFailure } from "../extract/file-types.js";
import { storedMemoryResult } from "../stored-memory-result.js";
import { FILE_METADATA_KEY } from "../upload-file.js";
import { writeDocument } from "../write-document.js";
import { fetchWebPage, WebFetchFailure, type WebFetchLimits } from "./fetch-web-page.js";
import { readWebPage, SUPPORTED_PAGE_TYPES, UnsupportedPage } from "./read-web-page.js";
import { webPageTitle } from "./web-page-title.js";

/** How core fetches web pages: the guard (WEB_FETCH_ALLOW_PRIVATE_URLS) and the limits. */
export interface WebFetchDeps {
  readonly guard: OutboundGuard;
  readonly limits: WebFetchLimits;
}

export type StoreWebPageDeps = WriteNewMemoryDeps & { readonly webFetch: WebFetchDeps };

/** A page title longer than this is cut (titles are names, and they are shown in lists). */
const MAX_PAGE_TITLE = 300;

/**
 * FetchWebPage (docs/ingest.md "Web pages", ADR 0510): fetch through the outbound guard, read the
 * page (HTML's main content as Markdown), store it as UploadDocument stores content — upsert by title,
 * inline up to 10,000 characters, queued above — with source = the final URL. Nothing is stored when
 * the fetch or the reading fails.
 */
export async function storeWebPage(
  deps: StoreWebPageDeps,
  caller: TenantCaller,
  request: FetchWebPageRequest,
): Promise<FetchWebPageResponse> {
  const requestedUrl = request.url.trim();
  const page = await fetchWebPage(deps.webFetch.guard, requestedUrl, deps.webFetch.limits).catch(
    (error: unknown) => {
      throw error instanceof WebFetchFailure ? fetchError(error) : error;
    },
  );
  const noText = () =>
    coreError(Code.InvalidArgument, ErrorReason.NO_TEXT, `the page at ${page.url} holds no text`, {
      field: "url",
    });
  if (page.body.length === 0) throw noText();
  const read = await readWebPage(page).catch((error: unknown) => {
    throw readError(error);
  });
  if (!/\S/u.test(read.text)) throw noText();
  checkDocumentSize(read.text);
  const given = request.title?.trim() ?? "";
  const title =
    given !== ""
      ? given
      : await webPageTitle(deps.db, caller.tenantId, {
          url: page.url,
          requestedUrl,
          pageTitle: read.title.slice(0, MAX_PAGE_TITLE),
        });
  const outcome = await writeDocument(
    deps,
    caller,
    {
      content: read.text,
      title,
      source: page.url,
      // As an uploaded file records it (docs/ingest.md "Files"): recall cites a PDF hit's pages.
      ...(read.pageStarts === undefined
        ? {}
        : {
            metadata: {
              [FILE_METADATA_KEY]: {
                name: page.url,
                type: read.type,
                bytes: page.body.length,
                pages: read.pageStarts.length,
                pageStarts: [...read.pageStarts],
              },
            },
          }),
    },
    { dedupe: true, mode: "auto" },
  );
  return create(FetchWebPageResponseSchema, {
    memory: storedMemoryResult({ ...outcome, embeddingProvider: deps.embedder.id }),
    url: page.url,
    pageType: read.type,
    characters: read.text.length,
  });
}

/** The page could not be read: another type (415), no text (422), too much for the extractors (413). */
function readError(error: unknown): unknown {
  const fail = (reason: SentErrorReason, message: string) =>
    coreError(Code.InvalidArgument, reason, message, { field: "url" });
  if (error instanceof UnsupportedPage) return fail(ErrorReason.UNSUPPORTED_MEDIA_TYPE, error.message);
  if (!(error instanceof ExtractionFailure)) return error;
  switch (error.kind) {
    case "unsupported":
      return fail(ErrorReason.UNSUPPORTED_MEDIA_TYPE, `${error.message}; fetch ${SUPPORTED_PAGE_TYPES}`);
    case "no_text":
      return fail(ErrorReason.NO_TEXT, error.message);
    case "too_large":
      return fail(ErrorReason.TOO_LARGE, error.message);
  }
}

/** The one mapping of fetch failures to core's errors (REST 400 / 413 / 504 / 502). */
function fetchError(failure: WebFetchFailure) {
  switch (failure.kind) {
    case "refused":
      return invalidArgument("url", failure.message);
    case "too_large":
      return coreError(Code.InvalidArgument, ErrorReason.TOO_LARGE, failure.message, { field: "url" });
    case "timeout":
      return coreError(Code.DeadlineExceeded, ErrorReason.FETCH_TIMEOUT, failure.message, { field: "url" });
    case "failed":
      return coreError(Code.Unavailable, ErrorReason.FETCH_FAILED, failure.message, { field: "url" });
  }
}
