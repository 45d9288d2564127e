import { fileURLToPath } from "node:url";
import test from "ava";
import { findCycles, type ImportEdge, readImportGraph, shortestLoop } from "../helpers/import-graph.js";

// Layering rules of the source tree, checked on the import graph that TypeScript's own module
// resolution sees (static imports, re-exports, `import type`, `import("literal")`). A failure lists
// every offending `from -> to` edge.

const root = fileURLToPath(new URL("../..", import.meta.url));
const graph = readImportGraph(root);

/** Whether a repo-relative path lies in one of the folders (given repo-relative, without a slash). */
const inAny =
  (...folders: string[]) =>
  (path: string): boolean =>
    folders.some((folder) => path.startsWith(`${folder}/`));

const GATEWAYS = ["gateway-rest", "gateway-mcp", "gateway-oauth", "gateway-kit"];
const CORE_SERVICES = [
  "core/recall",
  "core/ingest",
  "core/graph",
  "core/tenancy",
  "core/billing",
  "core/webhooks",
  "core/lifecycle",
  "core/status",
  "core/health",
  "core/reflection",
];
const CREATE_CORE = "core/create-core.ts";
/** Folders with a face: code outside them imports only their index.ts, never a module behind it. */
const FACED_FOLDERS = ["core/memories", "core/bundle"];

function facedFolderOf(path: string): string | undefined {
  return FACED_FOLDERS.find((folder) => path.startsWith(`${folder}/`));
}

function coreServiceOf(path: string): string | undefined {
  return CORE_SERVICES.find((service) => path.startsWith(`${service}/`));
}

function gatewayOf(path: string): string | undefined {
  return GATEWAYS.find((gateway) => path.startsWith(`${gateway}/`));
}

interface ImportRule {
  readonly name: string;
  /** The importing files the rule applies to. */
  readonly from: (from: string) => boolean;
  /** Whether importing `to` from `from` breaks the rule. */
  readonly forbidden: (to: string, from: string) => boolean;
}

const rules: readonly ImportRule[] = [
  {
    name: "1. gateways never import core/, apps/, worker/, edge/, nor each other (gateway-kit: neither gateway)",
    from: inAny(...GATEWAYS),
    forbidden: (to, from) => {
      if (inAny("core", "apps", "worker", "edge")(to)) return true;
      const target = gatewayOf(to);
      // gateway-rest, gateway-mcp and gateway-oauth may use gateway-kit; no gateway may use another.
      return target !== undefined && target !== "gateway-kit" && target !== gatewayOf(from);
    },
  },
  {
    name: "2. core/ never imports apps/, edge/, gateways, gateway-kit, worker/, cli/, bench/",
    from: inAny("core"),
    forbidden: inAny(
      "apps",
      "edge",
      "gateway-rest",
      "gateway-mcp",
      "gateway-oauth",
      "gateway-kit",
      "worker",
      "cli",
      "bench",
    ),
  },
  {
    name: "3. core services never import each other's folders, nor core/create-core.ts",
    from: (from) => coreServiceOf(from) !== undefined,
    forbidden: (to, from) => {
      if (to === CREATE_CORE) return true;
      const target = coreServiceOf(to);
      return target !== undefined && target !== coreServiceOf(from);
    },
  },
  {
    name: "4. lib/ imports only lib/, config/, gen/; config/ imports only config/",
    from: inAny("lib", "config"),
    forbidden: (to, from) => (inAny("lib")(from) ? !inAny("lib", "config", "gen")(to) : !inAny("config")(to)),
  },
  {
    name: "5. edge/ never imports core/ or worker/",
    from: inAny("edge"),
    forbidden: inAny("core", "worker"),
  },
  {
    name: "6. worker/ never imports apps/, edge/, gateways or gateway-kit",
    from: inAny("worker"),
    forbidden: inAny("apps", "edge", "gateway-rest", "gateway-mcp", "gateway-oauth", "gateway-kit"),
  },
  {
    name: "9. sdk/ (published packages) imports only itself; examples/ import only sdk/",
    from: inAny("sdk", "examples"),
    forbidden: (to, from) => (inAny("sdk")(from) ? !inAny("sdk")(to) : !inAny("sdk", "examples")(to)),
  },
  {
    name: "10. dashboard/ (browser code) imports only dashboard/: it talks to the service over the REST API",
    from: inAny("dashboard"),
    forbidden: (to) => !inAny("dashboard")(to),
  },
  {
    name: `11. nothing outside ${FACED_FOLDERS.join(", ")} imports a module behind its face (only its index.ts)`,
    from: () => true,
    forbidden: (to, from) => {
      const folder = facedFolderOf(to);
      return folder !== undefined && folder !== facedFolderOf(from) && to !== `${folder}/index.ts`;
    },
  },
];

