import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import test from "ava";
import { parse } from "yaml";
import { loadConfig } from "../../config/config.js";
import { testModels } from "../graph/graph-test-kit.js";
import { freePort } from "../helpers/free-port.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { run } from "../sdk/sdk-test-kit.js";

// Dockerfile and compose.yaml (docs/scaling.md "Containers"): no Docker runs here, so the files are
// checked against what they must say, their environment against config/config.ts itself, and the
// health-check script against a live service. `docker compose config` runs where Docker exists.

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

const compose = parse(readFileSync("compose.yaml", "utf8"), { merge: true }) as Compose;
const dockerfile = readFileSync("Dockerfile", "utf8");
const APPS = ["core", "gateway", "worker"] as const;

/** Resolves ${VAR}, ${VAR:-default} and ${VAR:?message} as compose does, from `vars`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g,
    (_m, name: string, op?: string, rest?: string) => {
      const set = vars[name];
      if (set !== undefined && set !== "") return set;
      if (op === "-") return rest ?? "";
      throw new Error(`${name} is required: ${rest ?? ""}`);
    },
  );
}

const operatorEnv = { POSTGRES_PASSWORD: "secret", MASTER_KEY: "A".repeat(43) };
const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(compose.services[name]?.environment ?? {}).map(([k, v]) => [
      k,
      interpolate(String(v), operatorEnv),
    ]),
  );

test("compose.yaml: PostgreSQL, Redis, core, gateway and worker, data in named volumes", (t) => {
  t.deepEqual(Object.keys(compose.services).sort(), ["core", "gateway", "postgres", "redis", "worker"]);
  t.deepEqual(Object.keys(compose.volumes).sort(), ["cache", "lancedb", "pgdata", "redisdata"]);
  for (const [name, service] of Object.entries(compose.services)) {
    for (const volume of service.volumes ?? []) {
      const source = volume.split(":")[0] ?? "";
      t.true(source in compose.volumes, `${name}: ${volume} is a named volume`);
    }
  }
  t.true(compose.services.postgres?.volumes?.includes("pgdata:/var/lib/postgresql/data"));
  // Core and every worker write the same LanceDB location (docs/scaling.md: safe, measured).
  t.true(compose.services.core?.volumes?.includes("lancedb:/data/lancedb"));
  t.true(compose.services.worker?.volumes?.includes("lancedb:/data/lancedb"));
  for (const app of APPS) {
    const command = compose.services[app]?.command ?? [];
    // The image runs the JavaScript scripts/build.mjs makes of apps/<app>.ts (ADR 0280).
    t.deepEqual(command, [`dist/apps/${app}.js`]);
    t.true(existsSync(`apps/${app}.ts`), `apps/${app}.ts exists`);
  }
});

test("compose.yaml: each process's environment is valid for config/config.ts and wires the split", (t) => {
  const configSource = readFileSync("config/config.ts", "utf8");
  for (const app of APPS) {
    const env = envOf(app);
    for (const key of Object.keys(env)) {
      t.regex(configSource, new RegExp(`\\n  ${key}: `), `${app}: ${key} is a variable config.ts reads`);
    }
    const config = loadConfig(env);
    t.is(config.databaseUrl, "postgres://memory:secret@postgres:5432/memory", app);
    t.is(config.redisUrl, "redis://redis:6379", app);
    t.is(config.lancedbUri, "/data/lancedb", app);
    t.truthy(config.masterKey, `${app}: MASTER_KEY passed`);
  }
  t.false(loadConfig(envOf("core")).runWorker, "core runs without its in-process worker");
  t.true(loadConfig(envOf("core")).trustProxy, "core trusts the gateways' forwarded client address");
  t.deepEqual(loadConfig(envOf("gateway")).coreUrls, ["http://core:50051"]);
  t.throws(() => interpolate(String(compose.services.core?.environment?.MASTER_KEY), {}), {
    message: /MASTER_KEY is required/,
  });
});

test("compose.yaml: health checks, and services start after what they need is healthy", (t) => {
  const s = compose.services;
  t.deepEqual(s.postgres?.healthcheck?.test?.[0], "CMD-SHELL");
  t.regex(String(s.postgres?.healthcheck?.test?.[1]), /pg_isready/);
  t.deepEqual(s.redis?.healthcheck?.test, ["CMD", "redis-cli", "ping"]);
  t.deepEqual(s.core?.healthcheck?.test, ["CMD", "node", "scripts/healthcheck.mjs", "grpc"]);
  t.deepEqual(s.gateway?.healthcheck?.test, ["CMD", "node", "scripts/healthcheck.mjs"]);
  t.true(s.worker?.healthcheck?.disable, "the worker has no port to probe");
  t.deepEqual(s.core?.depends_on, {
    postgres: { condition: "service_healthy" },
    redis: { condition: "service_healthy" },
  });
  t.is(s.gateway?.depends_on?.core?.condition, "service_healthy");
  t.is(s.worker?.depends_on?.postgres?.condition, "service_healthy");
});

test("Dockerfile: multi-stage on node:24-slim, npm ci --omit=dev, non-root, health check", (t) => {
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gm)];
  t.true(froms.length >= 2, "multi-stage");
  t.true(
    froms.every((f) => f[1] === "node:24-slim"),
    "every stage on node:24-slim",
  );
  t.regex(dockerfile, /npm ci --omit=dev/);
  t.regex(dockerfile, /COPY --from=deps/);
  const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
  t.true(users.length > 0 && !["root", "0"].includes(users.at(-1) ?? "root"), "runs as a non-root user");
  t.regex(dockerfile, /^HEALTHCHECK .*\n?\s*CMD \["node", "scripts\/healthcheck\.mjs"\]/m);
  t.regex(readFileSync("scripts/healthcheck.mjs", "utf8"), /\/health`/);
  // The processes run built JavaScript (ADR 0280): built after the sources are copied in, run by node.
  t.regex(dockerfile, /^COPY [^\n]*\. \.\n(?:.*\n)*?RUN node scripts\/build\.mjs$/m);
  t.regex(dockerfile, /^ENTRYPOINT \["node"\]\nCMD \["dist\/apps\/all-in-one\.js"\]/m);
  // --omit=dev keeps esbuild (it builds dist/ and the dashboard) and tsx (npm run cli) as dependencies.
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> };
  t.truthy(pkg.dependencies.esbuild, "esbuild is a dependency, not a devDependency");
  t.truthy(pkg.dependencies.tsx, "tsx is a dependency, not a devDependency");
  const ignored = readFileSync(".dockerignore", "utf8").split("\n");
  t.true(ignored.includes("node_modules") && ignored.includes(".git") && ignored.includes("dist"));
});

let hasDocker = false;
try {
  execFileSync("docker", ["compose", "version"], { stdio: "ignore", timeout: 30_000 });
  hasDocker = true;
} catch {
  // No Docker on our build machines: the test below is listed as skipped with the reason.
}

(hasDocker ? test : test.skip)(
  `docker compose config accepts compose.yaml${hasDocker ? "" : " (skipped: no `docker compose` on this machine; the tests above check the file)"}`,
  (t) => {
    t.notThrows(() =>
      execFileSync("docker", ["compose", "-f", "compose.yaml", "config", "--quiet"], {
        env: { ...process.env, ...operatorEnv },
        stdio: "pipe",
      }),
    );
  },
);

let service: TestService | undefined;
test.after.always(() => service?.stop());

test("scripts/healthcheck.mjs: healthy against a live service (HTTP /health and gRPC health), 1 when down", async (t) => {
  service = await startTestService({ models: testModels(), worker: false });
  const port = new URL(service.httpUrl).port;
  const grpcPort = new URL(service.grpcUrl).port;
  const http = await run(process.execPath, ["scripts/healthcheck.mjs"], { env: { PORT: port } });
  t.is(http.code, 0, http.stderr);
  const grpc = await run(process.execPath, ["scripts/healthcheck.mjs", "grpc"], {
    env: { GRPC_PORT: grpcPort },
  });
  t.is(grpc.code, 0, grpc.stderr);
  const closed = String(await freePort());
  const down = await run(process.execPath, ["scripts/healthcheck.mjs"], { env: { PORT: closed } });
  t.is(down.code, 1);
  const grpcDown = await run(process.execPath, ["scripts/healthcheck.mjs", "grpc"], {
    env: { GRPC_PORT: closed },
  });
  t.is(grpcDown.code, 1);
});
