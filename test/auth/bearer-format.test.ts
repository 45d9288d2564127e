import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import fc from "fast-check";
import { API_TOKEN_PATTERN, parseBearer } from "../../core/auth/token-format.js";
import { TenancyService } from "../../gen/memory/v1/tenancy_service_pb.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";

// The Authorization header is read strictly (spec "Authentication" 1): scheme exactly "Bearer",
// exactly one space, `kmt_` + 43 base64url characters. Anything else is 401 with {error}, through
// REST and gRPC alike, never a 500 and never a guess.

let service: TestService;
let tenant: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  tenant = await service.createTenant({ scopes: ["read"] });
});

test.after.always(async () => {
  await service?.stop();
});

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function malformed(token: string): [string, string][] {
  const body = token.slice(4);
  return [
    ["wrong prefix", `Bearer kmx_${body}`],
    ["upper-case prefix", `Bearer KMT_${body}`],
    ["no prefix", `Bearer ${body}`],
    ["42 characters", `Bearer kmt_${body.slice(1)}`],
    ["44 characters", `Bearer kmt_${body}A`],
    ["base64 '+'", `Bearer kmt_${body.slice(1)}+`],
    ["base64 '/'", `Bearer kmt_${body.slice(1)}/`],
    ["padding '='", `Bearer kmt_${body.slice(1)}=`],
    ["a dot", `Bearer kmt_${body.slice(1)}.`],
    ["two spaces", `Bearer  ${token}`],
    ["tab", `Bearer\t${token}`],
    ["lower-case scheme", `bearer ${token}`],
    ["upper-case scheme", `BEARER ${token}`],
    ["other scheme", `Token ${token}`],
    ["basic", `Basic ${Buffer.from(`x:${token}`).toString("base64")}`],
    ["scheme only", "Bearer"],
    ["token without scheme", token],
    ["two tokens", `Bearer ${token} ${token}`],
    ["comma list", `Bearer ${token}, Bearer ${token}`],
  ];
}

const session = (authorization: string) =>
  fetch(`${service.httpUrl}/api/auth/session`, { headers: { authorization } });

test("a well-formed token of the workspace is accepted", async (t) => {
  t.regex(tenant.token, API_TOKEN_PATTERN);
  t.is((await session(`Bearer ${tenant.token}`)).status, 200);
});

test("malformed Authorization headers are 401 with an error body over REST", async (t) => {
  for (const [what, header] of malformed(tenant.token)) {
    const res = await session(header);
    t.is(res.status, 401, what);
    t.regex(res.headers.get("www-authenticate") ?? "", /^Bearer/, what);
    const body = (await res.json()) as { error: string };
    t.is(typeof body.error, "string", what);
    t.false(body.error.includes(tenant.token.slice(4)), `${what}: the error does not echo the token`);
  }
});

test("a well-formed but unknown token is 401", async (t) => {
  const res = await session(`Bearer kmt_${"A".repeat(43)}`);
  t.is(res.status, 401);
  t.regex(((await res.json()) as { error: string }).error, /invalid or revoked/);
});

test("malformed Authorization metadata is UNAUTHENTICATED over gRPC", async (t) => {
  const client = createClient(TenancyService, createGrpcTransport({ baseUrl: service.grpcUrl }));
  for (const [what, header] of malformed(tenant.token)) {
    const error = await t.throwsAsync(
      client.getSession({}, { headers: { authorization: header } }),
      undefined,
      what,
    );
    t.regex(error?.message ?? "", /unauthenticated/i, what);
  }
  const ok = await client.getSession({}, { headers: { authorization: `Bearer ${tenant.token}` } });
  t.is(ok.tenantId, tenant.tenantId);
  // The token it authenticated with (what an MCP session id is bound to, ADR 0425).
  t.is(ok.tokenId, tenant.tokenId);
});

test("a token lacking the scope is 403 on REST (read-only token on a write route)", async (t) => {
  const res = await fetch(`${service.httpUrl}/api/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "t", content: "c" }),
  });
  t.is(res.status, 403);
  t.regex(((await res.json()) as { error: string }).error, /'write' scope/);
  const writeOnly = await tenant.issueToken(["write"]);
  const recall = await fetch(`${service.httpUrl}/api/memory/recall`, {
    method: "POST",
    headers: { authorization: `Bearer ${writeOnly.token}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "x" }),
  });
  t.is(recall.status, 403);
  t.regex(((await recall.json()) as { error: string }).error, /'read' scope/);
});

test("parseBearer accepts exactly 'Bearer ' + a documented token (property)", (t) => {
  const tokenArb = fc
    .array(fc.constantFrom(...B64URL), { minLength: 43, maxLength: 43 })
    .map((c) => `kmt_${c.join("")}`);
  fc.assert(
    fc.property(tokenArb, (token) => {
      const parsed = parseBearer(`Bearer ${token}`);
      return parsed !== undefined && "token" in parsed && parsed.token === token;
    }),
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 80 }), (header) => {
      const parsed = parseBearer(header);
      if (header === "") return parsed === undefined;
      if (parsed === undefined) return false;
      if ("token" in parsed)
        return header === `Bearer ${parsed.token}` && API_TOKEN_PATTERN.test(parsed.token);
      return typeof parsed.error === "string";
    }),
  );
  t.pass();
});

test("random Authorization headers never get anything but 401 from the REST edge", async (t) => {
  const headers = fc.sample(
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 60 }),
      fc.string({ maxLength: 50 }).map((s) => `Bearer ${s}`),
      fc.string({ maxLength: 5 }).map((s) => `Bearer kmt_${"a".repeat(40)}${s}`),
    ),
    { numRuns: 60, seed: 4242 },
  );
  for (const header of headers) {
    // HTTP cannot carry control characters or a leading/trailing space in a header value.
    const value = header.trim();
    if (!value || /[^\x20-\x7e]/.test(value)) continue;
    const res = await session(value);
    t.is(res.status, 401, JSON.stringify(value));
  }
});
