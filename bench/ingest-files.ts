/**
 * `npm run bench:ingest-files` (issue 48 "Measure"): what users bring, through the real REST routes of
 * a real service (built-in embedder, PostgreSQL as for `npm test`). For now conversations: turns/s
 * through POST /api/v1/conversations for a first send, a re-send of the same sessions (nothing new)
 * and an append (each session re-sent with new turns). File rows (PDF pages/s, HTML and DOCX MB/s,
 * peak RSS of a 10 MB PDF through /api/v1/documents/upload) and URL rows join `rows` as measure*()
 * functions of their own once those routes exist.
 *
 *   npm run bench:ingest-files [-- --sessions 24 --turns 20 --append 10 --concurrency 4]
 *
 * Turns are sentences of ../shared/eval/xquad_en paragraphs, alternating between two speakers, one
 * minute apart. Writes bench/results/ingest-files.json.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { TestService, TestTenant } from "../test/helpers/test-service.js";
import { loadTestModels, startIngestService } from "../test/ingest/ingest-test-kit.js";
import { UNTHROTTLED } from "../test/mcp/post-mcp.js";
import { writeBenchResult } from "./write-result.js";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "24" },
    turns: { type: "string", default: "20" },
    append: { type: "string", default: "10" },
    concurrency: { type: "string", default: "4" },
    "eval-dir": { type: "string", default: "../shared/eval" },
  },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);
const APPEND = Number(values.append);
const CONCURRENCY = Number(values.concurrency);

/** One measured row; `kind` says what went in (conversation now; file and url rows later). */
interface Row {
  readonly kind: "conversation" | "file" | "url";
  readonly phase: string;
  readonly route: string;
  readonly requests: number;
  /** Units of the row (turns sent, pages, bytes, …) and their name. */
  readonly units: number;
  readonly unit: string;
  readonly ms: number;
  readonly perSecond: number;
  /** Of the units, those that were new (stored); per second of the row's wall time. */
  readonly newUnits?: number;
  readonly newPerSecond?: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly notes?: string;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

interface Message {
  readonly speaker: string;
  readonly content: string;
  readonly at: string;
}

/** Sessions of alternating speakers from the set's sentences: `turns + append` messages each. */
function conversationSessions(evalDir: string, sessions: number, turns: number): Message[][] {
  const sentences = readFileSync(join(evalDir, "xquad_en", "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { text: string }).text.split(/(?<=[.!?])\s+/))
    .filter((s) => s.length > 20);
  const start = Date.UTC(2026, 0, 5, 9);
  return Array.from({ length: sessions }, (_, s) =>
    Array.from({ length: turns }, (_, i) => ({
      speaker: i % 2 === 0 ? "Alice" : "Bob",
      content: sentences[(s * turns + i) % sentences.length] ?? "…",
      at: new Date(start + s * 86_400_000 + i * 60_000).toISOString(),
    })),
  );
}

/** Sends every body, `concurrency` at a time; the wall time and each request's latency. */
async function sendAll(
  service: TestService,
  tenant: TestTenant,
  path: string,
  bodies: readonly unknown[],
  expect: (status: number, body: unknown) => void,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const sent = performance.now();
        const res = await fetch(`${service.httpUrl}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer: unknown = await res.json();
        latencies.push(performance.now() - sent);
        expect(res.status, answer);
      }
    }),
  );
  return { ms: performance.now() - started, latencies };
}

/** Conversation turns/s through POST /api/v1/conversations: first send, re-send, append. */
async function measureConversations(service: TestService): Promise<Row[]> {
  const tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
  const all = conversationSessions(values["eval-dir"], SESSIONS, TURNS + APPEND);
  const first = all.map((messages, s) => ({
    title: "Bench chat",
    sessionId: `s${s}`,
    messages: messages.slice(0, TURNS),
  }));
  const appended = all.map((messages, s) => ({ title: "Bench chat", sessionId: `s${s}`, messages }));
  const route = "POST /api/v1/conversations";
  const phases: { phase: string; bodies: typeof first; status: number; added: number; notes: string }[] = [
    {
      phase: "first send",
      bodies: first,
      status: 201,
      added: TURNS,
      notes: `${TURNS} turns per session, all new`,
    },
    {
      phase: "re-send",
      bodies: first,
      status: 200,
      added: 0,
      notes: "the same sessions again: nothing new, nothing written",
    },
    {
      phase: "append",
      bodies: appended,
      status: 201,
      added: APPEND,
      notes: `each session re-sent with ${APPEND} new turns: ${APPEND} added, all ${TURNS + APPEND} re-embedded`,
    },
  ];
  // One session first, not measured: the tenant's vector table and BM25 state are created by it.
  await sendAll(
    service,
    tenant,
    "/api/v1/conversations",
    [{ sessionId: "warm-up", messages: all[0]?.slice(0, 2) }],
    () => {},
  );
  const rows: Row[] = [];
  for (const { phase, bodies, status, added, notes } of phases) {
    const { ms, latencies } = await sendAll(service, tenant, "/api/v1/conversations", bodies, (got, body) => {
      const turnsAdded = (body as { turnsAdded?: number }).turnsAdded;
      if (got !== status || turnsAdded !== added) {
        throw new Error(
          `${phase}: expected ${status} with ${added} turns added, got ${got} ${JSON.stringify(body)}`,
        );
      }
    });
    const units = bodies.reduce((n, b) => n + b.messages.length, 0);
    const row: Row = {
      kind: "conversation",
      phase,
      route,
      requests: bodies.length,
      units,
      unit: "turns sent",
      ms: round(ms),
      perSecond: round((units / ms) * 1000),
      newUnits: added * bodies.length,
      newPerSecond: round(((added * bodies.length) / ms) * 1000),
      p50Ms: round(percentile(latencies, 50)),
      p95Ms: round(percentile(latencies, 95)),
      notes,
    };
    log(
      `${phase.padEnd(10)} ${String(units).padStart(6)} turns  ${String(row.perSecond).padStart(8)} turns/s (${row.newPerSecond} new/s)  p50 ${row.p50Ms} ms  p95 ${row.p95Ms} ms`,
    );
    rows.push(row);
  }
  return rows;
}

const models = await loadTestModels();
const service = await startIngestService({ models });
try {
  const rows = [...(await measureConversations(service))];
  writeBenchResult("ingest-files", {
    embedder: models.embedder.id,
    sessions: SESSIONS,
    turnsPerSession: TURNS,
    appendedTurns: APPEND,
    concurrency: CONCURRENCY,
    loadAverage: loadavg().map((x) => round(x, 2)),
    peakRssMiB: round(process.resourceUsage().maxRSS / 1024),
    rows,
  });
} finally {
  await service.stop();
}
