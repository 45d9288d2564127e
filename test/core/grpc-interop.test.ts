import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import test from "ava";
import {
  RecallRequestSchema,
  type RecallResponse,
  RecallResponseSchema,
} from "../../gen/memory/v1/recall_service_pb.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { startTestService, type TestService, type TestTenant, waitFor } from "../helpers/test-service.js";

// Interop proof: a plain @grpc/grpc-js client (what internal gRPC clients and buf-generated SDKs
// use) talks to core's connect-node server: health, reflection, auth and error codes.

type HealthClient = grpc.Client & {
  check(req: { service: string }, cb: (err: grpc.ServiceError | null, res: { status: string }) => void): void;
};
type ReflectionClient = grpc.Client & {
  serverReflectionInfo(): grpc.ClientDuplexStream<Record<string, unknown>, Record<string, unknown>>;
};

const loaderOptions = {
  keepCase: true,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: ["vendor/grpc"],
};
const healthPkg = grpc.loadPackageDefinition(
  protoLoader.loadSync("grpc/health/v1/health.proto", loaderOptions),
) as unknown as {
  grpc: { health: { v1: { Health: new (address: string, creds: grpc.ChannelCredentials) => HealthClient } } };
};
const reflectionPkg = grpc.loadPackageDefinition(
  protoLoader.loadSync("grpc/reflection/v1/reflection.proto", loaderOptions),
) as unknown as {
  grpc: {
    reflection: {
      v1: { ServerReflection: new (address: string, creds: grpc.ChannelCredentials) => ReflectionClient };
    };
  };
};

let service: TestService;
let tenant: TestTenant;
let proxy: TcpProxy;
let address: string;

test.before(async () => {
  proxy = await startTcpProxy("127.0.0.1", 5432);
  service = await startTestService({
    mapDatabaseUrl: (url) => {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(proxy.port);
      return u.toString();
    },
  });
  tenant = await service.createTenant();
  address = service.grpcUrl.replace("http://", "");
});

test.after.always(async () => {
  proxy.restore();
  await service?.stop();
  await proxy.close();
});

function healthCheck(serviceName: string): Promise<string> {
  const client = new healthPkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.check({ service: serviceName }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res.status);
    });
  });
}

function reflect(request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const client = new reflectionPkg.grpc.reflection.v1.ServerReflection(
    address,
    grpc.credentials.createInsecure(),
  );
  return new Promise((resolve, reject) => {
    const call = client.serverReflectionInfo();
    call.on("data", (msg: Record<string, unknown>) => {
      resolve(msg);
      call.end();
    });
    call.on("error", (e: Error) => reject(e));
    call.on("end", () => client.close());
    call.write(request);
  });
}

function recall(metadata: grpc.Metadata, query: string): Promise<RecallResponse> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      "/memory.v1.RecallService/Recall",
      (m: ReturnType<typeof create<typeof RecallRequestSchema>>) =>
        Buffer.from(toBinary(RecallRequestSchema, m)),
      (b: Buffer) => fromBinary(RecallResponseSchema, b),
      create(RecallRequestSchema, { query }),
      metadata,
      (err, res) => {
        client.close();
        if (err || !res) reject(err);
        else resolve(res);
      },
    );
  });
}

test.serial("grpc-js health check: SERVING for the server and each memory service", async (t) => {
  t.is(await healthCheck(""), "SERVING");
  t.is(await healthCheck("memory.v1.RecallService"), "SERVING");
});

test.serial("grpc-js health check: unknown service is NOT_FOUND", async (t) => {
  const error = await t.throwsAsync(healthCheck("no.such.Service"));
  t.is((error as grpc.ServiceError).code, grpc.status.NOT_FOUND);
});

test.serial("grpc-js reflection lists every service", async (t) => {
  const res = await reflect({ list_services: "" });
  const services = (res.list_services_response as { service: { name: string }[] }).service.map((s) => s.name);
  for (const name of [
    "memory.v1.RecallService",
    "memory.v1.IngestService",
    "memory.v1.GraphService",
    "memory.v1.TenancyService",
    "memory.v1.BillingService",
    "memory.v1.WebhookService",
    "memory.v1.StatusService",
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
  ]) {
    t.true(services.includes(name), name);
  }
});

