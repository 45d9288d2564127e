import { create, type DescFile, type FileRegistry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

type Reflection = typeof v1 | typeof v1alpha;
type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

const NOT_FOUND = 5;

/** The file and everything it imports, dependencies first, each once. */
function withDependencies(file: DescFile): DescFile[] {
  const out: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (f: DescFile) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    for (const dep of f.dependencies) visit(dep);
    out.push(f);
  };
  visit(file);
  return out;
}

function encode(files: DescFile[]): Uint8Array[] {
  return files.map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
}

function answer(registry: FileRegistry, services: readonly string[], req: Request) {
  const mr = req.messageRequest;
  const error = (message: string) =>
    ({ case: "errorResponse", value: { errorCode: NOT_FOUND, errorMessage: message } }) as const;
  switch (mr.case) {
    case "listServices":
      return {
        case: "listServicesResponse",
        value: { service: services.map((name) => ({ name })) },
      } as const;
    case "fileByFilename": {
      const file = registry.getFile(mr.value);
      return file
        ? ({
            case: "fileDescriptorResponse",
            value: { fileDescriptorProto: encode(withDependencies(file)) },
          } as const)
        : error(`file ${mr.value} not found`);
    }
    case "fileContainingSymbol": {
      const symbol = mr.value.replace(/^\./, "");
      const desc =
        registry.get(symbol) ?? registry.getService(symbol.slice(0, symbol.lastIndexOf("."))) ?? undefined;
      const file = desc && "file" in desc ? desc.file : undefined;
      return file
        ? ({
            case: "fileDescriptorResponse",
            value: { fileDescriptorProto: encode(withDependencies(file)) },
          } as const)
        : error(`symbol ${symbol} not found`);
    }
    case "fileContainingExtension": {
      const message = registry.getMessage(mr.value.containingType);
      const ext = message ? registry.getExtensionFor(message, mr.value.extensionNumber) : undefined;
      return ext
        ? ({
            case: "fileDescriptorResponse",
            value: { fileDescriptorProto: encode(withDependencies(ext.file)) },
          } as const)
        : error(`extension ${mr.value.extensionNumber} of ${mr.value.containingType} not found`);
    }
    case "allExtensionNumbersOfType": {
      const numbers: number[] = [];
      for (const type of registry) {
        if (type.kind === "extension" && type.extendee.typeName === mr.value) numbers.push(type.number);
      }
      return {
        case: "allExtensionNumbersResponse",
        value: { baseTypeName: mr.value, extensionNumber: numbers },
      } as const;
    }
    default:
      return error("unsupported reflection request");
  }
}

function createFor<R extends Reflection>(
  api: R,
  registry: FileRegistry,
  services: readonly string[],
): ServiceImpl<R["ServerReflection"]> {
  return {
    async *serverReflectionInfo(requests: AsyncIterable<Request>) {
      for await (const req of requests) {
        yield create(api.ServerReflectionResponseSchema as typeof v1.ServerReflectionResponseSchema, {
          validHost: req.host,
          originalRequest: req as v1.ServerReflectionRequest,
          messageResponse: answer(registry, services, req),
        });
      }
    },
  } as ServiceImpl<R["ServerReflection"]>;
}

/**
 * gRPC server reflection (v1 and v1alpha: grpcurl, Postman, grpc-js tooling) from the protobuf-es
 * file registry. Written here because @grpc/reflection only attaches to a grpc-js Server.
 */
export function createReflectionServices(registry: FileRegistry, services: readonly string[]) {
  return {
    v1: createFor(v1, registry, services),
    v1alpha: createFor(v1alpha, registry, services),
  };
}
