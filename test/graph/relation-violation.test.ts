import test from "ava";
import fc from "fast-check";
import {
  type Endpoint,
  endpointViolation,
  relationTypeViolation,
} from "../../core/graph/relation-violation.js";
import {
  findRelationType,
  MEMORY_KINDS,
  MEMORY_TYPES,
  RELATION_TYPES,
} from "../../core/memories/relation-types.js";

// The registry rules as pure functions: which rule fires for which input, and that its message
// names it. Service-level tests (link.test.ts) show the same through gRPC, MCP and REST.

const SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

test("property: any string is exactly one of malformed, unknown, reserved or a registered type", (t) => {
  const names = fc.oneof(
    fc.string(),
    fc.stringMatching(SNAKE),
    fc.constantFrom(...RELATION_TYPES.map((r) => r.name)),
  );
  fc.assert(
    fc.property(names, fc.boolean(), (name, manual) => {
      const result = relationTypeViolation(name, manual);
      const registered = findRelationType(name);
      if (!SNAKE.test(name)) {
        return "violation" in result && result.violation.rule === "rel_type_format";
      }
      if (!registered) return "violation" in result && result.violation.rule === "rel_type_unknown";
      if (manual && registered.lineage) {
        return "violation" in result && result.violation.rule === "rel_type_reserved";
      }
      return "type" in result && result.type === registered;
    }),
    { numRuns: 2000 },
  );
  t.pass();
});

test("every violation message names its rule and the offending value", (t) => {
  for (const [name, rule] of [
    ["owns", "rel_type_format"],
    ["LIKES", "rel_type_unknown"],
    ["SUPERSEDED_BY", "rel_type_reserved"],
  ] as const) {
    const result = relationTypeViolation(name, true);
    if (!("violation" in result)) return t.fail(name);
    t.is(result.violation.rule, rule);
    t.true(result.violation.message.includes(`rule ${rule}`), result.violation.message);
    t.true(result.violation.message.includes(name));
    t.is(result.violation.field, "rel_type");
  }
  // update_fact itself may write SUPERSEDES.
  t.true("type" in relationTypeViolation("SUPERSEDES", false));
});

const endpoints: Endpoint[] = MEMORY_KINDS.flatMap((kind) =>
  MEMORY_TYPES.map((memoryType) => ({ id: `${kind}-${memoryType}`, kind, memoryType })),
);

test("shape: for every type and every pair of endpoint kinds, the check agrees with the registry table", (t) => {
  let checked = 0;
  for (const type of RELATION_TYPES) {
    for (const from of endpoints) {
      for (const to of endpoints) {
        if (from.id === to.id) continue;
        const allowed = (list: readonly string[], e: Endpoint) =>
          list.length === 0 || list.includes(e.kind) || list.includes(e.memoryType);
        const violation = endpointViolation(type, from, to);
        const expected = !allowed(type.sourceKinds, from)
          ? "from_id"
          : !allowed(type.targetKinds, to)
            ? "to_id"
            : undefined;
        t.is(violation?.field, expected, `${from.id} ${type.name} ${to.id}`);
        if (violation) {
          t.is(violation.rule, "shape");
          t.true(violation.message.includes("(rule shape)"));
          t.true(violation.message.includes(expected === "from_id" ? from.id : to.id));
        }
        checked++;
      }
    }
  }
  t.true(checked > 1000);
});

test("self-loops are refused for every registered type", (t) => {
  const node = endpoints.find((e) => e.memoryType === "entity" && e.kind === "entry")!;
  const episode = endpoints.find((e) => e.memoryType === "episodic")!;
  for (const type of RELATION_TYPES) {
    const self = type.sourceKinds.includes("episodic") ? episode : node;
    t.is(endpointViolation(type, self, self)?.rule, "self_loop", type.name);
  }
});

test("an inverse link is valid exactly when the forward link is", (t) => {
  for (const type of RELATION_TYPES) {
    const inverse = findRelationType(type.inverse)!;
    for (const from of endpoints) {
      for (const to of endpoints) {
        if (from.id === to.id) continue;
        t.is(
          endpointViolation(type, from, to) === undefined,
          endpointViolation(inverse, to, from) === undefined,
          `${from.id} ${type.name} ${to.id}`,
        );
      }
    }
  }
});
