import { type Client, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/memory/v1/errors_pb.js";
import { GraphService } from "../../gen/memory/v1/graph_service_pb.js";
import { IngestService } from "../../gen/memory/v1/ingest_service_pb.js";
import { RecallService } from "../../gen/memory/v1/recall_service_pb.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { loadTestModels } from "../ingest/ingest-test-kit.js";

/** The real service with the real configured models (built-in embedder with its dictionary). */
export async function startRecallService(): Promise<TestService> {
  return startTestService({ models: await loadTestModels() });
}

const bearer =
  (token: string): Interceptor =>
  (next) =>
  (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };

export interface TenantClients {
  readonly recall: Client<typeof RecallService>;
  readonly ingest: Client<typeof IngestService>;
  readonly graph: Client<typeof GraphService>;
}

/** gRPC (HTTP/2) clients of the test service, authenticated as the tenant's token. */
export function clientsFor(service: TestService, tenant: Pick<TestTenant, "token">): TenantClients {
  const transport = createGrpcTransport({ baseUrl: service.grpcUrl, interceptors: [bearer(tenant.token)] });
  return {
    recall: createClient(RecallService, transport),
    ingest: createClient(IngestService, transport),
    graph: createClient(GraphService, transport),
  };
}

/** Stores entries through the real ingest path; returns their ids in order. */
export async function store(clients: TenantClients, entries: readonly { title?: string; content: string }[]) {
  const ids: string[] = [];
  for (const entry of entries) {
    const response = await clients.ingest.storeMemory({
      content: entry.content,
      ...(entry.title !== undefined ? { title: entry.title } : {}),
    });
    ids.push(response.memory?.memoryId ?? "");
  }
  return ids;
}

/** The ErrorInfo field a core error names, with its message. */
export function errorField(error: unknown): { field: string; message: string; code: number } {
  if (!(error instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(error)}`);
  const info = error.findDetails(ErrorInfoSchema)[0];
  return { field: info?.field ?? "", message: error.rawMessage, code: error.code };
}
