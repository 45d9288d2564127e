import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import {
  contentRequired,
  coreError,
  invalidArgument,
  notFound,
  permissionDenied,
  planGateError,
  rateLimited,
  tooLarge,
  unauthenticated,
} from "../../core/errors.js";
import { JSON_RPC_CODES } from "../../gateway-mcp/json-rpc-codes.js";
import { JSON_RPC_CODE_BY_GRPC_CODE, toJsonRpcError } from "../../gateway-mcp/to-json-rpc-error.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";

// Written out here rather than read from the module: the test states the contract of docs/mcp.md.
const EXPECTED: Record<number, { code: number; httpStatus: number }> = {
  [Code.Canceled]: { code: -32603, httpStatus: 200 },
  [Code.Unknown]: { code: -32603, httpStatus: 200 },
  [Code.InvalidArgument]: { code: -32602, httpStatus: 200 },
  [Code.DeadlineExceeded]: { code: -32006, httpStatus: 200 },
  [Code.NotFound]: { code: -32004, httpStatus: 200 },
  [Code.AlreadyExists]: { code: -32005, httpStatus: 200 },
  [Code.PermissionDenied]: { code: -32002, httpStatus: 200 },
  [Code.ResourceExhausted]: { code: -32029, httpStatus: 429 },
  [Code.FailedPrecondition]: { code: -32005, httpStatus: 200 },
  [Code.Aborted]: { code: -32005, httpStatus: 200 },
  [Code.OutOfRange]: { code: -32602, httpStatus: 200 },
  [Code.Unimplemented]: { code: -32603, httpStatus: 200 },
  [Code.Internal]: { code: -32603, httpStatus: 200 },
  [Code.Unavailable]: { code: -32006, httpStatus: 200 },
  [Code.DataLoss]: { code: -32603, httpStatus: 200 },
  [Code.Unauthenticated]: { code: -32001, httpStatus: 401 },
};

const ALL_CODES = Object.values(Code).filter((v): v is Code => typeof v === "number");

test("every gRPC code has a JSON-RPC code, and the table says which", (t) => {
  t.is(ALL_CODES.length, 16);
  for (const code of ALL_CODES) {
    t.is<number | undefined, number | undefined>(
      JSON_RPC_CODE_BY_GRPC_CODE[code],
      EXPECTED[code]?.code,
      Code[code],
    );
  }
});

test("a plain ConnectError of each code maps to its JSON-RPC code, HTTP status and a reason", (t) => {
  for (const code of ALL_CODES) {
    const error = toJsonRpcError(new ConnectError("something went wrong", code));
    t.is<number | undefined, number | undefined>(error.code, EXPECTED[code]?.code, Code[code]);
    t.is<number | undefined, number | undefined>(error.httpStatus, EXPECTED[code]?.httpStatus, Code[code]);
    t.regex(String(error.data?.reason), /^[a-z_]+$/, Code[code]);
  }
  t.is(toJsonRpcError(new ConnectError("x", Code.DeadlineExceeded)).data?.reason, "deadline_exceeded");
  t.is(toJsonRpcError(new ConnectError("x", Code.Unimplemented)).data?.reason, "unimplemented");
});

test("invalid and out-of-range arguments from core are -32602 naming the field", (t) => {
  const error = toJsonRpcError(invalidArgument("k", "k must be between 1 and 25"));
  t.is(error.code, JSON_RPC_CODES.invalidParams);
  t.is(error.message, "k must be between 1 and 25");
  t.deepEqual(error.data, { reason: "validation", field: "k" });
});

test("content_required, too_large and ingest_failed are -32603 told apart by data.reason", (t) => {
  const required = toJsonRpcError(contentRequired());
  t.is(required.code, -32603);
  t.deepEqual(required.data, { reason: "content_required", field: "content" });
  const large = toJsonRpcError(tooLarge("content", "1,000,000 characters", "split it"));
  t.is(large.code, -32603);
  t.is(large.data?.reason, "too_large");
  const failed = toJsonRpcError(
    coreError(Code.Internal, ErrorReason.INGEST_FAILED, "embedding failed; the memory is marked failed"),
  );
  t.is(failed.code, -32603);
  t.is(failed.data?.reason, "ingest_failed");
  t.is(failed.message, "embedding failed; the memory is marked failed");
  t.is(failed.httpStatus, 200);
});

test("a provider error is -32000", (t) => {
  const error = toJsonRpcError(
    coreError(Code.Unavailable, ErrorReason.PROVIDER_ERROR, "the embedding provider answered 500"),
  );
  t.is(error.code, JSON_RPC_CODES.providerError);
  t.is(error.data?.reason, "provider_error");
});

test("a missing scope is -32002", (t) => {
  const error = toJsonRpcError(permissionDenied("this call needs the 'write' scope, which the token lacks"));
  t.is(error.code, -32002);
  t.regex(error.message, /write/);
  t.is(error.httpStatus, 200);
});

test("unknown ids are -32004 not_found", (t) => {
  const error = toJsonRpcError(notFound("memory 6f1c…"));
  t.is(error.code, -32004);
  t.deepEqual(error.data, { reason: "not_found" });
});

test("the plan gate is -32003 with the spec's plan-gate body as data", (t) => {
  const error = toJsonRpcError(
    planGateError({
      feature: "memories",
      currentPlan: "free",
      requiredPlans: ["plus", "pro"],
      limit: 100n,
      used: 100n,
      message: "memory limit reached: 100 of 100",
      upgradeUrl: "https://example.test/upgrade",
    }),
  );
  t.is(error.code, -32003);
  t.is(error.httpStatus, 200);
  t.deepEqual(error.data, {
    error: "plan_upgrade_required",
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["plus", "pro"],
    limit: 100,
    used: 100,
    message: "memory limit reached: 100 of 100",
    upgradeUrl: "https://example.test/upgrade",
  });
});

test("a rate limit is HTTP 429 with Retry-After in seconds", (t) => {
  const error = toJsonRpcError(rateLimited(12.2));
  t.is(error.code, -32029);
  t.is(error.httpStatus, 429);
  t.is(error.headers["retry-after"], "13");
  t.is(error.data?.retry_after_seconds, 13);
});

test("missing credentials are HTTP 401 with WWW-Authenticate: Bearer", (t) => {
  const error = toJsonRpcError(unauthenticated());
  t.is(error.code, -32001);
  t.is(error.httpStatus, 401);
  t.regex(error.headers["www-authenticate"] ?? "", /^Bearer /);
});

test("errors core did not model do not leak their message", (t) => {
  const error = toJsonRpcError(new Error("connection string postgres://secret@db"));
  t.is(error.code, -32603);
  t.is(error.message, "internal error");
  t.false(JSON.stringify(error.toErrorObject()).includes("secret"));
});
