import { Code, ConnectError } from "@connectrpc/connect";
import test from "ava";
import { coreError, invalidArgument, planGateError, rateLimited, tooLarge } from "../../core/errors.js";
import {
  HTTP_STATUS_BY_CODE,
  HTTP_STATUS_BY_REASON,
  toHttpError,
  toRequestError,
} from "../../gateway-rest/http-errors.js";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";

// The one gRPC → HTTP table of the REST gateway, checked against every Code (STYLE "Errors").
const EXPECTED: Readonly<Record<keyof typeof Code, number>> = {
  Canceled: 499,
  Unknown: 500,
  InvalidArgument: 400,
  DeadlineExceeded: 504,
  NotFound: 404,
  AlreadyExists: 409,
  PermissionDenied: 403,
  ResourceExhausted: 429,
  FailedPrecondition: 409,
  Aborted: 409,
  OutOfRange: 400,
  Unimplemented: 501,
  Internal: 500,
  Unavailable: 503,
  DataLoss: 500,
  Unauthenticated: 401,
};

const ALL_CODES = Object.entries(Code).filter(
  (entry): entry is [keyof typeof Code, Code] => typeof entry[1] === "number",
);

test("every gRPC code has exactly one HTTP status", (t) => {
  t.is(ALL_CODES.length, 16);
  for (const [name, code] of ALL_CODES) {
    t.is(HTTP_STATUS_BY_CODE[code], EXPECTED[name], name);
    t.is(toHttpError(new ConnectError("x", code)).status, EXPECTED[name], name);
  }
});

test("every mapped error has the generic body {error: string} and nothing else", (t) => {
  for (const [name, code] of ALL_CODES) {
    const { body } = toHttpError(new ConnectError("some message", code));
    t.deepEqual(Object.keys(body), ["error"], name);
    t.is(typeof body.error, "string", name);
  }
});

test("401 carries WWW-Authenticate, 429 carries Retry-After from RetryInfo", (t) => {
  const unauth = toHttpError(new ConnectError("no", Code.Unauthenticated));
  t.regex(unauth.headers["www-authenticate"] ?? "", /^Bearer /);
  const limited = toHttpError(rateLimited(17.2));
  t.is(limited.status, 429);
  t.is(limited.headers["retry-after"], "18");
  // Without RetryInfo a 429 still tells the client when to come back.
  t.is(toHttpError(new ConnectError("busy", Code.ResourceExhausted)).headers["retry-after"], "60");
});

test("reasons pick the precise status: 402, 413, 422, 502, 503", (t) => {
  t.is(HTTP_STATUS_BY_REASON[ErrorReason.PLAN_UPGRADE_REQUIRED], 402);
  t.is(toHttpError(tooLarge("content", "10 MB", "split it")).status, 413);
  t.is(toHttpError(coreError(Code.InvalidArgument, ErrorReason.VALIDATION, "x")).status, 400);
  t.is(toHttpError(new ConnectError("x", Code.InvalidArgument, undefined, [])).status, 400);
  t.is(
    toHttpError(
      coreError(Code.FailedPrecondition, ErrorReason.PAYMENTS_NOT_CONFIGURED, "payments not configured"),
    ).status,
    503,
  );
  t.is(toHttpError(coreError(Code.Unavailable, ErrorReason.PROVIDER_ERROR, "provider down")).status, 502);
});

test("the plan-gate body is passed through verbatim (spec 'Plan-gate error body')", (t) => {
  const gate = planGateError({
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["pro", "team", "api"],
    limit: 2500n,
    used: 2500n,
    message: "Memory limit reached (2,500 of 2,500).",
    upgradeUrl: "https://example.test/upgrade",
  });
  const mapped = toHttpError(gate);
  t.is(mapped.status, 402);
  t.deepEqual(mapped.body, {
    error: "plan_upgrade_required",
    feature: "memories",
    currentPlan: "free",
    requiredPlans: ["pro", "team", "api"],
    limit: 2500,
    used: 2500,
    message: "Memory limit reached (2,500 of 2,500).",
    upgradeUrl: "https://example.test/upgrade",
  });
  const featureGate = toHttpError(
    planGateError({
      feature: "api_tokens",
      currentPlan: "pro",
      requiredPlans: ["api"],
      message: "",
      upgradeUrl: "u",
    }),
  );
  t.deepEqual(featureGate.body, {
    error: "plan_upgrade_required",
    feature: "api_tokens",
    currentPlan: "pro",
    requiredPlans: ["api"],
    upgradeUrl: "u",
  });
});

test("a field core names in snake_case is reported in REST camelCase", (t) => {
  const mapped = toHttpError(invalidArgument("new_title", "new_title: value length must be at most 1000"));
  t.is(mapped.body.error, "newTitle: value length must be at most 1000");
});

test("unmodelled errors never leak internals", (t) => {
  const mapped = toHttpError(new Error("password=hunter2 at db.ts:12"));
  t.is(mapped.status, 500);
  t.is(mapped.body.error, "internal error");
});

test("UNIMPLEMENTED names the operation that is not available yet", (t) => {
  const mapped = toHttpError(
    new ConnectError("memory.v1.X.Y is not implemented", Code.Unimplemented),
    "GET /api/x",
  );
  t.is(mapped.status, 501);
  t.regex(
    String(mapped.body.error),
    /^GET \/api\/x is not available yet: memory\.v1\.X\.Y is not implemented$/,
  );
});

test("request failures: parser errors become 400/413/415, others without internals", (t) => {
  const options = { validationStatus: 400, operation: "POST /api/x" };
  const parser = (code: string, statusCode: number) => Object.assign(new Error("raw"), { code, statusCode });
  t.is(toRequestError(parser("FST_ERR_CTP_INVALID_JSON_BODY", 400), options).status, 400);
  t.is(toRequestError(parser("FST_ERR_CTP_EMPTY_JSON_BODY", 400), options).status, 400);
  t.is(toRequestError(parser("FST_ERR_CTP_BODY_TOO_LARGE", 413), options).status, 413);
  t.is(toRequestError(parser("FST_ERR_CTP_INVALID_MEDIA_TYPE", 415), options).status, 415);
  const crash = toRequestError(new TypeError("cannot read x of undefined"), options);
  t.deepEqual(crash, { status: 500, body: { error: "internal error" }, headers: {} });
});

test("on a 422 route, fields core rejects answer 422 like fields the schema rejects", (t) => {
  const options = { validationStatus: 422, operation: "POST /api/v1/memory/entries" };
  t.is(toRequestError(invalidArgument("tags[0]", "tags[0]: must not be empty"), options).status, 422);
  t.is(
    toRequestError(
      coreError(Code.InvalidArgument, ErrorReason.CONTENT_REQUIRED, "content is required"),
      options,
    ).status,
    422,
  );
  // Size stays 413 and a plain 400 without a field reason stays 400.
  t.is(toRequestError(tooLarge("content", "100 KB", "split it"), options).status, 413);
  t.is(toRequestError(new ConnectError("x", Code.InvalidArgument), options).status, 400);
});
