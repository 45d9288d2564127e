import { Writable } from "node:stream";
import type { ServiceImpl } from "@connectrpc/connect";
import { createRouterTransport } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { createLogger } from "../../config/logger.js";
import { createEdge } from "../../edge/create-edge.js";
import { createCoreClients } from "../../gateway-kit/core-clients.js";
import { BillingService } from "../../gen/memory/v1/billing_service_pb.js";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { LifecycleService } from "../../gen/memory/v1/lifecycle_service_pb.js";
import { RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import { StatusService } from "../../gen/memory/v1/status_service_pb.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { WebhookService } from "../../gen/memory/v1/webhook_service_pb.js";

/** Handlers a test gives the stub core; methods left out answer UNIMPLEMENTED, as in core. */
export interface StubCore {
  recall?: Partial<ServiceImpl<typeof RecallService>>;
  ingest?: Partial<ServiceImpl<typeof IngestService>>;
  graph?: Partial<ServiceImpl<typeof GraphService>>;
  tenancy?: Partial<ServiceImpl<typeof TenancyService>>;
  billing?: Partial<ServiceImpl<typeof BillingService>>;
  status?: Partial<ServiceImpl<typeof StatusService>>;
  webhooks?: Partial<ServiceImpl<typeof WebhookService>>;
  lifecycle?: Partial<ServiceImpl<typeof LifecycleService>>;
}

export interface StubEdge {
  readonly app: FastifyInstance;
  /** Access-log lines (JSON) written so far. */
  readonly logLines: string[];
  /** Metadata of each call that reached the stub core, in order. */
  readonly calls: { method: string; headers: Headers }[];
}

/**
 * The real HTTP edge (both gateways, error handling, OpenAPI, CORS, compression, access logs) in
 * front of a stub core: for gateway behaviour that does not need storage — error mapping for every
 * code, fuzzing, headers — answered through `app.inject` or a real listener.
 */
export async function startStubEdge(
  core: StubCore,
  options: { corsOrigins?: string[]; coreTimeoutMs?: number } = {},
): Promise<StubEdge> {
  const logLines: string[] = [];
  const calls: { method: string; headers: Headers }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const transport = createRouterTransport(
    (router) => {
      router.service(RecallService, core.recall ?? {});
      router.service(IngestService, core.ingest ?? {});
      router.service(GraphService, core.graph ?? {});
      router.service(TenancyService, core.tenancy ?? {});
      router.service(BillingService, core.billing ?? {});
      router.service(StatusService, core.status ?? {});
      router.service(WebhookService, core.webhooks ?? {});
      router.service(LifecycleService, core.lifecycle ?? {});
    },
    {
      router: {
        interceptors: [
          (next) => async (req) => {
            calls.push({ method: `${req.service.typeName}/${req.method.name}`, headers: req.header });
            return next(req);
          },
        ],
      },
    },
  );
  const app = await createEdge({
    clients: createCoreClients(transport),
    logger: createLogger("info", sink),
    version: "0.0.0-test",
    trustProxy: false,
    corsOrigins: options.corsOrigins ?? [],
    ...(options.coreTimeoutMs === undefined ? {} : { coreTimeoutMs: options.coreTimeoutMs }),
  });
  await app.ready();
  return { app, logLines, calls };
}

/** A syntactically valid API token (kmt_ + 43 base64url characters); the stub core accepts any. */
export const STUB_TOKEN = `kmt_${"A".repeat(43)}`;
export const BEARER = { authorization: `Bearer ${STUB_TOKEN}` };

const ID = "0b3f8e5c-7a1d-4c2e-9f00-5d6c7b8a9e01";
const NOW = { seconds: 1_781_000_000n, nanos: 0 };
const WEBHOOK = {
  id: ID,
  url: "https://hooks.example.test/memory",
  eventKinds: ["memory.created"],
  active: true,
  consecutiveFailures: 0,
  createdAt: NOW,
  description: "CRM sync",
};

/** A core that answers every method with a small valid result, for schema and fuzz tests. */
export const HAPPY_CORE: StubCore = {
  recall: {
    recall: async (req) => ({
      hits: [
        { memoryId: ID, title: "Hit", snippet: `about ${req.query}`, score: 0.9, source: "hybrid", hops: 0 },
      ],
      latencyMs: 4,
    }),
    listRecent: async () => ({
      items: [
        { id: ID, title: "Recent", status: 2, indexedChunks: 1, createdAt: NOW, updatedAt: NOW, kind: 1 },
      ],
      count: 1,
    }),
    getStats: async () => ({
      memories: 3n,
      edges: 2n,
      chunks: 5n,
      queriesLast24h: 7n,
      p50Ms: 12n,
      p99Ms: 40n,
    }),
  },
  ingest: {
    ingestDocument: async () => ({ documentId: ID, status: 1 }),
    fetchWebPage: async (req) => ({
      memory: {
        memoryId: ID,
        title: req.title ?? "Handbook",
        status: 2,
        chunksWritten: 3,
        embeddingProvider: "builtin",
        replacedDocumentIds: [],
        quota: { memoryLimit: 2500n, memoriesUsed: 1n, warnAt80: false, hint: "1 of 2,500 memories used" },
      },
      url: req.url,
      pageType: "html",
      characters: 1200,
    }),
    storeConversation: async (req) => ({
      sessionId: req.sessionId ?? "generated-session",
      memory: {
        memoryId: ID,
        title: `${req.title ?? "Conversation"} · generated-session`,
        status: 2,
        chunksWritten: req.messages.length,
        embeddingProvider: "builtin",
        replacedDocumentIds: [],
        quota: { memoryLimit: 2500n, memoriesUsed: 1n, warnAt80: false, hint: "1 of 2,500 memories used" },
      },
      turnsAdded: req.messages.length,
      turnsSkipped: 0,
      turnsTotal: req.messages.length,
    }),
    uploadFile: async (req) => ({
      memory: {
        memoryId: ID,
        title: req.title ?? req.filename,
        status: 2,
        chunksWritten: 1,
        embeddingProvider: "builtin",
        replacedDocumentIds: [],
        quota: { memoryLimit: 2500n, memoriesUsed: 1n, warnAt80: false, hint: "1 of 2,500 memories used" },
      },
      fileType: "pdf",
      pages: 2,
      characters: req.data.length,
    }),
    storeMemory: async (req) => ({
      memory: {
        memoryId: ID,
        title: req.title ?? "",
        status: 2,
        chunksWritten: 1,
        embeddingProvider: "builtin",
        replacedDocumentIds: [],
        quota: { memoryLimit: 2500n, memoriesUsed: 1n, warnAt80: false, hint: "1 of 2,500 memories used" },
      },
    }),
    // The first entry stored, every other one refused at the memory limit (both result shapes).
    storeMemories: async (req) => ({
      results: req.memories.map((entry, i) =>
        i === 0
          ? {
              outcome: {
                case: "memory" as const,
                value: {
                  memoryId: ID,
                  title: entry.title ?? "",
                  status: 2,
                  chunksWritten: 1,
                  embeddingProvider: "builtin",
                  quota: { memoryLimit: 2n, memoriesUsed: 2n, warnAt80: true, hint: "2 of 2 memories used" },
                },
              },
            }
          : {
              outcome: {
                case: "error" as const,
                value: {
                  code: 9,
                  message: "memory limit reached",
                  info: { reason: "plan_upgrade_required", reasonCode: 10 },
                  planGate: {
                    feature: "memories",
                    currentPlan: "privat",
                    requiredPlans: ["pro"],
                    limit: 2n,
                    used: 2n,
                    message: "memory limit reached",
                    upgradeUrl: "https://example.test/upgrade",
                  },
                },
              },
            },
      ),
    }),
  },
  graph: {
    link: async () => ({ edgeId: ID, inverseEdgeId: ID }),
    unlink: async () => ({ deleted: true }),
    listRelations: async () => ({
      outgoing: [{ relType: "REFERENCES", to: ID, edgeId: ID }],
      incoming: [{ relType: "REFERENCED_BY", from: ID, edgeId: ID }],
    }),
    updateFact: async () => ({ oldMemoryId: ID, newMemoryId: ID, supersedesEdge: ID }),
    listVersions: async () => ({ versions: [] }),
    getGraphSchema: async () => ({
      nodes: 4n,
      edges: 2n,
      edgeTypes: [{ relType: "REFERENCES", count: 2n }],
      relationTypes: [
        {
          name: "REFERENCES",
          inverse: "REFERENCED_BY",
          symmetric: false,
          sourceKinds: [],
          targetKinds: [],
          allowSelfLoop: false,
          description: "cites",
        },
      ],
    }),
  },
  tenancy: {
    startSignIn: async () => ({}),
    completeSignIn: async () => ({
      sessionToken: "s".repeat(43),
      expiresAt: NOW,
      userId: ID,
      email: "a@example.test",
      needsOnboarding: true,
      redirectPath: "/onboarding",
    }),
    signOut: async () => ({}),
    getSession: async () => ({
      credential: "token",
      tenantId: ID,
      tenantSlug: "acme",
      plan: 5,
      scopes: [1, 2],
    }),
    onboard: async () => ({ tenantId: ID, redirectUrl: "http://localhost:8080/dashboard" }),
    listTokens: async () => ({ tokens: [{ id: ID, name: "ci", scopes: [1], createdAt: NOW }] }),
    createToken: async () => ({ id: ID, token: STUB_TOKEN }),
    revokeToken: async () => ({}),
    listProviderKeys: async () => ({
      keys: [{ id: ID, provider: "openai", label: "main", maskedKey: "sk-…3f9a", createdAt: NOW }],
    }),
    createProviderKey: async (req) => ({
      key: { id: ID, provider: req.provider, label: req.label, maskedKey: "sk-…3f9a", createdAt: NOW },
    }),
    testProviderKey: async () => ({ ok: true, latencyMs: 80, message: "ok" }),
    deleteProviderKey: async () => ({ deleted: true }),
    getModelSelection: async () => ({ selection: { activeEmbeddingSpace: "builtin:1024" } }),
    updateModelSelection: async () => ({
      selection: {
        embeddingKeyId: ID,
        activeEmbeddingSpace: "builtin:1024",
        reembed: { targetSpace: "cohere:embed-v4.0:1024", total: 10, done: 3 },
      },
    }),
    exportAudit: async function* () {
      yield { chunk: new TextEncoder().encode("at,event\n") };
      yield { chunk: new TextEncoder().encode("2026-06-11T00:00:00Z,subscription.activated\n") };
    },
    exportTenant: async function* () {
      yield { chunk: new TextEncoder().encode('{"memories":[],') };
      yield { chunk: new TextEncoder().encode('"edges":[],"audit":[]}') };
    },
  },
  webhooks: {
    listSubscriptions: async () => ({ subscriptions: [WEBHOOK] }),
    createSubscription: async () => ({ subscription: WEBHOOK, secret: `whsec_${"w".repeat(43)}` }),
    getSubscription: async () => ({ subscription: WEBHOOK }),
    updateSubscription: async () => ({ subscription: WEBHOOK }),
    deleteSubscription: async () => ({ deleted: true }),
    sendTestEvent: async () => ({ deliveryId: ID }),
    reactivateSubscription: async () => ({ subscription: WEBHOOK }),
    rotateSecret: async () => ({
      subscription: { ...WEBHOOK, previousSecretExpiresAt: NOW },
      secret: `whsec_${"v".repeat(43)}`,
    }),
    listDeliveries: async () => ({
      deliveries: [
        {
          id: ID,
          subscriptionId: ID,
          event: "memory.created",
          state: 1,
          attempts: 1,
          lastStatus: 500,
          nextAttemptAt: NOW,
          createdAt: NOW,
          lastError: "answered 500",
          occurredAt: NOW,
          lastAttemptAt: NOW,
        },
      ],
    }),
  },
  billing: {
    createCheckout: async () => ({ url: "https://pay.example.test/c/1" }),
    createPortalSession: async () => ({ url: "https://pay.example.test/p/1" }),
    handlePaymentEvent: async () => ({ processed: true, eventType: "checkout.session.completed" }),
    requestCancellation: async () => ({ message: "Your cancellation was received." }),
    getBilling: async () => ({
      currentPlan: 3,
      paymentsConfigured: true,
      hasPaymentCustomer: true,
      subscription: {
        plan: 3,
        billing: 1,
        status: "active",
        currentPeriodEnd: { seconds: 1_900_000_000n, nanos: 0 },
        cancelAt: { seconds: 1_900_000_000n, nanos: 0 },
      },
      plans: [
        { plan: 1, memoryLimit: 2500n, requestsPerMinutePerToken: 30, auditRetentionDays: 30, features: [] },
        {
          plan: 3,
          requestsPerMinutePerToken: 60,
          auditRetentionDays: 90,
          features: ["byok", "audit_export"],
          monthly: { unitAmount: 1900n, currency: "eur" },
        },
      ],
    }),
  },
  lifecycle: {
    eraseMemory: async () => ({ erased: true, title: "Deploy", versions: 3, chunks: 7, edges: 4 }),
    eraseWorkspace: async () => ({ erased: true, tenantId: "t", rows: 42n, vectorTables: 1 }),
    importTenant: async (requests) => {
      let bytes = 0;
      for await (const r of requests) bytes += r.chunk.length;
      return {
        imported: true,
        memories: bytes > 0 ? 2 : 0,
        edges: 0,
        chunks: 2,
        format: "memory-service-export/v1",
        sourceTenantId: "s",
      };
    },
  },
  status: {
    getStatus: async () => ({
      status: "ok",
      service: "memory-service",
      version: "0.0.0-test",
      components: [],
      embeddingProvider: "builtin",
      reranker: "none",
    }),
  },
};
