import { readFileSync } from "node:fs";

/** The service version, from package.json (reported by health, MCP initialize and logs). */
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
