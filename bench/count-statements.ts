/**
 * Counts the PostgreSQL statements and round trips one REST recall costs: the service runs in this
 * process with its database behind a proxy that reads the frontend protocol (Parse / Execute /
 * Sync / simple Query messages) and names each executed statement by its SQL text.
 *
 *   npx tsx bench/count-statements.ts [--memories 60] [--recalls 20] [--synthetic 0]
 *
 * Round trips: one per Sync (the driver sends Parse/Bind/Execute/Sync per statement, pipelined
 * within a connection when several are outstanding). `--synthetic N` adds N one-chunk memories of
 * bench/synthetic-corpus.ts written straight into the tables (as bench/load.ts fills) and recalls the
 * xquad_de questions; each statement's server time (from its Execute to its CommandComplete, recalls
 * run one at a time) is summed per statement: where PostgreSQL's share of a recall's CPU goes.
 */
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startTestService, waitFor } from "../test/helpers/test-service.js";
import { readEvalDataset } from "./eval/read-eval-dataset.js";
import { fillSyntheticMemories } from "./fill-synthetic-memories.js";
import { loadSyntheticCorpus } from "./synthetic-corpus.js";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "60" },
    recalls: { type: "string", default: "20" },
    synthetic: { type: "string", default: "0" },
    "eval-dir": { type: "string", default: "../shared/eval" },
  },
});
const counts = new Map<string, number>();
/** Server milliseconds per statement key. */
const serverMs = new Map<string, number>();
let executes = 0;
let syncs = 0;
let counting = false;
const prepared = new Map<string, string>();

interface Sent {
  readonly key: string;
  readonly at: number;
}

/** Statements executed on one connection and not yet complete, oldest first. */
function backendParser(sent: Sent[]): (data: Buffer) => void {
  let buffer = Buffer.alloc(0);
  let started = false;
  let lastDone = 0;
  return (data) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      if (!started && buffer.length > 0 && buffer[0] === 0x4e) {
        buffer = buffer.subarray(1); // "N": no SSL
        continue;
      }
      started = true;
      if (buffer.length < 5) return;
      const type = String.fromCharCode(buffer[0] ?? 0);
      const len = buffer.readInt32BE(1);
      if (buffer.length < 1 + len) return;
      buffer = buffer.subarray(1 + len);
      if (type === "C" || type === "E" || type === "I") {
        const done = sent.shift();
        const now = performance.now();
        if (done && counting) {
          // Pipelined statements start on the server when the one before them is done.
          const ms = now - Math.max(done.at, lastDone);
          serverMs.set(done.key, (serverMs.get(done.key) ?? 0) + ms);
        }
        lastDone = now;
      }
    }
  };
}

function frontendParser(sent: Sent[]): (data: Buffer) => void {
  let buffer = Buffer.alloc(0);
  let started = false;
  let lastParsed = "";
  return (data) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      if (!started) {
        if (buffer.length < 4) return;
        const len = buffer.readInt32BE(0);
        if (buffer.length < len) return;
        const code = buffer.readInt32BE(4);
        buffer = buffer.subarray(len);
        if (code !== 80877103) started = true; // not an SSLRequest: the startup message
        continue;
      }
      if (buffer.length < 5) return;
      const type = String.fromCharCode(buffer[0] ?? 0);
      const len = buffer.readInt32BE(1);
      if (buffer.length < 1 + len) return;
      const body = buffer.subarray(5, 1 + len);
      buffer = buffer.subarray(1 + len);
      if (type === "P") {
        const nameEnd = body.indexOf(0);
        const name = body.subarray(0, nameEnd).toString();
        const text = body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString();
        lastParsed = text;
        if (name) prepared.set(name, text);
      } else if (type === "B") {
        const portalEnd = body.indexOf(0);
        const name = body.subarray(portalEnd + 1, body.indexOf(0, portalEnd + 1)).toString();
        if (name) lastParsed = prepared.get(name) ?? lastParsed;
      } else if (type === "E") {
        const key = lastParsed.replace(/\s+/g, " ").trim().slice(0, 110);
        sent.push({ key, at: performance.now() });
        if (!counting) continue;
        executes++;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      } else if (type === "Q") {
        const key = `Q ${body.toString().replace(/\s+/g, " ").trim().slice(0, 100)}`;
        sent.push({ key, at: performance.now() });
        if (!counting) continue;
        executes++;
        syncs++;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      } else if (type === "S" && counting) syncs++;
    }
  };
}

