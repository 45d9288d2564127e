import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** The file beside the segment files naming the tenants the last run held, most worth warming first. */
const HOT_LIST_FILE = "hot.json";

/** The last run's hot list (ADR 0370); empty when there is none or it cannot be read. */
export async function readHotList(segmentDirectory: string): Promise<string[]> {
  try {
    const list: unknown = JSON.parse(await readFile(join(segmentDirectory, HOT_LIST_FILE), "utf8"));
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/** Written synchronously: it is called on the way out of the process, when promises may not settle. */
export function writeHotList(segmentDirectory: string, tenants: readonly string[]): void {
  writeFileSync(join(segmentDirectory, HOT_LIST_FILE), JSON.stringify(tenants), { mode: 0o600 });
}
