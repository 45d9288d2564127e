/**
 * Synthetic German chunks for bench/recall.ts, built from the eval corpus (issue #6 "Measure"): the 240
 * xquad_de paragraphs first (so the xquad_de questions have their real answers), then paragraphs of 3–6
 * sentences drawn from those paragraphs and the German Tatoeba sentences, with one word in ten replaced
 * by a word drawn from the whole text (so sentences recombine instead of repeating verbatim, and term
 * frequencies follow the corpus' own skewed distribution). Deterministic for a given seed.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

export interface SyntheticCorpus {
  /** The i-th chunk's text; i < paragraphs.length are the original paragraphs. */
  chunk(i: number): string;
  readonly originalCount: number;
}

/** mulberry32: small, fast, good enough for sampling. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function readTexts(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const row = JSON.parse(line) as { text?: unknown };
      return typeof row.text === "string" ? row.text : "";
    })
    .filter((t) => t.length > 0);
}

export async function loadSyntheticCorpus(evalDir: string, seed = 42): Promise<SyntheticCorpus> {
  const paragraphs = await readTexts(join(evalDir, "xquad_de", "corpus.jsonl"));
  const tatoeba = await readTexts(join(evalDir, "tatoeba_en2de", "corpus.jsonl"));
  const segmenter = new Intl.Segmenter("de", { granularity: "sentence" });
  const sentences: string[] = [];
  for (const p of paragraphs) for (const s of segmenter.segment(p)) sentences.push(s.segment.trim());
  sentences.push(...tatoeba);
  const words = sentences.flatMap((s) => s.split(/\s+/)).filter((w) => /\p{L}/u.test(w));
  return {
    originalCount: paragraphs.length,
    chunk(i) {
      if (i < paragraphs.length) return paragraphs[i] ?? "";
      const random = createRandom(seed * 1_000_003 + i);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
      const count = 3 + Math.floor(random() * 4);
      const parts: string[] = [];
      for (let s = 0; s < count; s++) {
        parts.push(
          pick(sentences)
            .split(/\s+/)
            .map((w) => (random() < 0.1 ? pick(words) : w))
            .join(" "),
        );
      }
      return parts.join(" ");
    },
  };
}
