import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { CliError } from "./cli-error.js";

const validator = createValidator();

/**
 * Checks CLI input against the same protovalidate rules the API enforces (slug pattern, name
 * length, scopes), so an operator cannot create what the API would refuse.
 */
export function validateRequest<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): void {
  const result = validator.validate(schema, create(schema, init));
  if (result.kind === "valid") return;
  if (result.kind === "error") throw result.error;
  const [first] = result.violations;
  const field = first?.field.map((f) => ("name" in f ? f.name : "")).join(".") ?? "";
  throw new CliError(
    `${field ? `--${field.replaceAll("_", "-")}: ` : ""}${first?.message ?? "invalid value"}`,
  );
}
