import { mkdir } from "node:fs/promises";
import * as lancedb from "@lancedb/lancedb";

/** The LanceDB database holding chunk vectors (one table per tenant and embedding space). */
export interface VectorStore {
  readonly uri: string;
  readonly connection: lancedb.Connection;
  /** True when the store answers a table listing. */
  ping(): Promise<boolean>;
  close(): void;
}

export async function openVectorStore(uri: string): Promise<VectorStore> {
  if (!uri.includes("://")) await mkdir(uri, { recursive: true });
  const connection = await lancedb.connect(uri);
  return {
    uri,
    connection,
    async ping() {
      try {
        await connection.tableNames({ limit: 1 });
        return true;
      } catch {
        return false;
      }
    },
    close: () => connection.close(),
  };
}
