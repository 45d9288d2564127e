/**
 * `npm run bench:ingest-files` (issue 48 "Measure"): what users bring, through the real REST routes of
 * a real service (built-in embedder, PostgreSQL as for `npm test`). Conversations: turns/s through
 * POST /api/v1/conversations for a first send, a re-send of the same sessions (nothing new) and an
 * append (each session re-sent with new turns). Files through POST /api/v1/documents/upload
 * (multipart, as an integration sends them): PDF pages/s, DOCX and HTML MB/s (of file bytes), and the
 * process's peak RSS over idle while one 10 MB PDF is uploaded. The service runs without its worker:
 * file rows time the request — type sniffing, extraction in the bounded worker thread, checks and the
 * queued write (files above 10,000 characters); chunking and embedding are bench:ingest's.
 *
 *   npm run bench:ingest-files [-- --sessions 24 --turns 20 --append 10 --concurrency 4 --files-only]
 *
 * Turns are sentences of ../shared/eval/xquad_en paragraphs, alternating between two speakers, one
 * minute apart. Writes bench/results/ingest-files.json.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { makeDocx } from "../test/helpers/make-docx.js";
import { makePdf } from "../test/helpers/make-pdf.js";
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
    "files-only": { type: "boolean", default: false },
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

/** Prose for the files: the set's paragraphs, cycled. */
function paragraphs(evalDir: string): string[] {
  return readFileSync(join(evalDir, "xquad_en", "corpus.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { text: string }).text.replace(/[^\x20-\x7e]/g, " "));
}

/** Lines of at most `width` characters, cut at spaces (a PDF page's text lines). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > width && line) {
      lines.push(line);
      line = "";
    }
    line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF of `pages` pages of `linesPerPage` lines (90 characters) from the prose, starting at `offset`. */
function prosePdf(prose: readonly string[], pages: number, linesPerPage: number, offset: number): Uint8Array {
  const lines: string[] = [];
  for (let i = offset; lines.length < pages * linesPerPage; i++)
    lines.push(...wrap(prose[i % prose.length] ?? "", 90), "");
  return makePdf(
    Array.from({ length: pages }, (_, p) => ({
      lines: lines.slice(p * linesPerPage, (p + 1) * linesPerPage),
    })),
  );
}

function proseDocx(prose: readonly string[], count: number, offset: number): Uint8Array {
  const blocks = [];
  for (let i = 0; i < count; i++) {
    const text = prose[(offset + i) % prose.length] ?? "";
    if (i % 10 === 0) blocks.push({ heading: 1 as const, text: text.split(" ").slice(0, 6).join(" ") });
    blocks.push({ paragraph: text });
    if (i % 10 === 5) blocks.push({ bullets: text.split(/(?<=[.,;])\s+/).slice(0, 4) });
    if (i % 10 === 8)
      blocks.push({
        table: [
          ["Term", "Note"],
          ...text
            .split(" ")
            .slice(0, 8)
            .map((w, k) => [w, String(k)]),
        ],
      });
  }
  return makeDocx(blocks);
}

function proseHtml(prose: readonly string[], count: number, offset: number): Uint8Array {
  const body: string[] = [];
  for (let i = 0; i < count; i++) {
    const text = (prose[(offset + i) % prose.length] ?? "").replace(/[<&]/g, " ");
    if (i % 10 === 0) body.push(`<h2>${text.split(" ").slice(0, 6).join(" ")}</h2>`);
    body.push(`<p>${text}</p>`);
  }
  const nav = `<nav>${Array.from({ length: 40 }, (_, i) => `<a href="/p/${i}">Section ${i}</a>`).join(" ")}</nav>`;
  return Buffer.from(
    `<!doctype html><html><head><title>Bench page ${offset}</title><script>var analytics = ${JSON.stringify("x".repeat(2000))};</script></head><body>${nav}<main><article>${body.join("\n")}</article></main><footer>Footer ${offset}</footer></body></html>`,
    "utf8",
  );
}

interface UploadAnswer {
  readonly status: number;
  readonly pages?: number;
  readonly characters?: number;
}

async function uploadOne(
  service: TestService,
  tenant: TestTenant,
  file: Uint8Array,
  name: string,
): Promise<UploadAnswer> {
  const form = new FormData();
  form.append("file", new Blob([file as Uint8Array<ArrayBuffer>]), name);
  const res = await fetch(`${service.httpUrl}/api/v1/documents/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${tenant.token}` },
    body: form,
  });
  const body = (await res.json()) as { pages?: number; characters?: number; error?: string };
  if (res.status >= 300) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
  return { status: res.status, ...body };
}

