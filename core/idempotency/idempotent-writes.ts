import { createHash, randomUUID } from "node:crypto";
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
import { KEYED_WRITE_METHODS, WRITE_KEY_HEADER } from "../../lib/gateway-metadata.js";
import { principalKey } from "../auth/principal.js";
import { coreError, invalidArgument } from "../errors.js";
import type { Database } from "../store/database.js";
import { OWNER_DEAD_AFTER_SECONDS } from "./instance-heartbeat.js";
import { runAsReplay } from "./replay-scope.js";

/** Metadata key the gateways forward (REST `Idempotency-Key`, MCP `idempotency_key`). */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type UnaryHandler = (request: unknown, ctx: HandlerContext) => Promise<unknown>;

/** The key's row as a retry finds it. */
interface ClaimRow {
  readonly request_sha256: string;
  readonly response: Uint8Array | null;
  readonly claim: string | null;
  readonly owner_alive: boolean;
}

/**
 * Wraps one write so a repeat with the same idempotency key within 24 hours replays the stored
 * answer: a retry after a timeout (REST 504/503, MCP -32006) never writes twice (issues 15 and 45).
 * The first request claims the key (naming this process as its owner) before it runs; a retry while
 * the owner still runs is 409 (retry shortly); the same key with a different request is 409 too. A
 * failed first request releases the key, so its retry runs again. When the owner died (kill -9
 * between claim and answer: its heartbeat stops, instance-heartbeat.ts), the next retry takes the
 * claim over and runs the write again as a replay: every keyed write is idempotent by content, so
 * what the first run committed is found and answered as written, and what it did not commit is
 * written now — exactly once either way (docs/decisions/0350-crash-proof-idempotency-and-fail-fast.md). A wrapper around the handler (not an
 * interceptor) so the transport's own response headers and trailers stay as they are on a replay.
 */
function idempotent(
  db: Database,
  owner: string,
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
    // Only when a key is claimed: a batch can be megabytes, and most unkeyed writes never claim.
    const hashRequest = () => createHash("sha256").update(toBinary(input, request)).digest("hex");
    if (principal.kind === "anonymous" || principal.tenantId === undefined) return run();
    if (key === null) {
      const writeKey = ctx.requestHeader.get(WRITE_KEY_HEADER);
      if (writeKey === null || !KEY_PATTERN.test(writeKey)) return run();
      const where = { tenantId: principal.tenantId, methodName, key: writeKey };
      return runWithLateClaim(db, owner, where, hashRequest, output, run, lateClaimAfterMs(ctx));
    }
    if (!KEY_PATTERN.test(key)) {
      throw invalidArgument(
        "idempotency_key",
        "idempotency_key: must be 1 to 255 printable ASCII characters",
      );
    }
    const tenantId = principal.tenantId;
    const requestHash = hashRequest();
    const claimId = randomUUID();
    const claimed = await db.sql.begin(async (tx) => {
      await tx`delete from idempotency_keys where tenant_id = ${tenantId} and created_at < now() - interval '24 hours'`;
      return tx<{ claimed: boolean }[]>`
        insert into idempotency_keys (tenant_id, method, key, request_sha256, owner, claim)
        values (${tenantId}, ${methodName}, ${key}, ${requestHash}, ${owner}, ${claimId})
        on conflict do nothing
        returning true as claimed`;
    });
    const where = { tenantId, methodName, key };
    if (claimed.length > 0) return runClaimed(db, where, claimId, output, run, undefined);

    const [row] = await db.sql<ClaimRow[]>`
      select k.request_sha256, k.response, k.claim,
             -- Never taken over in its first seconds: the owner's first beat may still be on its way.
             (k.created_at > now() - make_interval(secs => ${OWNER_DEAD_AFTER_SECONDS})
              or exists (select 1 from core_instances i
                         where i.id = k.owner
                           and i.heartbeat_at > now() - make_interval(secs => ${OWNER_DEAD_AFTER_SECONDS}))) as owner_alive
      from idempotency_keys k
      where k.tenant_id = ${tenantId} and k.method = ${methodName} and k.key = ${key}`;
    if (row && row.request_sha256 !== requestHash) {
      throw coreError(
        Code.FailedPrecondition,
        ErrorReason.CONFLICT,
        "this idempotency key was already used for a different request; use a new key for a new write",
      );
    }
    if (row?.response) return fromBinary(output, row.response);
    if (row && !row.owner_alive) {
      // The owner died before answering: take the claim over (one retry wins) and replay.
      const [taken] = await db.sql<{ created_at: Date }[]>`
        update idempotency_keys set owner = ${owner}, claim = ${claimId}
        where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}
          and response is null and claim is not distinct from ${row.claim}::uuid
        returning created_at`;
      if (taken) return runClaimed(db, where, claimId, output, run, taken.created_at);
    }
    // Released between our insert and this read (the first run failed): retry runs it again.
    throw coreError(
      Code.Aborted,
      ErrorReason.CONFLICT,
      "a request with this idempotency key is still running; retry shortly",
    );
  };
}

interface KeyOf {
  readonly tenantId: string;
  readonly methodName: string;
  readonly key: string;
}

