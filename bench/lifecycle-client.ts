import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

// The HTTP client of `npm run bench:lifecycle`, in a process of its own so the bench's RSS figures
// are the service's alone: `export <url> <headers JSON> <file>` writes the bundle to the file;
// `import <url> <headers JSON> <file>` uploads it. Prints {status, body} as one JSON line.

const [mode, url, headersJson, file] = process.argv.slice(2);
if (!mode || !url || !headersJson || !file)
  throw new Error("usage: export|import <url> <headers JSON> <file>");
const headers = JSON.parse(headersJson) as Record<string, string>;

if (mode === "export") {
  const res = await fetch(url, { headers });
  if (res.status === 200 && res.body) {
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
    process.stdout.write(`${JSON.stringify({ status: 200, body: null })}\n`);
  } else {
    process.stdout.write(`${JSON.stringify({ status: res.status, body: await res.text() })}\n`);
  }
} else {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: Readable.toWeb(createReadStream(file)) as never,
    duplex: "half",
  } as RequestInit);
  process.stdout.write(`${JSON.stringify({ status: res.status, body: await res.json() })}\n`);
}
