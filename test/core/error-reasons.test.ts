import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import test from "ava";
import { createLogger } from "../../config/logger.js";
import { createErrorInterceptor } from "../../core/error-interceptor.js";
import {
  contentRequired,
  coreError,
  planGateError,
  rateLimited,
  type SentErrorReason,
  tooLarge,
} from "../../core/errors.js";
import { readErrorDetails } from "../../gateway-kit/error-details.js";
import { JSON_RPC_CODES } from "../../gateway-mcp/json-rpc-codes.js";
import { toJsonRpcError } from "../../gateway-mcp/to-json-rpc-error.js";
import { toHttpError } from "../../gateway-rest/http-errors.js";
import { ErrorInfoSchema, ErrorReason, ErrorReasonSchema } from "../../gen/memory/v1/errors_pb.js";
import { StatusService } from "../../gen/memory/v1/status_service_pb.js";

// Every ErrorReason against every gRPC code, through both gateways' one mapping module each: a
// reason added to the proto must get a decision in both tables (the compiler asks) and must map to
// a status and a code the docs list.

const ALL_CODES = Object.values(Code).filter((v): v is Code => typeof v === "number");
const ALL_REASONS = Object.values(ErrorReason).filter((v): v is ErrorReason => typeof v === "number");
const SENT_REASONS = ALL_REASONS.filter((r): r is SentErrorReason => r !== ErrorReason.UNSPECIFIED);

/** The statuses of docs/rest.md "Errors" that a failed core call can produce. */
const DOCUMENTED_HTTP_STATUSES = new Set([
  400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 499, 500, 501, 502, 503, 504,
]);
const JSON_RPC_CODE_VALUES = new Set<number>(Object.values(JSON_RPC_CODES));

/** The wire word written out from the TypeScript enum's own names, independent of the descriptor. */
const wordOf = (reason: ErrorReason) => ErrorReason[reason].toLowerCase();

function errorInfoOf(error: ConnectError) {
  const [info] = error.findDetails(ErrorInfoSchema);
  if (!info) throw new Error("the core error carries no ErrorInfo");
  return info;
}

test("the TypeScript enum and the proto descriptor list the same reasons", (t) => {
  t.deepEqual(
    ALL_REASONS,
    ErrorReasonSchema.values.map((v) => v.number),
  );
  t.is(ALL_REASONS[0], ErrorReason.UNSPECIFIED);
});

test("every reason travels as reason_code and as its name in lower case without the prefix", (t) => {
  for (const reason of SENT_REASONS) {
    const info = errorInfoOf(coreError(Code.Internal, reason, "m"));
    t.is(info.reasonCode, reason, wordOf(reason));
    t.is(info.reason, wordOf(reason));
    t.regex(info.reason, /^[a-z]+(_[a-z]+)*$/);
  }
  t.is(errorInfoOf(contentRequired()).reason, "content_required");
  t.is(errorInfoOf(coreError(Code.Internal, ErrorReason.INTERNAL, "m")).reason, "internal");
});

test("every reason × every code maps to a documented HTTP status and a JSON-RPC code", (t) => {
  for (const reason of ALL_REASONS) {
    for (const code of ALL_CODES) {
      const label = `${ErrorReason[reason]} × ${Code[code]}`;
      // UNSPECIFIED is what the gateways see for an error without ErrorInfo.
      const error =
        reason === ErrorReason.UNSPECIFIED ? new ConnectError("m", code) : coreError(code, reason, "m");
      t.is(readErrorDetails(error).reasonCode, reason, label);
      const http = toHttpError(error);
      t.true(http.status >= 400 && http.status <= 599, label);
      t.true(DOCUMENTED_HTTP_STATUSES.has(http.status), `${label}: HTTP ${http.status}`);
      const rpc = toJsonRpcError(error);
      t.true(JSON_RPC_CODE_VALUES.has(rpc.code), `${label}: JSON-RPC ${rpc.code}`);
      // Without a reason, data.reason is the gRPC code's name (docs/mcp.md "Errors").
      const word =
        reason === ErrorReason.UNSPECIFIED ? Code[code].replace(/(?<=[a-z])(?=[A-Z])/g, "_") : wordOf(reason);
      t.is(rpc.data?.reason, word.toLowerCase(), label);
    }
  }
});

