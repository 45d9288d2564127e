import { create, insertMultiple, search } from "@orama/orama";
import { stemmer } from "@orama/stemmers/german";
import { stopwords } from "@orama/stopwords/german";
import type { EmbeddingProvider } from "../../core/models/embedding-provider.js";
import type { EvalDocument, EvalQuery } from "./read-eval-dataset.js";

/**
 * The peer baseline the issue names: Orama (BM25 with the German Snowball stemmer and stop words), in
 * full-text and in hybrid mode. Hybrid gets the same built-in embedder's vectors as our vector channel,
 * so the comparison is of retrieval and fusion, not of embedders. Same texts, same groups.
 */
export interface PeerRun {
  readonly ranked: readonly string[];
  readonly ms: number;
}

export async function runOramaBaseline(
  documents: readonly EvalDocument[],
  queries: readonly EvalQuery[],
  embedder: EmbeddingProvider,
  mode: "fulltext" | "hybrid",
): Promise<Map<string, PeerRun>> {
  const runs = new Map<string, PeerRun>();
  const groups = [...new Set(documents.map((d) => d.group))];
  for (const group of groups) {
    const docs = documents.filter((d) => d.group === group);
    const db = create({
      schema: { text: "string", embedding: `vector[${embedder.dim}]` } as const,
      components: { tokenizer: { language: "german", stemming: true, stemmer, stopWords: stopwords } },
    });
    const vectors =
      mode === "hybrid"
        ? await embedder.embed(
            docs.map((d) => d.text),
            "passage",
          )
        : [];
    await insertMultiple(
      db,
      docs.map((d, i) => ({
        id: d.id,
        text: d.text,
        embedding: Array.from(vectors[i] ?? new Float32Array(embedder.dim)),
      })),
    );
    for (const q of queries.filter((q) => q.group === group)) {
      const started = performance.now();
      const [vector] = mode === "hybrid" ? await embedder.embed([q.text], "query") : [];
      const result =
        mode === "hybrid"
          ? await search(db, {
              mode: "hybrid",
              term: q.text,
              vector: { value: Array.from(vector ?? []), property: "embedding" },
              similarity: 0,
              limit: 10,
            })
          : await search(db, { term: q.text, properties: ["text"], limit: 10 });
      runs.set(q.id, { ranked: result.hits.map((h) => String(h.id)), ms: performance.now() - started });
    }
  }
  return runs;
}
