import {
  findRelationType,
  type MemoryKindName,
  type MemoryTypeName,
  type NodeTag,
  REL_TYPE_PATTERN,
  type RelationType,
} from "../memories/index.js";

/** The registry rule a link request broke; carried in ErrorInfo metadata and named in the message. */
export type RelationRule =
  | "rel_type_format"
  | "rel_type_unknown"
  | "rel_type_reserved"
  | "self_loop"
  | "shape";

export interface RelationViolation {
  readonly rule: RelationRule;
  readonly field: "rel_type" | "from_id" | "to_id";
  readonly message: string;
}

/** The facts about one endpoint that shape constraints look at. */
export interface Endpoint {
  readonly id: string;
  readonly kind: MemoryKindName;
  readonly memoryType: MemoryTypeName;
}

/**
 * Checks a relation name against the format and the registry. `manual` is true for link/unlink by a
 * user: lineage types (SUPERSEDES/SUPERSEDED_BY) are then refused, because history is written only
 * by update_fact and a hand-made SUPERSEDES would claim a version replaced another when it did not.
 */
export function relationTypeViolation(
  name: string,
  manual: boolean,
): { violation: RelationViolation } | { type: RelationType } {
  if (!REL_TYPE_PATTERN.test(name)) {
    return {
      violation: {
        rule: "rel_type_format",
        field: "rel_type",
        message: `rel_type "${name}" is malformed (rule rel_type_format): use UPPER_SNAKE_CASE such as REFERENCES`,
      },
    };
  }
  const type = findRelationType(name);
  if (!type) {
    return {
      violation: {
        rule: "rel_type_unknown",
        field: "rel_type",
        message: `rel_type ${name} is not a registered relation type (rule rel_type_unknown); GetGraphSchema and docs/graph.md list the registry`,
      },
    };
  }
  if (manual && type.lineage) {
    return {
      violation: {
        rule: "rel_type_reserved",
        field: "rel_type",
        message: `rel_type ${name} is reserved (rule rel_type_reserved): it is written only by update_fact`,
      },
    };
  }
  return { type };
}

function matches(allowed: readonly NodeTag[], endpoint: Endpoint): boolean {
  return allowed.length === 0 || allowed.includes(endpoint.kind) || allowed.includes(endpoint.memoryType);
}

function describe(endpoint: Endpoint): string {
  return `${endpoint.kind === "entry" ? "an entry" : "a document"} of memory_type ${endpoint.memoryType}`;
}

/** Self-loop and shape rules for a registered type between two resolved endpoints. */
export function endpointViolation(
  type: RelationType,
  from: Endpoint,
  to: Endpoint,
): RelationViolation | undefined {
  if (from.id === to.id && !type.allowSelfLoop) {
    return {
      rule: "self_loop",
      field: "to_id",
      message: `${type.name} cannot link memory ${from.id} to itself (rule self_loop)`,
    };
  }
  if (!matches(type.sourceKinds, from)) {
    return {
      rule: "shape",
      field: "from_id",
      message: `${type.name} needs a source of kind ${type.sourceKinds.join(" or ")}, but memory ${from.id} is ${describe(from)} (rule shape)`,
    };
  }
  if (!matches(type.targetKinds, to)) {
    return {
      rule: "shape",
      field: "to_id",
      message: `${type.name} needs a target of kind ${type.targetKinds.join(" or ")}, but memory ${to.id} is ${describe(to)} (rule shape)`,
    };
  }
  return undefined;
}
