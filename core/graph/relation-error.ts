import { Code, type ConnectError } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import { coreError } from "../errors.js";
import type { RelationViolation } from "./relation-violation.js";

/**
 * A broken registry rule as INVALID_ARGUMENT (spec "Errors": a relation violating the shape
 * constraint is 400; JSON-RPC -32602). The rule's name is in the message and in ErrorInfo metadata
 * `rule`, so clients can branch on it without parsing text.
 */
export function relationError(violation: RelationViolation): ConnectError {
  return coreError(Code.InvalidArgument, ErrorReason.VALIDATION, violation.message, {
    field: violation.field,
    metadata: { rule: violation.rule },
  });
}