test("reasons without an entry of their own map exactly like their gRPC code", (t) => {
  const ownHttp = new Set([
    ErrorReason.TOO_LARGE,
    ErrorReason.PLAN_UPGRADE_REQUIRED,
    ErrorReason.PAYMENTS_NOT_CONFIGURED,
    ErrorReason.PROVIDER_ERROR,
    ErrorReason.UNSUPPORTED_MEDIA_TYPE,
    ErrorReason.NO_TEXT,
    ErrorReason.FETCH_FAILED,
  ]);
  const ownRpc = new Set([
    ErrorReason.CONTENT_REQUIRED,
    ErrorReason.TOO_LARGE,
    ErrorReason.NOT_FOUND,
    ErrorReason.PLAN_UPGRADE_REQUIRED,
    ErrorReason.RATE_LIMITED,
    ErrorReason.INGEST_FAILED,
    ErrorReason.PROVIDER_ERROR,
  ]);
  for (const reason of SENT_REASONS) {
    for (const code of ALL_CODES) {
      const label = `${ErrorReason[reason]} × ${Code[code]}`;
      const plain = new ConnectError("m", code);
      const withReason = coreError(code, reason, "m");
      if (!ownHttp.has(reason)) t.is(toHttpError(withReason).status, toHttpError(plain).status, label);
      if (!ownRpc.has(reason)) t.is(toJsonRpcError(withReason).code, toJsonRpcError(plain).code, label);
    }
  }
});

test("plan_upgrade_required is 402 / -32003 with the plan-gate body", (t) => {
  const gate = planGateError({
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["pro"],
    limit: 10n,
    used: 10n,
    message: "memory limit reached",
    upgradeUrl: "https://example.test/upgrade",
  });
  const body = {
    error: "plan_upgrade_required",
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["pro"],
    limit: 10,
    used: 10,
    message: "memory limit reached",
    upgradeUrl: "https://example.test/upgrade",
  };
  const http = toHttpError(gate);
  t.is(http.status, 402);
  t.deepEqual(http.body, body);
  const rpc = toJsonRpcError(gate);
  t.is(rpc.code, -32003);
  t.deepEqual(rpc.data, body);
});

test("too_large is 413 on REST and -32603 told apart by data.reason on MCP", (t) => {
  const error = tooLarge("content", "100 KB", "split it");
  t.is(toHttpError(error).status, 413);
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32603);
  t.deepEqual(rpc.data, { reason: "too_large", field: "content" });
});

test("provider_error is 502 / -32000", (t) => {
  const error = coreError(
    Code.Unavailable,
    ErrorReason.PROVIDER_ERROR,
    "the embedding provider answered 500",
  );
  t.is(toHttpError(error).status, 502);
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32000);
  t.is(rpc.data?.reason, "provider_error");
});

test("rate_limited is 429 / -32029 with Retry-After", (t) => {
  const error = rateLimited(7);
  const http = toHttpError(error);
  t.is(http.status, 429);
  t.is(http.headers["retry-after"], "7");
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32029);
  t.is(rpc.httpStatus, 429);
  t.is(rpc.headers["retry-after"], "7");
  t.deepEqual(rpc.data, { reason: "rate_limited", retry_after_seconds: 7 });
});

test("oauth_rejected follows its gRPC code (400 / 401) and carries the RFC error code", (t) => {
  const grant = coreError(Code.InvalidArgument, ErrorReason.OAUTH_REJECTED, "code already used", {
    metadata: { oauth_error: "invalid_grant" },
  });
  t.is(toHttpError(grant).status, 400);
  t.is(toJsonRpcError(grant).code, -32602);
  t.is(readErrorDetails(grant).metadata.oauth_error, "invalid_grant");
  t.is(errorInfoOf(grant).reason, "oauth_rejected");
  const client = coreError(Code.Unauthenticated, ErrorReason.OAUTH_REJECTED, "client authentication failed", {
    metadata: { oauth_error: "invalid_client" },
  });
  t.is(toHttpError(client).status, 401);
});