const server = createServer((client: Socket) => {
  const upstream = connect(5432, "127.0.0.1");
  const sent: Sent[] = [];
  const parse = frontendParser(sent);
  const parseBackend = backendParser(sent);
  client.on("data", (d: Buffer) => {
    parse(d);
    upstream.write(d);
  });
  upstream.on("data", (d: Buffer) => {
    parseBackend(d);
    client.write(d);
  });
  for (const s of [client, upstream])
    s.on("error", () => {
      client.destroy();
      upstream.destroy();
    });
  client.on("close", () => upstream.destroy());
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const proxyPort = (server.address() as AddressInfo).port;

const service = await startTestService({
  mapDatabaseUrl: (url) => Object.assign(new URL(url), { host: `127.0.0.1:${proxyPort}` }).toString(),
});
try {
  const tenant = await service.createTenant();
  const headers = { authorization: `Bearer ${tenant.token}`, "content-type": "application/json" };
  const words = ["Rhein", "Brücke", "Kathedrale", "Hafen", "Universität", "Bibliothek", "Bahnhof", "Museum"];
  for (let i = 0; i < Number(values.memories); i++) {
    const content = `Notiz ${i}: Die ${words[i % words.length]} in Köln wurde ${1800 + i} eröffnet und ${words[(i * 3) % words.length]} liegt nahe.`;
    const res = await fetch(`${service.httpUrl}/api/v1/memory/entries`, {
      method: "POST",
      headers,
      body: JSON.stringify({ content, title: `Notiz ${i}`, memoryType: "semantic" }),
    });
    if (!res.ok) throw new Error(`store ${res.status} ${await res.text()}`);
  }
  const recall = async (query: string) => {
    const res = await fetch(`${service.httpUrl}/api/memory/recall`, {
      method: "POST",
      headers,
      body: JSON.stringify({ query, k: 10 }),
    });
    if (!res.ok) throw new Error(`recall ${res.status} ${await res.text()}`);
    return (await res.json()) as { hits: unknown[] };
  };
  await waitFor(async () => ((await recall("Kathedrale Köln")).hits.length > 5 ? true : undefined), {
    timeoutMs: 60_000,
    what: "indexed memories",
  });
  const synthetic = Number(values.synthetic);
  if (synthetic > 0) await fillSynthetic(synthetic, tenant.tenantId);
  const questions =
    synthetic > 0
      ? (await readEvalDataset(join(values["eval-dir"], "xquad_de"))).queries.map((q) => q.text)
      : words.map((w) => `Wann wurde die ${w} in Köln eröffnet?`);
  // Warm: token cache, plans, prepared statements.
  for (let i = 0; i < 3; i++) await recall("Wann wurde die Brücke eröffnet?");
  await new Promise((r) => setTimeout(r, 500));
  const n = Number(values.recalls);
  counting = true;
  for (let i = 0; i < n; i++) await recall(questions[i % questions.length] ?? "");
  await new Promise((r) => setTimeout(r, 300));
  counting = false;
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  process.stdout.write(
    `${n} recalls: ${executes} statements (${(executes / n).toFixed(1)} per recall), ${syncs} syncs (${(syncs / n).toFixed(1)} per recall)\n`,
  );
  process.stdout.write("per recall: statements, server ms\n");
  for (const [sql, c] of rows)
    process.stdout.write(
      `${(c / n).toFixed(2).padStart(6)} ${((serverMs.get(sql) ?? 0) / n).toFixed(2).padStart(7)}  ${sql}\n`,
    );
} finally {
  await service.stop();
  server.close();
}

/** One-chunk memories of the synthetic corpus, written as bench/load.ts fills its database. */
async function fillSynthetic(count: number, tenantId: string): Promise<void> {
  const corpus = await loadSyntheticCorpus(values["eval-dir"]);
  await fillSyntheticMemories(service.storage, service.models.embedder, tenantId, corpus, count);
}
