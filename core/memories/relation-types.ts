/**
 * The relation-type registry: the one place that says which `rel_type` names exist, what each
 * one's inverse is, which memories may sit at either end, and who may write it. The spec leaves the
 * list open ("Complete list of allowed relation types: not shown"); docs/graph.md documents this
 * table and GetGraphSchema returns it, so clients never hard-code it.
 */

/** How a memory came in (memories.kind). */
export type MemoryKindName = "document" | "entry";
/** What a memory holds (memories.memory_type; REST's six values, MCP uses the first four). */
export type MemoryTypeName = "semantic" | "episodic" | "procedural" | "reference" | "working" | "entity";
/** A shape constraint lists these; an endpoint matches when its kind or its memory_type is listed. */
export type NodeTag = MemoryKindName | MemoryTypeName;

export const MEMORY_KINDS: readonly MemoryKindName[] = ["document", "entry"];
export const MEMORY_TYPES: readonly MemoryTypeName[] = [
  "semantic",
  "episodic",
  "procedural",
  "reference",
  "working",
  "entity",
];

export interface RelationType {
  readonly name: string;
  readonly inverse: string;
  /** Allowed source endpoints; empty means any memory. */
  readonly sourceKinds: readonly NodeTag[];
  /** Allowed target endpoints; empty means any memory. */
  readonly targetKinds: readonly NodeTag[];
  readonly allowSelfLoop: boolean;
  /**
   * Lineage types record history between versions of one fact: written only by UpdateFact, never
   * linked or unlinked by hand, never closed, and not followed by graph expansion (a hop from a
   * version to its predecessor would only lead back to the same fact).
   */
  readonly lineage: boolean;
  readonly description: string;
}

/** The spec's format for relation names (also enforced by protovalidate on the request). */
export const REL_TYPE_PATTERN = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

interface PairSpec {
  readonly name: string;
  /** Unset for symmetric types (their own inverse). */
  readonly inverse?: string;
  readonly source?: readonly NodeTag[];
  readonly target?: readonly NodeTag[];
  readonly lineage?: boolean;
  readonly description: string;
  /** Description of the inverse direction. */
  readonly inverseDescription?: string;
}

const ANY: readonly NodeTag[] = [];

// One line per relation: the inverse entry is derived (source and target swapped), so a pair can
// never disagree with itself. No registered type allows a self-loop: a memory relating to itself
// carries no information for recall and would only make traversal revisit its seed.
const PAIRS: readonly PairSpec[] = [
  {
    name: "RELATED_TO",
    description: "Loosely related; symmetric catch-all when no sharper type fits.",
  },
  {
    name: "CONTRADICTS",
    description: "The two memories state incompatible things; symmetric.",
  },
  {
    name: "SAME_AS",
    source: ["entity"],
    target: ["entity"],
    description: "Two entity memories describe the same real-world thing; symmetric.",
  },
  {
    name: "OWNS",
    inverse: "OWNED_BY",
    source: ["entity"],
    description: "An entity (person, team, company) owns the target.",
    inverseDescription: "The source is owned by the target entity.",
  },
  {
    name: "FOR_CLIENT",
    inverse: "CLIENT_OF",
    target: ["entity"],
    description: "The source is work done for the target client entity.",
    inverseDescription: "The client entity for whom the target was done.",
  },
  {
    name: "REFERENCES",
    inverse: "REFERENCED_BY",
    description: "The source cites or points to the target.",
    inverseDescription: "The source is cited by the target.",
  },
  {
    name: "MENTIONS",
    inverse: "MENTIONED_BY",
    target: ["entity"],
    description: "The source names the target entity in passing.",
    inverseDescription: "The entity is named in the target.",
  },
  {
    name: "ABOUT",
    inverse: "SUBJECT_OF",
    target: ["entity"],
    description: "The source is primarily about the target entity.",
    inverseDescription: "The entity is the main subject of the target.",
  },
  {
    name: "PART_OF",
    inverse: "HAS_PART",
    description: "The source is a part (section, step, member) of the target.",
    inverseDescription: "The source contains the target as a part.",
  },
  {
    name: "DEPENDS_ON",
    inverse: "DEPENDENCY_OF",
    description: "The source needs the target (a procedure needs a tool, a task another task).",
    inverseDescription: "The source is needed by the target.",
  },
  {
    name: "DERIVED_FROM",
    inverse: "SOURCE_OF",
    description:
      "The source was produced from the target (a summary from a document, a note from a meeting).",
    inverseDescription: "The source is what the target was produced from.",
  },
  {
    name: "PRECEDES",
    inverse: "FOLLOWS",
    source: ["episodic"],
    target: ["episodic"],
    description: "An episode happened before the target episode.",
    inverseDescription: "An episode happened after the target episode.",
  },
  {
    name: "WORKS_FOR",
    inverse: "EMPLOYS",
    source: ["entity"],
    target: ["entity"],
    description: "A person entity works for an organisation entity.",
    inverseDescription: "An organisation entity employs a person entity.",
  },
  {
    name: "LOCATED_IN",
    inverse: "LOCATION_OF",
    source: ["entity"],
    target: ["entity"],
    description: "An entity is situated in a place entity.",
    inverseDescription: "A place entity contains the target entity.",
  },
  {
    name: "SUPERSEDES",
    inverse: "SUPERSEDED_BY",
    lineage: true,
    description: "The newer version of a fact replaces the older one; written only by update_fact.",
    inverseDescription: "The older version was replaced by the target; written only by update_fact.",
  },
];

function expand(pairs: readonly PairSpec[]): RelationType[] {
  const out: RelationType[] = [];
  for (const p of pairs) {
    const source = p.source ?? ANY;
    const target = p.target ?? ANY;
    const common = { allowSelfLoop: false, lineage: p.lineage ?? false };
    out.push({
      name: p.name,
      inverse: p.inverse ?? p.name,
      sourceKinds: source,
      targetKinds: target,
      ...common,
      description: p.description,
    });
    if (p.inverse !== undefined) {
      out.push({
        name: p.inverse,
        inverse: p.name,
        sourceKinds: target,
        targetKinds: source,
        ...common,
        description: p.inverseDescription ?? `Inverse of ${p.name}.`,
      });
    }
  }
  return out;
}

/** Every registered relation type, pairs adjacent, in documentation order. */
export const RELATION_TYPES: readonly RelationType[] = expand(PAIRS);

const BY_NAME: ReadonlyMap<string, RelationType> = new Map(RELATION_TYPES.map((t) => [t.name, t]));

export function findRelationType(name: string): RelationType | undefined {
  return BY_NAME.get(name);
}

/** Names of the lineage types (SUPERSEDES, SUPERSEDED_BY), for SQL filters. */
export const LINEAGE_REL_TYPES: readonly string[] = RELATION_TYPES.filter((t) => t.lineage).map(
  (t) => t.name,
);

export const SUPERSEDES = "SUPERSEDES";
export const SUPERSEDED_BY = "SUPERSEDED_BY";

export function isSymmetric(type: RelationType): boolean {
  return type.inverse === type.name;
}
