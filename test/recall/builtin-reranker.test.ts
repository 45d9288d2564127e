import test from "ava";
import {
  createBuiltinReranker,
  REPEAT_FROM,
  repeatScale,
} from "../../core/models/builtin/create-builtin-reranker.js";
import { rerankFeatures } from "../../core/models/builtin/rerank-features.js";
import { analyzeRerankQuery } from "../../core/models/builtin/rerank-query.js";
import { workspaceRarity } from "../../core/models/builtin/workspace-rarity.js";
import { createEmptyLexicon } from "../../core/models/lexicon/create-lexicon.js";
import { parseOpenThesaurus } from "../../core/models/thesaurus/read-openthesaurus.js";
import { blendReranked } from "../../core/recall/rerank/blend-reranked.js";

const now = new Date("2026-06-11T12:00:00Z");

test("features: coverage, proximity, phrase order, title and episodic recency", (t) => {
  const query = analyzeRerankQuery("rote Äpfel schälen", undefined);
  const f = rerankFeatures(query, { title: "Äpfel", text: "Die roten Äpfel schälen wir am Abend." }, now);
  t.is(f.coverage, 1);
  t.is(f.proximity, 1);
  t.is(f.phrase, 1);
  t.true(f.title > 0 && f.title < 1);
  t.is(f.recency, 0);
  const apart = rerankFeatures(
    query,
    { title: "", text: `Äpfel ${"und so weiter ".repeat(10)} schälen, rot` },
    now,
  );
  t.is(apart.coverage, 1);
  t.true(apart.proximity < 1);
  t.is(apart.phrase, 0);
  const episodic = rerankFeatures(
    query,
    { title: "", text: "x", memoryType: "episodic", validFrom: now },
    now,
  );
  t.is(episodic.recency, 1);
  const old = rerankFeatures(
    query,
    { title: "", text: "x", memoryType: "episodic", validFrom: new Date(now.getTime() - 30 * 86_400_000) },
    now,
  );
  t.true(Math.abs(old.recency - Math.exp(-1)) < 1e-9);
});

test("the built-in reranker prefers the passage that covers more of the query", async (t) => {
  const reranker = createBuiltinReranker({ now: () => now });
  const scores = await reranker.rerank("Wann fährt der Zug nach Berlin?", [
    { id: "a", title: "", text: "Der Bus fährt nach Hamburg." },
    { id: "b", title: "", text: "Der Zug nach Berlin fährt um acht Uhr." },
    { id: "c", title: "", text: "Nichts davon." },
  ]);
  t.true((scores[1] ?? 0) > (scores[0] ?? 0));
  t.true((scores[0] ?? 0) > (scores[2] ?? 0));
  t.is(reranker.id, "builtin-features-v1");
});

test("repeat: the weighted share of the query's words a passage contains more than once", (t) => {
  const query = analyzeRerankQuery("Zug Berlin", undefined);
  const once = rerankFeatures(query, { title: "", text: "Der Zug nach Berlin." }, now);
  t.is(once.coverage, 1);
  t.is(once.repeat, 0);
  const twice = rerankFeatures(query, { title: "", text: "Der Zug nach Berlin. Berlin ist groß." }, now);
  t.is(twice.repeat, 0.5);
  const both = rerankFeatures(query, { title: "", text: "Zug, Zug, Zug nach Berlin und Berlin." }, now);
  t.is(both.repeat, 1);
});

