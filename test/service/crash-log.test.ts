import { spawnSync } from "node:child_process";
import test from "ava";

// apps/shutdown.ts: an error nothing caught still ends a process, as a fatal line of the structured
// log (not a stack on stderr that log collectors miss) and after stopping what runs — the embedded
// PostgreSQL among it, which would otherwise be left behind as an orphan. Exit code 1.

interface LogLine {
  level: number;
  msg: string;
  origin?: string;
  process?: string;
  err?: { message?: string };
}

function runFixture(mode: "reject" | "throw"): { status: number | null; lines: LogLine[]; stderr: string } {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "test/service/fixtures/crash-process.ts", mode],
    {
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  const lines = result.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine);
  return { status: result.status, lines, stderr: result.stderr };
}

for (const [mode, origin, message] of [
  ["reject", "unhandledRejection", "boom from a rejection"],
  ["throw", "uncaughtException", "boom from a timer"],
] as const) {
  test(`an unhandled ${mode === "reject" ? "rejection" : "exception"} is logged as fatal, the parts stop, exit 1`, (t) => {
    const { status, lines, stderr } = runFixture(mode);
    t.is(status, 1);
    const fatal = lines.findIndex((l) => l.level === 60);
    t.true(fatal >= 0, `a fatal line in ${JSON.stringify(lines)}`);
    t.like(lines[fatal], { msg: "uncaught error: stopping the process", origin, process: "crash-fixture" });
    t.is(lines[fatal]?.err?.message, message);
    const stopped = lines.findIndex((l) => l.msg === "fixture part stopped");
    t.true(stopped > fatal, "the registered part stopped after the fatal line");
    t.notRegex(stderr, /boom/, "the error is in the log, not only on stderr");
  });
}