test("content_required is 400 on REST and -32603 on MCP", (t) => {
  const error = contentRequired();
  t.is(toHttpError(error).status, 400);
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32603);
  t.deepEqual(rpc.data, { reason: "content_required", field: "content" });
});

// Through core's outermost interceptor and the Connect protocol, as a gateway meets them.
const logger = createLogger("silent");
function statusClientFailingWith(error: unknown) {
  const transport = createRouterTransport(
    (router) => {
      router.service(StatusService, {
        getStatus: () => {
          throw error;
        },
      });
    },
    { router: { interceptors: [createErrorInterceptor(logger)] } },
  );
  return createClient(StatusService, transport);
}

async function failureOf(error: unknown): Promise<ConnectError> {
  try {
    await statusClientFailingWith(error).getStatus({});
  } catch (failure) {
    return ConnectError.from(failure);
  }
  throw new Error("the call did not fail");
}

test("a bug in core is INTERNAL with reason internal: 500 / -32603, without internals", async (t) => {
  const error = await failureOf(new TypeError("cannot read password of undefined"));
  t.is(error.code, Code.Internal);
  t.is(readErrorDetails(error).reasonCode, ErrorReason.INTERNAL);
  const http = toHttpError(error);
  t.is(http.status, 500);
  t.deepEqual(http.body, { error: "internal error" });
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32603);
  t.is(rpc.message, "internal error");
  t.deepEqual(rpc.data, { reason: "internal" });
});

test("a lost database is UNAVAILABLE with reason unavailable: 503 / -32006", async (t) => {
  const error = await failureOf(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
  t.is(error.code, Code.Unavailable);
  t.is(readErrorDetails(error).reasonCode, ErrorReason.UNAVAILABLE);
  t.is(toHttpError(error).status, 503);
  const rpc = toJsonRpcError(error);
  t.is(rpc.code, -32006);
  t.is(rpc.data?.reason, "unavailable");
});

test("an older core's word without reason_code is read through the descriptor", (t) => {
  const fromOlderCore = (reason: string, reasonCode = ErrorReason.UNSPECIFIED) =>
    new ConnectError("m", Code.InvalidArgument, undefined, [
      { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason, reasonCode }) },
    ]);
  for (const reason of SENT_REASONS) {
    t.is(readErrorDetails(fromOlderCore(wordOf(reason))).reasonCode, reason, wordOf(reason));
  }
  t.is(toHttpError(fromOlderCore("too_large")).status, 413);
  // A word or number this gateway does not know yet: the gRPC code decides, the word still travels.
  const newer = fromOlderCore("something_new", 999 as ErrorReason);
  t.is(readErrorDetails(newer).reasonCode, ErrorReason.UNSPECIFIED);
  t.is(toHttpError(newer).status, 400);
  t.is(toJsonRpcError(newer).data?.reason, "something_new");
  t.is(readErrorDetails(fromOlderCore("unspecified")).reasonCode, ErrorReason.UNSPECIFIED);
});

test("a web page fetch's failures: 502 and 504 over REST, -32006 over MCP, the reason word in both", (t) => {
  const failed = coreError(Code.Unavailable, ErrorReason.FETCH_FAILED, "example.com answered HTTP 500", {
    field: "url",
  });
  t.is(toHttpError(failed).status, 502);
  t.is(toJsonRpcError(failed).code, -32006);
  t.is(errorInfoOf(failed).reason, "fetch_failed");
  const slow = coreError(
    Code.DeadlineExceeded,
    ErrorReason.FETCH_TIMEOUT,
    "the page did not arrive within 15 s",
    {
      field: "url",
    },
  );
  t.is(toHttpError(slow).status, 504);
  t.is(toJsonRpcError(slow).code, -32006);
  t.is(errorInfoOf(slow).reason, "fetch_timeout");
  const unsupported = coreError(
    Code.InvalidArgument,
    ErrorReason.UNSUPPORTED_MEDIA_TYPE,
    "the page is image/png",
    {
      field: "url",
    },
  );
  t.is(toHttpError(unsupported).status, 415);
  t.is(toJsonRpcError(unsupported).code, -32602);
  const empty = coreError(Code.InvalidArgument, ErrorReason.NO_TEXT, "the page holds no text", {
    field: "url",
  });
  t.is(toHttpError(empty).status, 422);
});