/** Uploads every file, `concurrency` at a time: wall time, latencies, answers. */
async function uploadAll(
  service: TestService,
  tenant: TestTenant,
  files: readonly { data: Uint8Array; name: string }[],
) {
  const latencies: number[] = [];
  const answers: UploadAnswer[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < files.length) {
        const file = files[next++];
        if (!file) break;
        const sent = performance.now();
        answers.push(await uploadOne(service, tenant, file.data, file.name));
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return { ms: performance.now() - started, latencies, answers };
}

/** PDF pages/s, DOCX and HTML MB/s through the upload route; peak RSS for one 10 MB PDF. */
async function measureFiles(
  service: TestService,
): Promise<{ rows: Row[]; tenMbPdf: Record<string, number> }> {
  const tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
  const prose = paragraphs(values["eval-dir"]);
  // Warm-up, not measured: the tenant's first write and the first worker thread's module loading.
  await uploadOne(service, tenant, prosePdf(prose, 1, 40, 0), "warm-up.pdf");
  const sets = [
    {
      type: "pdf",
      files: Array.from({ length: 12 }, (_, i) => ({
        data: prosePdf(prose, 25, 45, i * 40),
        name: `bench-${i}.pdf`,
      })),
    },
    {
      type: "docx",
      files: Array.from({ length: 12 }, (_, i) => ({
        data: proseDocx(prose, 120, i * 50),
        name: `bench-${i}.docx`,
      })),
    },
    {
      type: "html",
      files: Array.from({ length: 12 }, (_, i) => ({
        data: proseHtml(prose, 120, i * 50),
        name: `bench-${i}.html`,
      })),
    },
  ];
  const rows: Row[] = [];
  for (const { type, files } of sets) {
    const bytes = files.reduce((n, f) => n + f.data.length, 0);
    const { ms, latencies, answers } = await uploadAll(service, tenant, files);
    const pages = answers.reduce((n, a) => n + (a.pages ?? 0), 0);
    const characters = answers.reduce((n, a) => n + (a.characters ?? 0), 0);
    const megabytes = bytes / 1024 / 1024;
    const row: Row =
      type === "pdf"
        ? {
            kind: "file",
            phase: "pdf",
            route: "POST /api/v1/documents/upload",
            requests: files.length,
            units: pages,
            unit: "PDF pages",
            ms: round(ms),
            perSecond: round((pages / ms) * 1000),
            p50Ms: round(percentile(latencies, 50)),
            p95Ms: round(percentile(latencies, 95)),
            notes: `${files.length} PDFs of 25 pages (${round(megabytes, 2)} MB, ${characters} characters extracted); statuses ${[...new Set(answers.map((a) => a.status))].join("/")}`,
          }
        : {
            kind: "file",
            phase: type,
            route: "POST /api/v1/documents/upload",
            requests: files.length,
            units: round(megabytes, 3),
            unit: "MB of file",
            ms: round(ms),
            perSecond: round((megabytes / ms) * 1000, 3),
            p50Ms: round(percentile(latencies, 50)),
            p95Ms: round(percentile(latencies, 95)),
            notes: `${files.length} files, ${characters} characters of Markdown extracted; statuses ${[...new Set(answers.map((a) => a.status))].join("/")}`,
          };
    log(
      `${type.padEnd(6)} ${String(row.units).padStart(8)} ${row.unit}  ${String(row.perSecond).padStart(8)}/s  p50 ${row.p50Ms} ms  p95 ${row.p95Ms} ms`,
    );
    rows.push(row);
  }

  // One 10 MB PDF (1,250 pages of 80 lines): the process's RSS sampled every 20 ms during the request.
  const big = prosePdf(prose, 1250, 80, 7);
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  const answer = await uploadOne(service, tenant, big, "ten-megabytes.pdf");
  const ms = performance.now() - started;
  clearInterval(sampler);
  const tenMbPdf = {
    fileMiB: round(big.length / 1024 / 1024, 2),
    pages: answer.pages ?? 0,
    characters: answer.characters ?? 0,
    ms: round(ms),
    idleRssMiB: round(idle / 1024 / 1024),
    peakRssMiB: round(peak / 1024 / 1024),
    peakOverIdleMiB: round((peak - idle) / 1024 / 1024),
  };
  log(
    `10 MB PDF: ${tenMbPdf.pages} pages in ${tenMbPdf.ms} ms, peak RSS ${tenMbPdf.peakRssMiB} MiB = idle + ${tenMbPdf.peakOverIdleMiB} MiB`,
  );
  return { rows, tenMbPdf };
}

const models = await loadTestModels();
// No worker: file rows time the upload request itself (see above); conversations index inline.
const service = await startIngestService({ models, worker: false });
try {
  const conversations = values["files-only"] ? [] : await measureConversations(service);
  const files = await measureFiles(service);
  const rows = [...conversations, ...files.rows];
  writeBenchResult("ingest-files", {
    embedder: models.embedder.id,
    sessions: SESSIONS,
    turnsPerSession: TURNS,
    appendedTurns: APPEND,
    concurrency: CONCURRENCY,
    loadAverage: loadavg().map((x) => round(x, 2)),
    peakRssMiB: round(process.resourceUsage().maxRSS / 1024),
    rows,
    tenMbPdf: files.tenMbPdf,
  });
} finally {
  await service.stop();
}
