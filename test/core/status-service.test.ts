import { createContextValues, type HandlerContext } from "@connectrpc/connect";
import test from "ava";
import { type Principal, principalKey } from "../../core/auth/principal.js";
import { PLANS } from "../../core/plans/plans.js";
import { type ComponentCheck, createStatusService } from "../../core/status/status-service.js";

// core/status: the overall status is "down" when a required component is, "degraded" when an
// optional one is; informational components (the caller's embedding space) are reported but never
// change it; tenant components appear only for a caller with a workspace.

const ok: ComponentCheck = {
  name: "database",
  optional: false,
  check: async () => ({ status: "ok", detail: "" }),
};
const never = () => new Promise<never>(() => undefined);

function contextOf(principal: Principal): HandlerContext {
  return { values: createContextValues().set(principalKey, principal) } as unknown as HandlerContext;
}

const token: Principal = {
  kind: "token",
  tokenId: "t1",
  tenantId: "00000000-0000-4000-8000-000000000001",
  plan: "plus",
  limits: PLANS.plus,
  scopes: new Set(["read"]),
};

function service(tenantComponent: ComponentCheck, other: ComponentCheck = ok) {
  const seen: string[] = [];
  const status = createStatusService({
    service: "s",
    version: "1",
    embeddingProvider: () => "e",
    reranker: () => "r",
    components: [other],
    tenantComponents: (tenantId) => {
      seen.push(tenantId);
      return [tenantComponent];
    },
    timeoutMs: 50,
  });
  return { status, seen };
}

test("an informational component that times out is reported, the overall status stays ok", async (t) => {
  const { status, seen } = service({
    name: "embedding_space",
    optional: true,
    informational: true,
    check: never,
  });
  const answer = await status.getStatus({} as never, contextOf(token));
  t.is(answer.status, "ok");
  t.like(
    (answer.components ?? []).find((c) => c.name === "embedding_space"),
    { status: "degraded", detail: "no answer within 50 ms" },
  );
  t.deepEqual(seen, [token.tenantId]);
});

test("an optional, non-informational component that fails makes the status degraded", async (t) => {
  const { status } = service({ name: "x", optional: true, check: never });
  t.is((await status.getStatus({} as never, contextOf(token))).status, "degraded");
});

test("tenant components are left out for a caller without a workspace", async (t) => {
  const { status, seen } = service({ name: "x", optional: false, check: never });
  const answer = await status.getStatus({} as never, contextOf({ kind: "anonymous" }));
  t.is(answer.status, "ok");
  t.deepEqual(
    (answer.components ?? []).map((c) => c.name),
    ["database"],
  );
  t.deepEqual(seen, []);
});
