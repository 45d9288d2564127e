import type { StripeConfig } from "../../config/config.js";
import type { Logger } from "../../config/logger.js";
import type { MemoryBudget } from "../../lib/memory-budget/memory-budget.js";
import type { ServiceMetrics } from "../../lib/metrics/service-metrics.js";
import type { RateLimiters } from "../../lib/rate-limit/rate-limiters.js";
import type { PlanName } from "../auth/principal.js";
import type { WebFetchLimits } from "../ingest/web/fetch-web-page.js";
import type { TenantModelsOptions } from "../keys/tenant-models.js";
import type { EmbeddingProvider } from "../models/embedding-provider.js";
import type { Lexicon } from "../models/lexicon/lexicon.js";
import type { Reranker } from "../models/reranker.js";
import type { Thesaurus } from "../models/thesaurus/thesaurus.js";
import type { ComponentCheck } from "../status/status-service.js";
import type { Database } from "../store/database.js";
import type { VectorStore } from "../vectors/vector-store.js";

/** What core is built from (apps/ and the tests pass them; createCore builds each service once). */
export interface CoreOptions {
  readonly db: Database;
  readonly vectors: VectorStore;
  readonly embedder: EmbeddingProvider;
  readonly reranker: Reranker | undefined;
  /** FreeDict lexicon for recall's cross-lingual query expansion (docs/recall.md); unset: none. */
  readonly lexicon?: Lexicon | undefined;
  /** Thesauri for recall's synonym expansion (ADR 0520); unset: none. */
  readonly thesaurus?: Thesaurus | undefined;
  readonly logger: Logger;
  readonly version: string;
  readonly publicUrl: string;
  /**
   * Whether the network gRPC server believes a caller's x-client-ip (TRUST_PROXY: gateways on a
   * private network). The in-process gateways are always believed.
   */
  readonly trustClientIp: boolean;
  /** Whether a worker is running (in process, or alive per heartbeat). */
  readonly workerCheck: ComponentCheck;
  /**
   * Store of the per-token and MCP per-IP limits (Redis or memory), shared with the edge's per-IP
   * limits; default: in-memory limiters of this core alone.
   */
  readonly rateLimiters?: RateLimiters;
  /** Magic-link mail (SMTP_URL, MAIL_FROM); without smtpUrl links are written to the log. */
  readonly mail?: { readonly smtpUrl?: string | undefined; readonly from: string };
  /** Stripe (STRIPE_* variables); unset: payments not configured (503, onboarding of paid plans 402). */
  readonly stripe?: StripeConfig | undefined;
  /** SELF_HOSTED_PLAN: onboarding grants this plan without payment. */
  readonly selfHostedPlan?: PlanName | undefined;
  /**
   * MASTER_KEY (base64, 32 bytes): seals webhook signing secrets and provider keys (BYOK); unset:
   * webhook subscriptions and provider keys are refused (503).
   */
  readonly masterKey?: string | undefined;
  /** PROVIDER_ALLOW_PRIVATE_URLS: provider base URLs may reach private addresses (and use http). */
  readonly providerAllowPrivateUrls?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: webhook targets may be private addresses (checked when stored). */
  readonly webhookAllowPrivateTargets?: boolean;
  /**
   * OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS: client ID metadata documents may be fetched from
   * private addresses and over http (development and tests only; ADR 0400).
   */
  readonly oauthClientMetadataAllowPrivateUrls?: boolean;
  /**
   * WEB_FETCH_ALLOW_PRIVATE_URLS: FetchWebPage may reach private addresses (loopback, RFC 1918 …;
   * tests and closed networks only; docs/ingest.md "Web pages").
   */
  readonly webFetchAllowPrivateUrls?: boolean;
  /** WEB_FETCH_TIMEOUT_MS, WEB_FETCH_MAX_BYTES; default 15 s, 5 MB, 5 redirects. */
  readonly webFetchLimits?: WebFetchLimits;
  /** Timeouts/retries of BYOK provider clients (tests shorten them). */
  readonly providerClientOptions?: TenantModelsOptions["clientOptions"];
  /** Delay between an erasure and the worker's purge of old vector versions (docs/erasure.md). */
  readonly vectorPurgeDelayMs?: number;
  /** Recall's BM25 source (BM25_INDEX, BM25_INDEX_BUDGET_MB); default: in-process indexes, 256 MB. */
  readonly bm25Index?: { readonly mode: "memory" | "sql"; readonly segmentDirectory?: string };
  /** The process's one budget for per-workspace state, shared with the vector store (Storage). */
  readonly workspaceState?: MemoryBudget;
  /** The process's Prometheus metrics (core calls, recall stages); unset: none recorded. */
  readonly metrics?: ServiceMetrics | undefined;
  /** RECALL_PRF: recall's pseudo-relevance feedback stage with its measured settings (ADR 0570); default off. */
  readonly recallPrf?: boolean;
  /** RECALL_TIME_ZONE: the IANA zone of the days and weeks in time expressions (ADR 0620); default UTC. */
  readonly recallTimeZone?: string;
}
