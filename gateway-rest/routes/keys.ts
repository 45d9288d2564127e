import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  CreateProviderKeyRequestSchema,
  DeleteProviderKeyRequestSchema,
  type ModelSelection,
  type ProviderKey,
  TestProviderKeyRequestSchema,
} from "../../gen/memory/v1/tenancy_service_pb.js";
import { errorResponses } from "../error-schemas.js";
import { isoTime } from "../iso-time.js";
import { coreCall, describeOperation, type RestRouteOptions } from "../route-options.js";

const create = CreateProviderKeyRequestSchema.field;

/**
 * The spec leaves the key routes' shapes open ("request body not shown", "list shape not shown");
 * these follow TenancyService's messages in REST camelCase. The secret goes in once and never
 * comes back: listings carry only the masked key (spec "Provider key (BYOK)").
 */
export const providerKeySchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    label: z.string(),
    maskedKey: z.string().describe("Never more than the last four characters"),
    baseUrl: z.string().nullable(),
    model: z.string().describe("Embedding model used with the key (provider default when none was given)"),
    dimension: z.int().describe("Native vector length measured by the last passed test; 0 before"),
    createdAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    lastTestedAt: z.string().nullable(),
    lastTestOk: z.boolean().nullable(),
    lastTestError: z.string().nullable().describe("The provider's answer when the last test failed"),
    usedFor: z.array(z.enum(["embeddings", "reranking"])),
  })
  .meta({ id: "ProviderKey" });

const createKeySchema = z
  .strictObject({
    provider: protoString(create.provider),
    label: protoString(create.label).optional(),
    apiKey: protoString(create.apiKey),
    baseUrl: protoString(create.baseUrl)
      .optional()
      .describe(
        "Required for openai-compatible (Ollama, TEI, vLLM, LM Studio, Azure); else a proxy or region",
      ),
    model: protoString(create.model).optional().describe("Embedding model; default per provider"),
  })
  .meta({ id: "CreateProviderKeyRequest" });

const keyIdParams = z.strictObject({ id: protoString(TestProviderKeyRequestSchema.field.id) });
const deleteKeyParams = z.strictObject({ id: protoString(DeleteProviderKeyRequestSchema.field.id) });

const keyTestResultSchema = z
  .object({
    ok: z.boolean(),
    latencyMs: z.int(),
    dimension: z.int().describe("Native vector length the provider answered with; 0 on failure"),
    model: z.string(),
    error: z.string().optional().describe("The provider's own error text (never the key)"),
  })
  .meta({ id: "ProviderKeyTest" });

const selectionSchema = z
  .object({
    embeddingKeyId: z.string().nullable().describe("null: the service's own embedder"),
    rerankKeyId: z.string().nullable().describe("null: the service's own reranker"),
    activeEmbeddingSpace: z.string().describe("The space recall searches: provider:model:dimension"),
    reembed: z
      .object({ targetSpace: z.string(), total: z.int(), done: z.int() })
      .nullable()
      .describe("Set while memories are re-embedded into a new space; recall switches when done"),
  })
  .meta({ id: "ModelSelection" });

const updateSelectionSchema = z
  .strictObject({
    embeddingKeyId: z.string().max(36).nullable().optional().describe("A key id; null: the service's own"),
    rerankKeyId: z.string().max(36).nullable().optional().describe("A key id; null: the service's own"),
  })
  .meta({ id: "UpdateModelSelectionRequest" });

function selectionBody(selection: ModelSelection | undefined) {
  return {
    embeddingKeyId: selection?.embeddingKeyId ?? null,
    rerankKeyId: selection?.rerankKeyId ?? null,
    activeEmbeddingSpace: selection?.activeEmbeddingSpace ?? "",
    reembed: selection?.reembed
      ? {
          targetSpace: selection.reembed.targetSpace,
          total: selection.reembed.total,
          done: selection.reembed.done,
        }
      : null,
  };
}

function keyBody(key: ProviderKey | undefined) {
  // usedFor is a closed set of words; anything else is dropped rather than answered.
  return {
    id: key?.id ?? "",
    provider: key?.provider ?? "",
    label: key?.label ?? "",
    maskedKey: key?.maskedKey ?? "",
    baseUrl: key?.baseUrl ?? null,
    model: key?.model ?? "",
    dimension: key?.dimension ?? 0,
    createdAt: isoTime(key?.createdAt),
    lastUsedAt: isoTime(key?.lastUsedAt),
    lastTestedAt: isoTime(key?.lastTestedAt),
    lastTestOk: key?.lastTestOk ?? null,
    lastTestError: key?.lastTestError ?? null,
    usedFor: (key?.usedFor ?? []).filter(
      (u): u is "embeddings" | "reranking" => u === "embeddings" || u === "reranking",
    ),
  };
}

/**
 * Customer-supplied provider keys (BYOK) → TenancyService: the session routes of the spec under /api,
 * and the same under /api/v1 for admin-scope API tokens (automation).
 */
