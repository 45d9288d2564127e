import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";

// The import graph of the source tree, resolved the way the compiler resolves it: `ts.preProcessFile`
// finds the module specifiers (static imports, re-exports, `import("literal")`, `import type`), and
// `ts.resolveModuleName` with tsconfig.json's compiler options maps each one to a file. Targets in
// node_modules (and node: built-ins) are left out; so are specifiers that resolve to nothing (listed
// in `unresolved` when they are relative, so a resolution bug cannot silently empty the graph).

/** The top-level folders whose .ts/.mts files make up the source tree (test/, gen/, vendor/ are not). */
export const SOURCE_FOLDERS = [
  "apps",
  "lib",
  "config",
  "core",
  "gateway-kit",
  "gateway-rest",
  "gateway-mcp",
  "gateway-oauth",
  "edge",
  "worker",
  "cli",
  "scripts",
  "bench",
  "sdk",
  "examples",
  "dashboard",
] as const;

export interface ImportEdge {
  /** Repo-relative path of the importing file, with forward slashes. */
  readonly from: string;
  /** Repo-relative path of the imported file, with forward slashes. */
  readonly to: string;
  /** Every import of `to` in `from` is `import type` / `export type` (erased at run time). */
  readonly typeOnly: boolean;
}

export interface UnresolvedImport {
  readonly from: string;
  readonly specifier: string;
}

export interface ImportGraph {
  /** The source tree's files (repo-relative, sorted). gen/ files appear only as edge targets. */
  readonly files: string[];
  /** One edge per (from, to) pair, sorted. */
  readonly edges: ImportEdge[];
  /** Relative specifiers (`./`, `../`) that resolve to no file. */
  readonly unresolved: UnresolvedImport[];
}

const SOURCE_EXTENSION = /\.m?ts$/;

function listSourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && SOURCE_EXTENSION.test(entry.name)) found.push(path);
    }
  };
  for (const folder of SOURCE_FOLDERS) {
    try {
      walk(join(root, folder));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return found;
}

function readCompilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath);
  const errors = parsed.errors.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    throw new Error(errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n"));
  }
  return parsed.options;
}

const IMPORT_OR_EXPORT_KEYWORD = /\b(?:import|export)\b/g;
const TYPE_ONLY_CLAUSE = /^(?:import|export)\s+type[\s{*]/;

/** Whether the statement holding the specifier at `pos` is `import type …` / `export type … from`. */
function isTypeOnly(text: string, pos: number): boolean {
  const before = text.slice(Math.max(0, pos - 4000), pos);
  let keywordAt = -1;
  for (const match of before.matchAll(IMPORT_OR_EXPORT_KEYWORD)) keywordAt = match.index;
  if (keywordAt < 0) return false;
  return TYPE_ONLY_CLAUSE.test(before.slice(keywordAt));
}

function toRepoPath(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join("/");
}

export function readImportGraph(root: string): ImportGraph {
  const absoluteRoot = resolve(root);
  const options = readCompilerOptions(absoluteRoot);
  const host: ts.ModuleResolutionHost = ts.sys;
  const canonical = ts.sys.useCaseSensitiveFileNames
    ? (name: string) => name
    : (name: string) => name.toLowerCase();
  const cache = ts.createModuleResolutionCache(absoluteRoot, canonical, options);

  const sourceFiles = listSourceFiles(absoluteRoot);
  // from -> to -> typeOnly (false as soon as one import of the pair is a value import)
  const pairs = new Map<string, Map<string, boolean>>();
  const unresolved: UnresolvedImport[] = [];

  for (const file of sourceFiles) {
    const from = toRepoPath(absoluteRoot, file);
    const text = readFileSync(file, "utf8");
    const info = ts.preProcessFile(text, true, true);
    const fileMode = ts.getImpliedNodeFormatForFile(
      file as ts.Path,
      cache.getPackageJsonInfoCache(),
      host,
      options,
    );
    const targets = pairs.get(from) ?? new Map<string, boolean>();
    pairs.set(from, targets);
    for (const ref of info.importedFiles) {
      const specifier = ref.fileName;
      const mode = ref.resolutionMode ?? fileMode;
      const { resolvedModule } = ts.resolveModuleName(specifier, file, options, host, cache, undefined, mode);
      if (!resolvedModule) {
        if (specifier.startsWith("./") || specifier.startsWith("../")) unresolved.push({ from, specifier });
        continue;
      }
      const target = resolve(resolvedModule.resolvedFileName);
      if (resolvedModule.isExternalLibraryImport || target.split(sep).includes("node_modules")) continue;
      const to = toRepoPath(absoluteRoot, target);
      const typeOnly = isTypeOnly(text, ref.pos);
      targets.set(to, (targets.get(to) ?? true) && typeOnly);
    }
  }

  const edges: ImportEdge[] = [];
  for (const [from, targets] of pairs) {
    for (const [to, typeOnly] of targets) edges.push({ from, to, typeOnly });
  }
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  edges.sort((a, b) => byPath(a.from, b.from) || byPath(a.to, b.to));
  return {
    files: [...pairs.keys()].sort(byPath),
    edges,
    unresolved,
  };
}

/** Strongly connected components with more than one file, or one file importing itself (Tarjan). */
export function findCycles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const successors = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const { from, to } of edges) {
    if (successors.has(from) && successors.has(to)) successors.get(from)?.push(to);
  }
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;

  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of files) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, next);
    lowLink.set(start, next);
    next += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const children = successors.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child]!;
        frame.child += 1;
        if (!index.has(child)) {
          index.set(child, next);
          lowLink.set(child, next);
          next += 1;
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && children.includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** A shortest import loop through `component`'s first file, e.g. [a, b, c, a] (for readable reports). */
export function shortestLoop(component: readonly string[], edges: readonly ImportEdge[]): string[] {
  const members = new Set(component);
  const successors = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (members.has(from) && members.has(to)) successors.set(from, [...(successors.get(from) ?? []), to]);
  }
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head]!;
    for (const child of successors.get(node) ?? []) {
      if (child === start) {
        const loop = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) {
          loop.push(at);
        }
        return [start, ...loop.slice(1).reverse(), start];
      }
      if (!previous.has(child)) {
        previous.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start];
}
