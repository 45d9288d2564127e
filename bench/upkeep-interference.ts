// `npx tsx bench/upkeep-interference.ts same|nice` (ADR 0560): do searches of one table stall while another
// table's ANN index is built in the same process, or in a child at niceness 10?
import { fork } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { Index } from "@lancedb/lancedb";

const mode = process.argv[2] ?? "same"; // same | nice (the build in a child at niceness 10)
const DIM = 1024;
const rand = (n: number) =>
  Array.from({ length: n }, () => {
    const v = new Float32Array(DIM);
    for (let i = 0; i < DIM; i++) v[i] = Math.random() - 0.5;
    return { vector: Array.from(v), id: Math.random().toString(36) };
  });
if (mode === "child") {
  // As the maintenance child does: lower the priority before LanceDB starts its threads.
  setPriority(19 - 9);
  const db = await lancedb.connect(process.argv[3]!);
  const b = await db.openTable("b");
  const t = Date.now();
  await b.createIndex("vector", {
    config: Index.hnswSq({ distanceType: "cosine", efConstruction: 150 }),
    replace: true,
  });
  process.send?.({ buildMs: Date.now() - t });
  process.exit(0);
}
const dir = await mkdtemp(join(tmpdir(), "interf-"));
const db = await lancedb.connect(dir);
const a = await db.createTable("a", rand(5000));
for (let i = 0; i < 1; i++) await a.add(rand(5000));
await a.createIndex("vector", { config: Index.hnswSq({ distanceType: "cosine", efConstruction: 150 }) });
const b = await db.createTable("b", rand(10000));
for (let i = 0; i < 3; i++) await b.add(rand(10000));
const q = rand(1)[0]!.vector;
const search = async () => {
  const t = performance.now();
  await a.search(q).limit(50).toArray();
  return performance.now() - t;
};
const base: number[] = [];
for (let i = 0; i < 50; i++) base.push(await search());
let done = false;
let buildMs = 0;
const t0 = Date.now();
const build =
  mode === "same"
    ? b
        .createIndex("vector", { config: Index.hnswSq({ distanceType: "cosine", efConstruction: 150 }) })
        .then(() => {
          buildMs = Date.now() - t0;
          done = true;
        })
    : new Promise<void>((res) => {
        const c = fork(process.argv[1] ?? "", ["child", dir], { execArgv: process.execArgv });
        c.on("message", (m: { buildMs: number }) => {
          buildMs = m.buildMs;
        });
        c.on("exit", () => {
          done = true;
          res();
        });
      });
const during: number[] = [];
while (!done) {
  during.push(await search());
  await new Promise((r) => setTimeout(r, 20));
}
await build;
const s = (x: number[]) => {
  const y = [...x].sort((p, q) => p - q);
  return {
    n: y.length,
    p50: y[Math.floor(y.length / 2)]!.toFixed(1),
    p95: y[Math.floor(y.length * 0.95)]!.toFixed(1),
    max: y[y.length - 1]!.toFixed(1),
  };
};
console.log(JSON.stringify({ mode, buildMs, base: s(base), during: s(during) }));