export const keyRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const context = keyRouteContext(app, options);
  listProviderKeysRoute(context);
  createProviderKeyRoute(context);
  testProviderKeyRoute(context);
  getModelSelectionRoute(context);
  updateModelSelectionRoute(context);
  deleteProviderKeyRoute(context);
};

/** What the provider key routes share: the zod-typed route table and the core client. */
function keyRouteContext(app: FastifyInstance, options: RestRouteOptions) {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { tenancy } = options.clients;
  return { options, routes, tenancy };
}

type KeyRouteContext = ReturnType<typeof keyRouteContext>;

/** GET /keys */
function listProviderKeysRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.get(
    "/keys",
    {
      schema: {
        ...describeOperation(options, {
          id: "listProviderKeys",
          summary: "Stored provider keys, masked",
          tag: "keys",
          rpc: "memory.v1.TenancyService/ListProviderKeys",
        }),
        response: { 200: z.array(providerKeySchema), ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const result = await tenancy.listProviderKeys({}, coreCall(request, options));
      return result.keys.map(keyBody);
    },
  );
}

/** POST /keys */
function createProviderKeyRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.post(
    "/keys",
    {
      schema: {
        ...describeOperation(options, {
          id: "createProviderKey",
          summary: "Store a provider key (encrypted); plus plan and higher",
          tag: "keys",
          rpc: "memory.v1.TenancyService/CreateProviderKey",
        }),
        body: createKeySchema,
        response: { 200: providerKeySchema, ...errorResponses(options.auth, 402, 409, 415, 503) },
      },
    },
    async (request) => {
      const { provider, label, apiKey, baseUrl, model } = request.body;
      const result = await tenancy.createProviderKey(
        {
          provider,
          label: label ?? "",
          apiKey,
          ...(baseUrl === undefined ? {} : { baseUrl }),
          ...(model === undefined ? {} : { model }),
        },
        coreCall(request, options),
      );
      return keyBody(result.key);
    },
  );
}

/** POST /keys/:id/test */
function testProviderKeyRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.post(
    "/keys/:id/test",
    {
      schema: {
        ...describeOperation(options, {
          id: "testProviderKey",
          summary: "Round trip against the provider with the stored key",
          tag: "keys",
          rpc: "memory.v1.TenancyService/TestProviderKey",
        }),
        params: keyIdParams,
        response: { 200: keyTestResultSchema, ...errorResponses(options.auth, 404, 503) },
      },
    },
    async (request) => {
      const result = await tenancy.testProviderKey({ id: request.params.id }, coreCall(request, options));
      return {
        ok: result.ok,
        latencyMs: result.latencyMs,
        dimension: result.dimension,
        model: result.model,
        ...(result.error === undefined ? {} : { error: result.error }),
      };
    },
  );
}

/** GET /keys/selection */
function getModelSelectionRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.get(
    "/keys/selection",
    {
      schema: {
        ...describeOperation(options, {
          id: "getModelSelection",
          summary: "Which keys embed and rerank for the workspace, and re-embed progress",
          tag: "keys",
          rpc: "memory.v1.TenancyService/GetModelSelection",
        }),
        response: { 200: selectionSchema, ...errorResponses(options.auth) },
      },
    },
    async (request) => {
      const result = await tenancy.getModelSelection({}, coreCall(request, options));
      return selectionBody(result.selection);
    },
  );
}

/** PUT /keys/selection */
function updateModelSelectionRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.put(
    "/keys/selection",
    {
      schema: {
        ...describeOperation(options, {
          id: "updateModelSelection",
          summary: "Choose the keys for embeddings and reranking; a new embedder re-embeds in the background",
          tag: "keys",
          rpc: "memory.v1.TenancyService/UpdateModelSelection",
        }),
        body: updateSelectionSchema,
        response: { 200: selectionSchema, ...errorResponses(options.auth, 402, 404, 409, 415) },
      },
    },
    async (request) => {
      const { embeddingKeyId, rerankKeyId } = request.body;
      const result = await tenancy.updateModelSelection(
        {
          ...(embeddingKeyId === undefined ? {} : { embeddingKeyId: embeddingKeyId ?? "" }),
          ...(rerankKeyId === undefined ? {} : { rerankKeyId: rerankKeyId ?? "" }),
        },
        coreCall(request, options),
      );
      return selectionBody(result.selection);
    },
  );
}

/** DELETE /keys/:id */
function deleteProviderKeyRoute({ options, routes, tenancy }: KeyRouteContext): void {
  routes.delete(
    "/keys/:id",
    {
      schema: {
        ...describeOperation(options, {
          id: "deleteProviderKey",
          summary: "Delete a stored provider key",
          tag: "keys",
          rpc: "memory.v1.TenancyService/DeleteProviderKey",
        }),
        params: deleteKeyParams,
        response: { 200: z.object({ deleted: z.boolean() }), ...errorResponses(options.auth, 404, 409) },
      },
    },
    async (request) => {
      const result = await tenancy.deleteProviderKey({ id: request.params.id }, coreCall(request, options));
      return { deleted: result.deleted };
    },
  );
}