test("repeat counts only above REPEAT_FROM chunks, growing with ln of the workspace's size, capped", async (t) => {
  t.is(repeatScale(undefined), 0);
  t.is(repeatScale(REPEAT_FROM), 0);
  t.true(Math.abs(repeatScale(REPEAT_FROM * Math.E) - 1) < 1e-9);
  t.is(repeatScale(10_000_000), 4);
  const reranker = createBuiltinReranker({ now: () => now });
  const candidates = [
    { id: "once", title: "", text: "Der Zug nach Berlin fährt." },
    { id: "about", title: "", text: "Der Zug nach Berlin fährt. In Berlin hält der Zug am Hauptbahnhof." },
  ];
  const small = await reranker.rerank("Zug nach Berlin", candidates, { workspaceChunks: 1_000 });
  t.is(small[0], small[1]);
  t.deepEqual(await reranker.rerank("Zug nach Berlin", candidates), small);
  const large = await reranker.rerank("Zug nach Berlin", candidates, { workspaceChunks: 100_000 });
  t.is(large[0], small[0]);
  t.true((large[1] ?? 0) > (large[0] ?? 0));
});

test("blending keeps one score per candidate, best first, and the first stage breaks even splits", (t) => {
  const head = [
    { score: 3, id: "x" },
    { score: 2, id: "y" },
    { score: 1, id: "z" },
  ];
  t.deepEqual(
    blendReranked(head, [0, 0, 1], 0).map((c) => c.id),
    ["z", "x", "y"],
  );
  t.deepEqual(
    blendReranked(head, [0, 1, 0], 1).map((c) => c.id),
    ["x", "y", "z"],
    "x: reranked 2nd, fused 1st; y: reranked 1st, fused 2nd — equal sums keep the first-stage order",
  );
  t.throws(() => blendReranked(head, [1], 1));
});

test("with a thesaurus, a query word's synonym in a passage counts as the word", (t) => {
  const german = parseOpenThesaurus("Impfung;Immunisierung\n");
  const thesaurus = {
    sources: [],
    fingerprint: "reranker-test",
    meanings: (word: string) => german.meanings(word),
  };
  const candidate = { title: "", text: "Die Immunisierung beginnt am Montag." };
  const lexicon = createEmptyLexicon();
  const without = rerankFeatures(analyzeRerankQuery("Wann beginnt die Impfung?", lexicon), candidate, now);
  const withSynonyms = rerankFeatures(
    analyzeRerankQuery("Wann beginnt die Impfung?", lexicon, thesaurus),
    candidate,
    now,
  );
  t.true(without.coverage < 1);
  t.is(withSynonyms.coverage, 1);
});

test("a word in most of the workspace's chunks weighs less than a rare one (ADR 0640)", async (t) => {
  const reranker = createBuiltinReranker({ now: () => now });
  const candidates = [
    { id: "common", title: "", text: "Das Coronavirus ist neu." },
    { id: "rare", title: "", text: "Die Inkubationszeit ist lang." },
  ];
  const query = "Coronavirus Inkubationszeit";
  const plain = await reranker.rerank(query, candidates, { workspaceChunks: 200 });
  t.is(plain[0], plain[1], "without figures both words weigh their dictionary idf (1 without a lexicon)");
  const frequencies = new Map([
    ["coronavirus", 180],
    ["inkubationszeit", 3],
  ]);
  const weighed = await reranker.rerank(query, candidates, {
    workspaceChunks: 200,
    wordDocumentFrequency: frequencies,
  });
  t.true((weighed[1] ?? 0) > (weighed[0] ?? 0));
  t.true((weighed[0] ?? 0) < 0.2, "a word in 90% of the chunks is a small share of the query");
  t.deepEqual(
    await reranker.rerank(query, candidates, { workspaceChunks: 200, wordDocumentFrequency: new Map() }),
    plain,
    "words without a figure keep their weight",
  );
});

test("workspace rarity: 1 for a word no chunk holds, falling with its share of the chunks", (t) => {
  t.is(workspaceRarity(0, 1_000), 1);
  t.true(workspaceRarity(10, 1_000) > workspaceRarity(100, 1_000));
  t.true(workspaceRarity(1_000, 1_000) > 0 && workspaceRarity(1_000, 1_000) < 0.1);
  t.is(workspaceRarity(5, 0), 1, "an empty workspace (no figures) changes nothing");
  t.is(workspaceRarity(2_000, 1_000), workspaceRarity(1_000, 1_000), "pending deltas may overshoot N");
});