const describeEdge = ({ from, to, typeOnly }: ImportEdge): string =>
  `${from} -> ${to}${typeOnly ? "  (import type)" : ""}`;

for (const rule of rules) {
  test(rule.name, (t) => {
    const offending = graph.edges.filter(({ from, to }) => rule.from(from) && rule.forbidden(to, from));
    t.is(
      offending.length,
      0,
      `${offending.length} forbidden import(s):\n${offending.map((edge) => `  ${describeEdge(edge)}`).join("\n")}`,
    );
  });
}

test("7. no import cycle in the source tree (type-only imports count)", (t) => {
  const files = graph.files.filter((file) => !file.startsWith("gen/"));
  const edges = graph.edges.filter(({ from, to }) => !from.startsWith("gen/") && !to.startsWith("gen/"));
  const cycles = findCycles(files, edges);
  const report = cycles.map((component, i) => {
    const inside = edges.filter(({ from, to }) => component.includes(from) && component.includes(to));
    const valueEdges = inside.filter((edge) => !edge.typeOnly).length;
    const kind = valueEdges === 0 ? "only through `import type`" : `${valueEdges} value edge(s)`;
    return [
      `cycle ${i + 1}: ${component.length} file(s), ${inside.length} edge(s), ${kind}`,
      `  loop: ${shortestLoop(component, edges).join(" -> ")}`,
      ...component.map((file) => `  file: ${file}`),
      ...inside.map((edge) => `  edge: ${describeEdge(edge)}`),
    ].join("\n");
  });
  t.is(cycles.length, 0, `${cycles.length} import cycle(s):\n${report.join("\n")}`);
});

test("8. the import graph is real (enough files and edges, a known edge)", (t) => {
  t.true(graph.files.length > 200, `only ${graph.files.length} files found`);
  t.true(graph.edges.length > 500, `only ${graph.edges.length} edges found`);
  t.true(
    graph.edges.some(({ from, to }) => from === "apps/all-in-one.ts" && to === "apps/start-service.ts"),
    "apps/all-in-one.ts -> apps/start-service.ts not found: module resolution is broken",
  );
  t.true(
    graph.edges.some(({ from, to }) => from.startsWith("core/") && to.startsWith("gen/")),
    "no core/ -> gen/ edge found: generated code does not resolve",
  );
});

test("every relative import resolves to a file (so no edge silently drops out of the graph)", (t) => {
  t.deepEqual(
    graph.unresolved,
    [],
    graph.unresolved.map(({ from, specifier }) => `  ${from} -> ${specifier} (unresolved)`).join("\n"),
  );
});

test("the OAuth authorization server is a gateway of its own, registered by the edge (issue 44)", (t) => {
  t.true(
    graph.edges.some(
      ({ from, to }) => from === "edge/create-edge.ts" && to === "gateway-oauth/oauth-gateway.ts",
    ),
    "edge/create-edge.ts -> gateway-oauth/oauth-gateway.ts not found",
  );
  t.true(
    graph.edges.some(({ from }) => from.startsWith("gateway-oauth/routes/")),
    "gateway-oauth/ is not in the graph's source folders: its imports would go unchecked",
  );
  t.deepEqual(
    graph.files.filter((file) => file.startsWith("gateway-mcp/oauth/")),
    [],
    "the MCP gateway keeps only the resource-server side",
  );
});
