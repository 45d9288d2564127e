import type { Logger } from "../../../config/logger.js";
import { type Bm25IndexEntry, newBm25IndexEntry } from "./bm25-index-entry.js";
import { decodeSegment, readSegmentFile, removeSegmentFile, writeSegmentFile } from "./bm25-segment-file.js";
import { FeedWatermark } from "./feed-watermark.js";
import { TenantBm25Index } from "./tenant-bm25-index.js";

/**
 * Where each tenant's index is kept on disk (ADR 0370: `DATA_DIR/bm25`): a tenant's file operations
 * run one after the other (a removal is never overtaken by a write), and concurrent loads share one read.
 */
export class Bm25SegmentFiles {
  readonly #chains = new Map<string, Promise<void>>();
  readonly #loading = new Map<string, Promise<Bm25IndexEntry | undefined>>();
  /** Indexes loaded from their segment files. */
  loaded = 0;

  constructor(
    readonly directory: string,
    private readonly logger: Logger,
  ) {}

  /** Queues a file operation of the tenant's; a failure is logged, never thrown. */
  onFile(tenantId: string, work: () => Promise<void>): Promise<void> {
    const run = (this.#chains.get(tenantId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, tenantId }, "BM25 segment file operation failed"),
      );
    this.#chains.set(tenantId, run);
    void run.finally(() => {
      if (this.#chains.get(tenantId) === run) this.#chains.delete(tenantId);
    });
    return run;
  }

  /** The file operations still running. */
  pending(): Promise<void>[] {
    return [...this.#chains.values()];
  }

  write(tenantId: string, bytes: () => Promise<Buffer | undefined>): Promise<void> {
    return this.onFile(tenantId, async () => {
      const encoded = await bytes();
      if (encoded !== undefined) await writeSegmentFile(this.directory, tenantId, encoded);
    });
  }

  remove(tenantId: string): Promise<void> {
    return this.onFile(tenantId, () => removeSegmentFile(this.directory, tenantId));
  }

  /** The tenant's index from its segment file, or undefined (none, damaged: removed, then rebuilt). */
  load(tenantId: string): Promise<Bm25IndexEntry | undefined> {
    let run = this.#loading.get(tenantId);
    if (run === undefined) {
      run = this.#read(tenantId).finally(() => this.#loading.delete(tenantId));
      this.#loading.set(tenantId, run);
    }
    return run;
  }

  async #read(tenantId: string): Promise<Bm25IndexEntry | undefined> {
    await this.#chains.get(tenantId);
    const bytes = await readSegmentFile(this.directory, tenantId);
    if (bytes === undefined) return undefined;
    try {
      const segment = decodeSegment(tenantId, bytes);
      const index = TenantBm25Index.fromParts(segment.parts);
      this.loaded++;
      return newBm25IndexEntry(index, FeedWatermark.restore(segment.feed));
    } catch (error) {
      this.logger.warn({ err: error, tenantId }, "BM25 segment file unreadable; rebuilt from PostgreSQL");
      await this.remove(tenantId);
      return undefined;
    }
  }
}
