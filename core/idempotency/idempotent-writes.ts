import { createHash } from "node:crypto";
import {
  create,
  type DescMessage,
  type DescService,
  fromBinary,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { Code, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { principalKey } from "../auth/principal.js";
import { coreError, invalidArgument } from "../errors.js";
import type { Database } from "../store/database.js";

/** Metadata key the gateways forward (REST `Idempotency-Key`, MCP `idempotency_key`). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/** Writes whose answer is replayed for a repeated key: every non-idempotent write of the spec. */
const IDEMPOTENT_METHODS = new Set([
  "memory.v1.IngestService.StoreMemory",
  "memory.v1.IngestService.StoreMemories",
  "memory.v1.IngestService.UploadDocument",
  "memory.v1.IngestService.IngestDocument",
  "memory.v1.GraphService.UpdateFact",
]);

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type UnaryHandler = (request: unknown, ctx: HandlerContext) => Promise<unknown>;

/**
 * Wraps one write so a repeat with the same idempotency key within 24 hours replays the stored
 * answer: a retry after a timeout (REST 504, MCP -32006) never writes twice (issue 15). The first
 * request claims the key before it runs; a retry while it still runs is 409 (retry shortly); the
 * same key with a different request is 409 too. A failed first request releases the key, so its
 * retry runs again. A wrapper around the handler (not an interceptor) so the transport's own
 * response headers and trailers stay as they are on a replay.
 */
function idempotent(
  db: Database,
  methodName: string,
  input: DescMessage,
  output: DescMessage,
  handler: UnaryHandler,
) {
  return async (
    request: MessageShape<DescMessage>,
    ctx: HandlerContext,
  ): Promise<MessageShape<DescMessage>> => {
    const key = ctx.requestHeader.get(IDEMPOTENCY_KEY_HEADER);
    const principal = ctx.values.get(principalKey);
    const run = async () => create(output, (await handler(request, ctx)) as MessageShape<DescMessage>);
    if (key === null || principal.kind === "anonymous" || principal.tenantId === undefined) return run();
    if (!KEY_PATTERN.test(key)) {
      throw invalidArgument(
        "idempotency_key",
        "idempotency_key: must be 1 to 255 printable ASCII characters",
      );
    }
    const tenantId = principal.tenantId;
    const requestHash = createHash("sha256").update(toBinary(input, request)).digest("hex");
    const claimed = await db.sql.begin(async (tx) => {
      await tx`delete from idempotency_keys where tenant_id = ${tenantId} and created_at < now() - interval '24 hours'`;
      return tx<{ claimed: boolean }[]>`
        insert into idempotency_keys (tenant_id, method, key, request_sha256)
        values (${tenantId}, ${methodName}, ${key}, ${requestHash})
        on conflict do nothing
        returning true as claimed`;
    });
    if (claimed.length === 0) {
      const [row] = await db.sql<{ request_sha256: string; response: Uint8Array | null }[]>`
        select request_sha256, response from idempotency_keys
        where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}`;
      if (row && row.request_sha256 !== requestHash) {
        throw coreError(
          Code.FailedPrecondition,
          ErrorReason.CONFLICT,
          "this idempotency key was already used for a different request; use a new key for a new write",
        );
      }
      if (!row?.response) {
        throw coreError(
          Code.Aborted,
          ErrorReason.CONFLICT,
          "a request with this idempotency key is still running; retry shortly",
        );
      }
      return fromBinary(output, row.response);
    }
    try {
      const response = await run();
      await db.sql`
        update idempotency_keys set response = ${Buffer.from(toBinary(output, response))}
        where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}`;
      return response;
    } catch (error) {
      await db.sql`
        delete from idempotency_keys
        where tenant_id = ${tenantId} and method = ${methodName} and key = ${key} and response is null`.catch(
        () => undefined,
      );
      throw error;
    }
  };
}

/** The service with each of its writes listed above wrapped by `idempotent`. */
export function withIdempotentWrites<S extends DescService>(
  db: Database,
  service: S,
  impl: Partial<ServiceImpl<S>>,
): Partial<ServiceImpl<S>> {
  const wrapped: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    const handler = (impl as Record<string, unknown>)[method.localName];
    if (method.methodKind !== "unary" || typeof handler !== "function") continue;
    if (!IDEMPOTENT_METHODS.has(`${service.typeName}.${method.name}`)) continue;
    wrapped[method.localName] = idempotent(
      db,
      `${service.typeName}/${method.name}`,
      method.input,
      method.output,
      (request, ctx) => Promise.resolve((handler as UnaryHandler)(request, ctx)),
    );
  }
  return wrapped as Partial<ServiceImpl<S>>;
}