/**
 * Runs the write under this process's claim and stores its answer. A first run that fails releases
 * the key; a replay that fails keeps it without an owner, so the next retry replays again from the
 * same claim time (the first run may have committed).
 */
async function runClaimed(
  db: Database,
  { tenantId, methodName, key }: KeyOf,
  claimId: string,
  output: DescMessage,
  run: () => Promise<MessageShape<DescMessage>>,
  replaySince: Date | undefined,
): Promise<MessageShape<DescMessage>> {
  try {
    const response = await (replaySince === undefined ? run() : runAsReplay(replaySince, run));
    await db.sql`
      update idempotency_keys set response = ${Buffer.from(toBinary(output, response))}
      where tenant_id = ${tenantId} and method = ${methodName} and key = ${key} and claim = ${claimId}`;
    return response;
  } catch (error) {
    const release =
      replaySince === undefined
        ? db.sql`
            delete from idempotency_keys
            where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}
              and claim = ${claimId} and response is null`
        : db.sql`
            update idempotency_keys set owner = null
            where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}
              and claim = ${claimId} and response is null`;
    await release.catch(() => undefined);
    throw error;
  }
}

/**
 * When an unkeyed write claims its gateway-given key: after 5 s, or a third of the call's deadline
 * if that is shorter — well before the gateway gives up (30 s) and answers 504 naming the key.
 */
function lateClaimAfterMs(ctx: HandlerContext): number {
  const remaining = ctx.timeoutMs();
  return remaining === undefined ? LATE_CLAIM_MS : Math.max(0, Math.min(LATE_CLAIM_MS, remaining / 3));
}

const LATE_CLAIM_MS = 5_000;

/**
 * An unkeyed write with a gateway-given key (WRITE_KEY_HEADER): it runs at once, and only if it has
 * not answered after `claimAfterMs` does it claim the key, as if its caller had sent it, dated from
 * the call's start. From then on it is a keyed write: its answer is stored, a failure releases the
 * key, and a retry with the key gets 409 while it runs, its answer once it has, or — if this process
 * died — a replay. So a write the gateway gave up on (504) is never stored silently: the 504 names
 * the key that resolves it (issue 46: 16 batches answered 504 and were all stored). A write that
 * answers in time, nearly every one, never touches idempotency_keys. If the key is taken (a client
 * reused it by hand), the write answers as an unkeyed one.
 */
async function runWithLateClaim(
  db: Database,
  owner: string,
  where: KeyOf,
  hashRequest: () => string,
  output: DescMessage,
  run: () => Promise<MessageShape<DescMessage>>,
  claimAfterMs: number,
): Promise<MessageShape<DescMessage>> {
  const startedAt = Date.now();
  const outcome = run().then(
    (response) => ({ ok: true as const, response }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), claimAfterMs);
  });
  const early = await Promise.race([outcome, late]);
  clearTimeout(timer);
  if (early !== "late") {
    if (early.ok) return early.response;
    throw early.error;
  }
  const claimId = randomUUID();
  const { tenantId, methodName, key } = where;
  const elapsedSeconds = (Date.now() - startedAt) / 1000;
  const claimed = await db.sql<{ claimed: boolean }[]>`
    insert into idempotency_keys (tenant_id, method, key, request_sha256, owner, claim, created_at)
    values (${tenantId}, ${methodName}, ${key}, ${hashRequest()}, ${owner}, ${claimId},
            now() - make_interval(secs => ${elapsedSeconds}))
    on conflict do nothing
    returning true as claimed`.catch(() => []);
  const result = await outcome;
  if (claimed.length > 0) {
    const settle = result.ok
      ? db.sql`
          update idempotency_keys set response = ${Buffer.from(toBinary(output, result.response))}
          where tenant_id = ${tenantId} and method = ${methodName} and key = ${key} and claim = ${claimId}`
      : db.sql`
          delete from idempotency_keys
          where tenant_id = ${tenantId} and method = ${methodName} and key = ${key}
            and claim = ${claimId} and response is null`;
    // Not stored (the database went away again): the key stays claimed by this live process until
    // its heartbeat stops; a retry then replays, which finds the write by its content.
    await settle.catch(() => undefined);
  }
  if (result.ok) return result.response;
  throw result.error;
}

/** The service with each of its writes listed above wrapped by `idempotent`. */
export function withIdempotentWrites<S extends DescService>(
  db: Database,
  owner: string,
  service: S,
  impl: Partial<ServiceImpl<S>>,
): Partial<ServiceImpl<S>> {
  const wrapped: Record<string, unknown> = { ...impl };
  for (const method of service.methods) {
    const handler = (impl as Record<string, unknown>)[method.localName];
    if (method.methodKind !== "unary" || typeof handler !== "function") continue;
    if (!KEYED_WRITE_METHODS.has(`${service.typeName}/${method.name}`)) continue;
    wrapped[method.localName] = idempotent(
      db,
      owner,
      `${service.typeName}/${method.name}`,
      method.input,
      method.output,
      (request, ctx) => Promise.resolve((handler as UnaryHandler)(request, ctx)),
    );
  }
  return wrapped as Partial<ServiceImpl<S>>;
}
