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
 * Web pages through POST /api/v1/documents/fetch from a local web server (pages/s, MB/s of HTML), and
 * the HTML extractor alone in this thread (MB/s of HTML to Markdown).
 *
 *   npm run bench:ingest-files [-- --sessions 24 --turns 20 --append 10 --concurrency 4 --files-only | --web-only]
 *
 * Turns are sentences of ../shared/eval/xquad_en paragraphs, alternating between two speakers, one
 * minute apart. Writes bench/results/ingest-files.json.
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { htmlToMainMarkdown } from "../core/ingest/extract/html.js";
import { makeDocx } from "../test/helpers/make-docx.js";
import { makePdf } from "../test/helpers/make-pdf.js";
import type { TestService, TestTenant } from "../test/helpers/test-service.js";
import { loadTestModels, startIngestService } from "../test/ingest/ingest-test-kit.js";
import { startWebPageServer } from "../test/ingest/web-page-server.js";
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
    "web-only": { type: "boolean", default: false },
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

/**
 * Web pages by URL (issue 48 item 2): 24 HTML pages of ≈ 96 KB (prose with navigation, a script and a
 * footer) served by a local server and fetched through POST /api/v1/documents/fetch, `concurrency` at
 * a time — the fetch through the outbound guard, the extraction in the upload's parser workers, the
 * queued write; then the same pages through the HTML extractor alone, one after another in this thread.
 */
async function measureWebPages(service: TestService): Promise<Row[]> {
  const tenant = await service.createTenant({ limitsOverride: UNTHROTTLED });
  const prose = paragraphs(values["eval-dir"]);
  const server = await startWebPageServer();
  try {
    const pages = Array.from({ length: 24 }, (_, i) => ({
      path: `/page-${i}`,
      html: proseHtml(prose, 120, i * 50),
    }));
    for (const page of pages) server.route(page.path, { body: Buffer.from(page.html) });
    server.route("/warm-up", { body: Buffer.from(proseHtml(prose, 20, 3)) });
    const fetchOne = async (path: string) => {
      const res = await fetch(`${service.httpUrl}/api/v1/documents/fetch`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `${server.url}${path}` }),
      });
      const body = (await res.json()) as { characters?: number; error?: string };
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { status: res.status, characters: body.characters ?? 0 };
    };
    await fetchOne("/warm-up");
    const latencies: number[] = [];
    const answers: { status: number; characters: number }[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < pages.length) {
          const page = pages[next++];
          if (!page) break;
          const sent = performance.now();
          answers.push(await fetchOne(page.path));
          latencies.push(performance.now() - sent);
        }
      }),
    );
    const ms = performance.now() - started;
    const megabytes = pages.reduce((n, p) => n + p.html.length, 0) / 1024 / 1024;
    const characters = answers.reduce((n, a) => n + a.characters, 0);
    const fetched: Row = {
      kind: "url",
      phase: "web page",
      route: "POST /api/v1/documents/fetch",
      requests: pages.length,
      units: pages.length,
      unit: "pages",
      ms: round(ms),
      perSecond: round((pages.length / ms) * 1000, 2),
      p50Ms: round(percentile(latencies, 50)),
      p95Ms: round(percentile(latencies, 95)),
      notes: `${round(megabytes, 2)} MB of HTML = ${round((megabytes / ms) * 1000, 3)} MB/s, ${characters} characters of Markdown stored; statuses ${[...new Set(answers.map((a) => a.status))].join("/")}`,
    };
    // The extractor alone: Readability + turndown on each page, in this thread.
    const extractLatencies: number[] = [];
    const extractStarted = performance.now();
    for (const page of pages) {
      const t0 = performance.now();
      htmlToMainMarkdown(page.html.toString());
      extractLatencies.push(performance.now() - t0);
    }
    const extractMs = performance.now() - extractStarted;
    const extracted: Row = {
      kind: "url",
      phase: "html extraction",
      route: "core/ingest/extract/html.ts (in process)",
      requests: pages.length,
      units: round(megabytes, 3),
      unit: "MB of HTML",
      ms: round(extractMs),
      perSecond: round((megabytes / extractMs) * 1000, 3),
      p50Ms: round(percentile(extractLatencies, 50)),
      p95Ms: round(percentile(extractLatencies, 95)),
      notes: "htmlToMainMarkdown: linkedom, furniture removed, Readability, turndown with GFM tables",
    };
    for (const row of [fetched, extracted]) {
      log(
        `${row.phase.padEnd(16)} ${String(row.units).padStart(8)} ${row.unit}  ${String(row.perSecond).padStart(8)}/s  p50 ${row.p50Ms} ms  p95 ${row.p95Ms} ms`,
      );
    }
    return [fetched, extracted];
  } finally {
    await server.close();
  }
}

const models = await loadTestModels();
// No worker: file rows time the upload request itself (see above); conversations index inline.
// WEB_FETCH_ALLOW_PRIVATE_URLS: the web pages come from a local server (as in the tests).
const service = await startIngestService({
  models,
  worker: false,
  env: { WEB_FETCH_ALLOW_PRIVATE_URLS: "true" },
});
try {
  const webOnly = values["web-only"];
  const conversations = values["files-only"] || webOnly ? [] : await measureConversations(service);
  const files = webOnly ? undefined : await measureFiles(service);
  const web = await measureWebPages(service);
  const rows = [...conversations, ...(files?.rows ?? []), ...web];
  const webRun = {
    webMeasuredAt: new Date().toISOString(),
    webLoadAverage: loadavg().map((x) => round(x, 2)),
  };
  if (webOnly) {
    // Only the web rows were measured: they replace the web rows of the last full run's file, whose
    // other rows, time and load stay as they were measured.
    const path = new URL("./results/ingest-files.json", import.meta.url);
    const previous = JSON.parse(readFileSync(path, "utf8")) as { rows: Row[] } & Record<string, unknown>;
    writeBenchResult("ingest-files", {
      ...previous,
      rows: [...previous.rows.filter((row) => row.kind !== "url"), ...web],
      ...webRun,
    });
  } else {
    writeBenchResult("ingest-files", {
      embedder: models.embedder.id,
      sessions: SESSIONS,
      turnsPerSession: TURNS,
      appendedTurns: APPEND,
      concurrency: CONCURRENCY,
      loadAverage: loadavg().map((x) => round(x, 2)),
      peakRssMiB: round(process.resourceUsage().maxRSS / 1024),
      rows,
      ...(files ? { tenMbPdf: files.tenMbPdf } : {}),
      ...webRun,
    });
  }
} finally {
  await service.stop();
}