test.serial("grpc-js reflection returns the file defining a symbol, with its imports", async (t) => {
  const res = await reflect({ file_containing_symbol: "memory.v1.RecallService" });
  const files = (
    res.file_descriptor_response as { file_descriptor_proto: Buffer[] }
  ).file_descriptor_proto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
  const names = files.map((f) => f.name);
  t.true(names.includes("memory/v1/recall_service.proto"));
  t.true(names.includes("memory/v1/memory.proto"));
  const recallFile = files.find((f) => f.name === "memory/v1/recall_service.proto");
  t.deepEqual(
    recallFile?.service[0]?.method.map((m) => m.name),
    ["Recall", "ListRecent", "GetStats"],
  );
  const missing = await reflect({ file_containing_symbol: "no.such.Symbol" });
  t.is((missing.error_response as { error_code: number }).error_code, grpc.status.NOT_FOUND);
});

test.serial("grpc-js call without credentials is UNAUTHENTICATED; a malformed bearer too", async (t) => {
  const noAuth = await t.throwsAsync(recall(new grpc.Metadata(), "hallo"));
  t.is((noAuth as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
  // grpc-message is encoded the gRPC way, so grpc-js shows it as sent (issue 15: was "%3A").
  t.is(
    (noAuth as grpc.ServiceError).details,
    "missing credentials: send 'Authorization: Bearer <token>' or sign in",
  );
  const md = new grpc.Metadata();
  md.set("authorization", `bearer ${tenant.token}`);
  const badScheme = await t.throwsAsync(recall(md, "hallo"));
  t.is((badScheme as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
});

test.serial(
  "grpc-js call with a valid token reaches validation: empty query is INVALID_ARGUMENT naming the field",
  async (t) => {
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${tenant.token}`);
    const error = await t.throwsAsync(recall(md, "   "));
    t.is((error as grpc.ServiceError).code, grpc.status.INVALID_ARGUMENT);
    t.regex((error as grpc.ServiceError).details, /query/);
    const nul = await t.throwsAsync(recall(md, "Grüße\u0000"));
    t.is((nul as grpc.ServiceError).details, "query: must not contain NUL (\\u0000) characters");
  },
);

test.serial("grpc-js: a public billing call on a server without payments answers UNAVAILABLE", async (t) => {
  // RequestCancellation is public (no credentials needed); without Stripe keys it is "payments not
  // configured" (HTTP 503). (It served as the UNIMPLEMENTED example until issue 16 landed.)
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const error = await new Promise<grpc.ServiceError>((resolve) => {
    client.makeUnaryRequest(
      "/memory.v1.BillingService/RequestCancellation",
      (b: Buffer) => b,
      (b: Buffer) => b,
      // email = "a@b.example" (field 1), workspace = "acme" (field 3): a valid request.
      Buffer.from([0x0a, 0x0b, ...Buffer.from("a@b.example"), 0x1a, 0x04, ...Buffer.from("acme")]),
      new grpc.Metadata(),
      (err) => {
        client.close();
        resolve(err as grpc.ServiceError);
      },
    );
  });
  t.is(error.code, grpc.status.UNAVAILABLE);
  t.regex(error.details, /^payments not configured/);
});

test.serial("grpc-js health check: NOT_SERVING while PostgreSQL is unreachable, SERVING after", async (t) => {
  proxy.cut();
  try {
    const status = await waitFor(
      async () => ((await healthCheck("")) === "NOT_SERVING" ? "NOT_SERVING" : undefined),
      {
        what: "NOT_SERVING",
      },
    );
    t.is(status, "NOT_SERVING");
  } finally {
    proxy.restore();
  }
  t.is(await waitFor(async () => ((await healthCheck("")) === "SERVING" ? "SERVING" : undefined)), "SERVING");
});
