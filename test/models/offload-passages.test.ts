import test from "ava";
import { approximateTokenizer } from "../../core/models/builtin/approximate-token-count.js";
import { createBuiltinEmbedderWithLexicon } from "../../core/models/builtin/create-builtin-embedder.js";
import { createEmbeddingProvider } from "../../core/models/create-embedding-provider.js";
import type { EmbeddingProvider, EmbedPurpose } from "../../core/models/embedding-provider.js";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import { offloadPassages } from "../../core/models/offload-passages.js";

const TEXTS = ["Der Hund schläft im Garten.", "Die Katze jagt eine Maus.", "Quarterly revenue grew by 4 %."];

/** Records which provider answered which purpose. */
function recording(provider: EmbeddingProvider, calls: string[], name: string): EmbeddingProvider {
  return {
    ...provider,
    embed(texts: readonly string[], purpose: EmbedPurpose) {
      calls.push(`${name}:${purpose}`);
      return provider.embed(texts, purpose);
    },
  };
}

const startBuiltinPool = () =>
  createEmbeddingProvider({
    kind: "pooled",
    moduleUrl: new URL("../../core/models/builtin/create-builtin-embedder.ts", import.meta.url),
    exportName: "createBuiltinEmbedder",
    options: { lexicon: false },
    tokenizer: approximateTokenizer,
    size: 1,
  });

test("queries stay on the calling thread; passages go to the worker pool once it is ready, with the same vectors", async (t) => {
  const calls: string[] = [];
  const local = createBuiltinEmbedderWithLexicon(createEmptyLexicon());
  let poolStarted: Promise<EmbeddingProvider> | undefined;
  const embedder = offloadPassages(recording(local, calls, "local"), () => {
    poolStarted = startBuiltinPool().then((pool) => recording(pool, calls, "pool"));
    return poolStarted;
  });
  try {
    t.is(embedder.id, local.id);
    t.false(embedder.keepCallsApart ?? false);
    await embedder.embed(["Wo schläft der Hund?"], "query");
    t.is(poolStarted, undefined, "a query does not start the pool");
    // The first passages start the pool and are embedded here meanwhile.
    const first = await embedder.embed(TEXTS, "passage");
    t.not(poolStarted, undefined);
    await poolStarted;
    await new Promise((resolve) => setImmediate(resolve));
    const offloaded = await embedder.embed(TEXTS, "passage");
    const query = await embedder.embed(["Wo schläft der Hund?"], "query");
    t.deepEqual(calls, ["local:query", "local:passage", "pool:passage", "local:query"]);
    t.deepEqual(offloaded, first);
    t.deepEqual(query, await local.embed(["Wo schläft der Hund?"], "query"));
  } finally {
    await embedder.close?.();
  }
});

test("a pool that cannot start or embeds in another space leaves passages on the calling thread", async (t) => {
  const local = createBuiltinEmbedderWithLexicon(createEmptyLexicon());
  const reasons: string[] = [];
  const failing = offloadPassages(
    local,
    () => Promise.reject(new Error("no worker")),
    (r) => reasons.push(r),
  );
  const otherSpace = offloadPassages(
    local,
    async () => ({ ...(await startBuiltinPool()), id: "another-space" }),
    (r) => reasons.push(r),
  );
  try {
    const expected = await local.embed(TEXTS, "passage");
    for (const [n, embedder] of [failing, otherSpace].entries()) {
      t.deepEqual(await embedder.embed(TEXTS, "passage"), expected);
      // Once the start has failed or been refused, passages are still embedded, the same.
      while (reasons.length <= n) await new Promise((resolve) => setTimeout(resolve, 20));
      t.deepEqual(await embedder.embed(TEXTS, "passage"), expected);
    }
    t.is(reasons.length, 2);
    t.regex(reasons[0] ?? "", /no worker/);
    t.regex(reasons[1] ?? "", /another-space/);
  } finally {
    await Promise.all([failing.close?.(), otherSpace.close?.()]);
  }
});
