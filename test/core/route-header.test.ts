import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import test from "ava";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { StatusService } from "../../gen/memory/v1/status_service_pb.js";
import { ROUTE_HEADER, tenantRoute } from "../../lib/gateway-metadata.js";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";

// ADR 0380: core names the workspace route of every call authenticated to a workspace, answers and
// errors alike, so gateways in front of several cores can send the workspace's calls to one of them.

let service: TestService;
let a: TestTenant;
let b: TestTenant;

test.before(async () => {
  service = await startTestService({ models: testModels(), worker: false });
  a = await service.createTenant();
  b = await service.createTenant();
});

test.after.always(async () => {
  await service?.stop();
});

const transport = () => createGrpcTransport({ baseUrl: service.grpcUrl });
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

test("an answer to a workspace's credential names the workspace's route, the same for each of its tokens", async (t) => {
  const status = createClient(StatusService, transport());
  const second = await a.issueToken(["read"], "second token");
  const routes: (string | null)[] = [];
  for (const token of [a.token, second.token, b.token]) {
    await status.getStatus(
      {},
      {
        headers: auth(token),
        onHeader: (header) => {
          routes.push(header.get(ROUTE_HEADER));
        },
      },
    );
  }
  t.deepEqual(routes, [tenantRoute(a.tenantId), tenantRoute(a.tenantId), tenantRoute(b.tenantId)]);
  t.not(routes[0], routes[2]);
  t.false(String(routes[0]).includes(a.tenantId), "a hash, not the tenant id");
});

test("an error of a workspace's call names the route too; a call without credentials names none", async (t) => {
  const graph = createClient(GraphService, transport());
  const error = await t.throwsAsync(
    graph.listRelations({ memoryId: "00000000-0000-4000-8000-000000000000" }, { headers: auth(a.token) }),
  );
  const notFound = ConnectError.from(error);
  t.is(notFound.code, Code.NotFound);
  t.is(notFound.metadata.get(ROUTE_HEADER), tenantRoute(a.tenantId));

  const anonymous = ConnectError.from(
    await t.throwsAsync(graph.listRelations({ memoryId: "00000000-0000-4000-8000-000000000000" })),
  );
  t.is(anonymous.code, Code.Unauthenticated);
  t.is(anonymous.metadata.get(ROUTE_HEADER), null);
});
