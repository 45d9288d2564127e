import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { protoString } from "../../gateway-kit/proto-rules.js";
import {
  CreateProviderKeyRequestSchema,
  DeleteProviderKeyRequestSchema,
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
    createdAt: z.string().nullable(),
    lastTestedAt: z.string().nullable(),
    lastTestOk: z.boolean().nullable(),
  })
  .meta({ id: "ProviderKey" });

const createKeySchema = z
  .strictObject({
    provider: protoString(create.provider),
    label: protoString(create.label).optional(),
    apiKey: protoString(create.apiKey),
    baseUrl: protoString(create.baseUrl).optional().describe("For openai-compatible providers"),
  })
  .meta({ id: "CreateProviderKeyRequest" });

const keyIdParams = z.strictObject({ id: protoString(TestProviderKeyRequestSchema.field.id) });
const deleteKeyParams = z.strictObject({ id: protoString(DeleteProviderKeyRequestSchema.field.id) });

const keyTestResultSchema = z
  .object({ ok: z.boolean(), latencyMs: z.int(), message: z.string() })
  .meta({ id: "ProviderKeyTest" });

function keyBody(key: ProviderKey | undefined) {
  return {
    id: key?.id ?? "",
    provider: key?.provider ?? "",
    label: key?.label ?? "",
    maskedKey: key?.maskedKey ?? "",
    baseUrl: key?.baseUrl ?? null,
    createdAt: isoTime(key?.createdAt),
    lastTestedAt: isoTime(key?.lastTestedAt),
    lastTestOk: key?.lastTestOk ?? null,
  };
}

/** Customer-supplied provider keys (BYOK) → TenancyService. Session only (spec "Authentication" 5). */
export const keyRoutes: FastifyPluginAsync<RestRouteOptions> = async (app, options) => {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { tenancy } = options.clients;

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
        response: { 200: providerKeySchema, ...errorResponses(options.auth, 402, 415) },
      },
    },
    async (request) => {
      const { provider, label, apiKey, baseUrl } = request.body;
      const result = await tenancy.createProviderKey(
        { provider, label: label ?? "", apiKey, ...(baseUrl === undefined ? {} : { baseUrl }) },
        coreCall(request, options),
      );
      return keyBody(result.key);
    },
  );

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
        response: { 200: keyTestResultSchema, ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const result = await tenancy.testProviderKey({ id: request.params.id }, coreCall(request, options));
      return { ok: result.ok, latencyMs: result.latencyMs, message: result.message };
    },
  );

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
        response: { 200: z.object({ deleted: z.boolean() }), ...errorResponses(options.auth, 404) },
      },
    },
    async (request) => {
      const result = await tenancy.deleteProviderKey({ id: request.params.id }, coreCall(request, options));
      return { deleted: result.deleted };
    },
  );
};
