import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "ava";
import { embeddingsReply, type FakeServer, inputsOf, startFakeServer } from "../helpers/fake-http-server.js";
import {
  buildCrossEncoderModel,
  buildEmbeddingModel,
  createTinyModel,
  writeModelDir,
} from "../helpers/onnx-models.js";
import { loadTestModels } from "./ingest-test-kit.js";

// core/models/load-models.ts: configuration (EMBEDDING_PROVIDER builtin | onnx | http, RERANKER …)
// picks the real providers.

const model = createTinyModel(8);
let scratch = "";
let server: FakeServer;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "load-models-"));
  await writeModelDir(
    join(scratch, "tiny-embedder"),
    model,
    buildEmbeddingModel(model, { output: "last_hidden_state" }),
  );
  await writeModelDir(join(scratch, "tiny-reranker"), model, buildCrossEncoderModel(model), { bare: true });
  server = await startFakeServer((request) =>
    request.path.endsWith("/embeddings") ? { json: embeddingsReply(inputsOf(request), 6) } : { json: [] },
  );
});

test.after.always(async () => {
  await server?.close();
  await rm(scratch, { recursive: true, force: true });
});

const TEXTS = ["Die Katze schläft auf dem Sofa.", "The dog barks in the garden."];

test("the default is the built-in cross-lingual embedder with its dictionary, 1024 dimensions", async (t) => {
  const models = await loadTestModels({ RERANKER: "none" });
  try {
    t.regex(models.embedder.id, /^builtin-xling-v\d+-fd[0-9a-f]{6}$/);
    t.is(models.embedder.dim, 1024);
    t.is(models.reranker, undefined);
    const [cat, dog] = await models.embedder.embed(TEXTS, "passage");
    t.is(cat?.length, 1024);
    // Cross-lingual through the dictionary: a German query lands nearer the English passage about it.
    const [query] = await models.embedder.embed(["Hund im Garten"], "query");
    const dot = (a: Float32Array | undefined, b: Float32Array | undefined) => {
      let sum = 0;
      for (let k = 0; k < (a?.length ?? 0); k++) sum += (a?.[k] ?? 0) * (b?.[k] ?? 0);
      return sum;
    };
    t.true(dot(query, dog) > dot(query, cat));
  } finally {
    await models.close();
  }
});

test("the built-in embedder in worker threads gives the same space and vectors", async (t) => {
  const [inThread, pooled] = await Promise.all([
    loadTestModels({}, { builtinWorkers: 0 }),
    loadTestModels({}, { builtinWorkers: 2 }),
  ]);
  try {
    t.is(pooled.embedder.id, inThread.embedder.id);
    t.is(
      pooled.embedder.tokenizer.countTokens(TEXTS[0] ?? ""),
      inThread.embedder.tokenizer.countTokens(TEXTS[0] ?? ""),
    );
    const [a, b] = await Promise.all([
      inThread.embedder.embed(TEXTS, "passage"),
      pooled.embedder.embed(TEXTS, "passage"),
    ]);
    t.deepEqual(b, a);
  } finally {
    await Promise.all([inThread.close(), pooled.close()]);
  }
});

/** Name and niceness of each of this process's threads (/proc/self/task/<tid>/stat: fields 2 and 19). */
async function threadNiceness(): Promise<Map<number, { name: string; nice: number }>> {
  const result = new Map<number, { name: string; nice: number }>();
  for (const tid of await readdir("/proc/self/task")) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, "utf8").catch(() => "");
    // Fields after the name (which may hold spaces) start with field 3, the state.
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields.length > 16) result.set(Number(tid), { name, nice: Number(fields[16]) });
  }
  return result;
}

// Serial: the other tests' pools would add threads of their own.
test.serial("passages go to a worker thread at niceness 10; no other thread is lowered", async (t) => {
  const before = await threadNiceness();
  const models = await loadTestModels({}, { builtinWorkers: 1 });
  try {
    // The pool starts with the first passage; until it is ready passages are embedded here.
    let lowered: number[] = [];
    for (let attempt = 0; attempt < 300 && lowered.length === 0; attempt++) {
      await models.embedder.embed(TEXTS, "passage");
      const now = await threadNiceness();
      lowered = [...now]
        .filter(([tid, thread]) => !before.has(tid) && thread.nice === 10)
        .map(([tid]) => tid);
      if (lowered.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const now = await threadNiceness();
    t.deepEqual(
      lowered.map((tid) => now.get(tid)?.name),
      ["WorkerThread"],
      "the passage worker, not a thread the process shares (libuv's pool, LanceDB's runtime)",
    );
    for (const [tid, thread] of now) {
      if (!lowered.includes(tid))
        t.is(thread.nice, before.get(tid)?.nice ?? 0, `${thread.name} keeps its niceness`);
    }
    // Queries stay here and the pooled passages keep the space: the same vectors as in-thread ones.
    const inThread = await loadTestModels({}, { builtinWorkers: 0 });
    try {
      t.deepEqual(
        await models.embedder.embed(TEXTS, "passage"),
        await inThread.embedder.embed(TEXTS, "passage"),
      );
    } finally {
      await inThread.close();
    }
  } finally {
    await models.close();
  }
});

test("EMBEDDING_PROVIDER=http uses the OpenAI-compatible endpoint", async (t) => {
  const models = await loadTestModels({
    EMBEDDING_PROVIDER: "http",
    EMBEDDING_URL: `${server.url}/v1`,
    EMBEDDING_MODEL: "bge-m3",
    RERANKER: "none",
  });
  try {
    t.is(models.embedder.id, "http:bge-m3:6");
    t.is((await models.embedder.embed(["x"], "query"))[0]?.length, 6);
  } finally {
    await models.close();
  }
});

test("EMBEDDING_MODEL_DIR loads an ONNX export in a worker thread; RERANKER_MODEL_DIR an ONNX cross-encoder", async (t) => {
  const models = await loadTestModels({
    EMBEDDING_MODEL_DIR: join(scratch, "tiny-embedder"),
    RERANKER_MODEL_DIR: join(scratch, "tiny-reranker"),
  });
  try {
    t.is(models.embedder.id, "onnx:tiny-embedder:8");
    t.is((await models.embedder.embed(TEXTS, "passage")).length, 2);
    t.truthy(models.reranker);
    const scores = await models.reranker?.rerank("katze", [
      { id: "1", title: "", text: "die katze schläft" },
    ]);
    t.is(scores?.length, 1);
  } finally {
    await models.close();
  }
});
