import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "../../config/config.js";
import type { Logger } from "../../config/logger.js";
import { approximateTokenizer } from "./builtin/approximate-token-count.js";
import {
  type BuiltinEmbedderOptions,
  createBuiltinEmbedderWithLexicon,
} from "./builtin/create-builtin-embedder.js";
import { createBuiltinReranker } from "./builtin/create-builtin-reranker.js";
import { createEmbeddingProvider } from "./create-embedding-provider.js";
import { createReranker } from "./create-reranker.js";
import type { EmbeddingProvider } from "./embedding-provider.js";
import type { Lexicon } from "./lexicon/lexicon.js";
import { loadLexicon } from "./lexicon/load-lexicon.js";
import { offloadPassages } from "./offload-passages.js";
import type { Reranker } from "./reranker.js";
import { createUseLiteEncoder, type SentenceEncoder } from "./sentence-encoder/create-use-lite-encoder.js";
import { loadThesaurus } from "./thesaurus/load-thesaurus.js";
import type { Thesaurus } from "./thesaurus/thesaurus.js";

export interface Models {
  readonly embedder: EmbeddingProvider;
  readonly reranker: Reranker | undefined;
  /**
   * The FreeDict German↔English lexicon, shared by the built-in embedder, recall's cross-lingual
   * BM25 query expansion and the built-in reranker; empty when the dictionaries are not installed.
   */
  readonly lexicon?: Lexicon | undefined;
  /** Thesauri for recall's synonym expansion (ADR 0520); empty when none is installed. */
  readonly thesaurus?: Thesaurus | undefined;
  close(): Promise<void>;
}

export interface LoadModelsOptions {
  /**
   * Where the parsed dictionary tables are cached (default LEXICON_CACHE_DIR, i.e. `${DATA_DIR}/cache`).
   * Parsing the dictionaries takes 20 s to a minute and about 1 GB; the cache file loads in half a second.
   */
  readonly lexiconCacheDirectory?: string;
  /**
   * Worker threads the built-in embedder embeds passages in (queries stay on the calling thread); 0
   * embeds everything on the calling thread. Default
   * BUILTIN_EMBEDDER_WORKERS (see there for the measurement behind it).
   */
  readonly builtinWorkers?: number;
  /** Read the thesauri (default true); a process that never recalls (the worker) skips them. */
  readonly thesaurus?: boolean;
}

/**
 * The default of BUILTIN_EMBEDDER_WORKERS: passages in one worker thread at niceness 10, queries on the
 * calling thread (ADR 0580: recall p95 during a bulk load 67–86 ms against 111–118 ms all in one thread).
 */
export const BUILTIN_EMBEDDER_WORKERS = 1;

/** Threads an ONNX embedding model runs in: off the event loop, ONNX Runtime using both cores. */
const ONNX_WORKERS = 1;
const ONNX_THREADS = 2;

