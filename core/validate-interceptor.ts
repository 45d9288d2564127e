import type { Path } from "@bufbuild/protobuf/reflect";
import { createValidator } from "@bufbuild/protovalidate";
import type { Interceptor } from "@connectrpc/connect";
import { invalidArgument } from "./errors.js";
import { findUnstorableText } from "./find-unstorable-text.js";

/** "tags[2]", "k": the proto (snake_case) name of a violation's field path. */
function pathToString(path: Path): string {
  let out = "";
  for (const item of path) {
    switch (item.kind) {
      case "field":
      case "oneof":
      case "extension":
        out += out ? `.${item.name}` : item.name;
        break;
      case "list_sub":
        out += `[${item.index}]`;
        break;
      case "map_sub":
        out += `[${String(item.key)}]`;
        break;
    }
  }
  return out;
}

/**
 * Enforces the protovalidate annotations of proto/ (bounds of k and hops, slug pattern, enums, …)
 * on every unary request, once, before any handler. The message names the field, e.g.
 * "k: must be greater than or equal to 1 and less than or equal to 25". Then refuses text PostgreSQL
 * cannot store (NUL, unpaired surrogates) in any field, so every gateway answers 400 / -32602 /
 * INVALID_ARGUMENT naming it.
 */
export function createValidateInterceptor(): Interceptor {
  const validator = createValidator();
  return (next) => async (req) => {
    if (!req.stream) {
      const result = validator.validate(req.method.input, req.message);
      if (result.kind === "invalid") {
        const [first] = result.violations;
        const field = first ? pathToString(first.field) : "";
        throw invalidArgument(field, `${field || "request"}: ${first?.message ?? "invalid value"}`);
      }
      if (result.kind === "error") throw result.error;
      const unstorable = findUnstorableText(req.message);
      if (unstorable) {
        const field = unstorable.field || "request";
        throw invalidArgument(unstorable.field, `${field}: ${unstorable.problem}`);
      }
    }
    return next(req);
  };
}