// The module the pool's workers load the built-in embedder from (.ts under tsx, .js if compiled).
const BUILTIN_MODULE = new URL(
  `./builtin/create-builtin-embedder${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/**
 * Builds the configured embedder and reranker (EMBEDDING_PROVIDER builtin | onnx | http, RERANKER
 * builtin | onnx | http | none). A provider that cannot start fails the boot with its ProviderError,
 * not the first request.
 */
export async function loadModels(
  config: Config,
  logger: Logger,
  options: LoadModelsOptions = {},
): Promise<Models> {
  // Loaded once per process whatever the embedder: recall expands queries across languages with it
  // even when an ONNX or HTTP model embeds. From the cache file this takes well under a second.
  const loaded = await loadLexicon({
    dictionaryDirectory: config.lexicon.dictionaryDir,
    cacheDirectory: options.lexiconCacheDirectory ?? config.lexicon.cacheDir,
  });
  if (loaded.warning) logger.warn({ source: loaded.source }, loaded.warning);
  logger.info({ source: loaded.source, loadMs: Math.round(loaded.loadMs) }, "lexicon ready");
  const lexicon = loaded.lexicon;
  // Recall's synonym expansion and the query's embedding (ADR 0520, 0540): ≈ 30 MB of heap with both
  // of Debian's thesauri.
  const thesaurus =
    options.thesaurus === false
      ? undefined
      : await loadThesaurus({ de: config.thesaurus.de, en: config.thesaurus.en });
  if (thesaurus?.warning) logger.warn(thesaurus.warning);
  if (thesaurus !== undefined)
    logger.info(
      {
        sources: thesaurus.thesaurus.sources.map((s) => `${s.language}:${s.path}`),
        loadMs: thesaurus.loadMs,
      },
      "thesaurus ready",
    );
  // A worker thread reads the lexicon from the cache file, which exists unless writing it failed.
  const lexiconCached = loaded.source !== "dictionaries" || loaded.warning === undefined;
  const embedder = await loadEmbedder(config, options, lexicon, lexiconCached, logger, thesaurus?.thesaurus);
  let reranker: Reranker | undefined;
  try {
    reranker = await loadReranker(config, lexicon, thesaurus?.thesaurus, logger);
  } catch (error) {
    await embedder.close?.();
    throw error;
  }
  logger.info({ embedder: embedder.id, dim: embedder.dim, reranker: reranker?.id ?? "none" }, "models ready");
  return {
    embedder,
    reranker,
    lexicon,
    thesaurus: thesaurus?.thesaurus,
    async close() {
      await Promise.all([embedder.close?.(), reranker?.close?.()]);
    },
  };
}

async function loadEmbedder(
  config: Config,
  options: LoadModelsOptions,
  lexicon: Lexicon,
  lexiconCached: boolean,
  logger: Logger,
  thesaurus: Thesaurus | undefined,
): Promise<EmbeddingProvider> {
  const embedding = config.embedding;
  switch (embedding.kind) {
    case "onnx":
      return createEmbeddingProvider({
        kind: "onnx",
        modelDir: embedding.modelDir,
        workers: ONNX_WORKERS,
        threads: ONNX_THREADS,
      });
    case "http":
      return createEmbeddingProvider({
        kind: "http",
        url: embedding.url,
        model: embedding.model,
        ...(embedding.apiKey !== undefined ? { apiKey: embedding.apiKey } : {}),
        ...(embedding.dim !== undefined ? { dim: embedding.dim } : {}),
      });
    case "builtin": {
      // Queries are embedded here, with their words' synonyms (ADR 0540); passages, here or in the
      // workers, never get synonyms, so the workers need no thesaurus.
      const local = createBuiltinEmbedderWithLexicon(lexicon, {}, thesaurus);
      const workers = options.builtinWorkers ?? embedding.passageWorkers;
      // Each worker thread loads its own copy of the lexicon from the cache file; without that file it
      // would parse the dictionaries again (a minute and ≈ 1 GB), so then everything stays here.
      if (workers === 0 || !lexiconCached) return local;
      const builtinOptions: BuiltinEmbedderOptions = {
        lexicon: {
          dictionaryDirectory: config.lexicon.dictionaryDir,
          cacheDirectory: options.lexiconCacheDirectory ?? config.lexicon.cacheDir,
        },
      };
      return offloadPassages(
        local,
        () =>
          createEmbeddingProvider({
            kind: "pooled",
            moduleUrl: BUILTIN_MODULE,
            exportName: "createBuiltinEmbedder",
            options: builtinOptions,
            tokenizer: approximateTokenizer,
            size: workers,
            niceness: PASSAGE_WORKER_NICENESS,
          }),
        (reason) => logger.warn({ reason }, "passages are embedded on the calling thread"),
      );
    }
  }
}

/**
 * Passages are writes nobody watches being embedded; recalls wait on the calling thread. At niceness
 * 10 the OS runs the calling thread (and PostgreSQL's backends) first when both want a core (ADR 0580).
 */
const PASSAGE_WORKER_NICENESS = 10;

/**
 * The English sentence encoder (ADR 0760), loaded with the first English query the reranker scores:
 * ≈ 1 s and ≈ 100 MB that a process answering none never spends. A failure to load is logged once and
 * leaves the reranker without semantic sentence scores.
 */
function loadSentenceEncoderOnce(logger: Logger): () => Promise<SentenceEncoder | undefined> {
  let loading: Promise<SentenceEncoder | undefined> | undefined;
  return () => {
    loading ??= createUseLiteEncoder({ threads: ONNX_THREADS }).catch((error: unknown) => {
      logger.warn({ err: error }, "the English sentence encoder did not load; reranking without it");
      return undefined;
    });
    return loading;
  };
}

async function loadReranker(
  config: Config,
  lexicon: Lexicon,
  thesaurus: Thesaurus | undefined,
  logger: Logger,
): Promise<Reranker | undefined> {
  const reranker = config.reranker;
  switch (reranker.kind) {
    case "none":
      return undefined;
    case "builtin":
      return createBuiltinReranker({ lexicon, thesaurus, sentenceEncoder: loadSentenceEncoderOnce(logger) });
    case "onnx":
      return createReranker({ kind: "onnx", modelDir: reranker.modelDir });
    case "http":
      return createReranker({
        kind: "http",
        url: reranker.url,
        ...(reranker.model !== undefined ? { model: reranker.model } : {}),
        ...(reranker.apiKey !== undefined ? { apiKey: reranker.apiKey } : {}),
      });
  }
}
