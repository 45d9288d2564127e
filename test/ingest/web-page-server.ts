import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A page the local server answers: status, headers, body — or a handler of its own. */
export type PageRoute =
  | {
      readonly status?: number;
      readonly type?: string;
      readonly body: string | Buffer;
      readonly headers?: Record<string, string>;
    }
  | ((req: IncomingMessage, res: ServerResponse) => void);

export interface WebPageServer {
  /** http://127.0.0.1:port */
  readonly url: string;
  /** Paths in the order they were requested. */
  readonly requests: string[];
  /** Answers `path` from now on (replacing what it answered before). */
  route(path: string, page: PageRoute): void;
  close(): Promise<void>;
}

/**
 * A local web server for the fetch tests: no test reaches the internet. Loopback is refused by the
 * outbound guard unless WEB_FETCH_ALLOW_PRIVATE_URLS (the webhook tests' WEBHOOK_ALLOW_PRIVATE_TARGETS
 * is the same mechanism), which the service of those tests sets.
 */
export async function startWebPageServer(): Promise<WebPageServer> {
  const routes = new Map<string, PageRoute>();
  const requests: string[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push(path);
    open.add(res);
    res.on("close", () => open.delete(res));
    const page = routes.get(path);
    if (page === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (typeof page === "function") {
      page(req, res);
      return;
    }
    res.writeHead(page.status ?? 200, {
      "content-type": page.type ?? "text/html; charset=utf-8",
      ...page.headers,
    });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, page) => routes.set(path, page),
    async close() {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An article page with furniture around it: navigation, header, aside, footer, scripts, styles. */
export function articlePage(options: {
  readonly title: string;
  readonly heading: string;
  readonly paragraphs: readonly string[];
  readonly furnitureWord: string;
}): string {
  const w = options.furnitureWord;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${options.title}</title>
<style>.nav{color:red} /* ${w}style */</style>
<script>window.tracking = "${w}script";</script></head>
<body>
<header class="site-header"><a href="/">Home ${w}header</a></header>
<nav class="menu"><ul><li><a href="/a">Products ${w}nav</a></li><li><a href="/b">About ${w}nav</a></li></ul></nav>
<main><article>
<h1>${options.heading}</h1>
${options.paragraphs.map((p) => `<p>${p}</p>`).join("\n")}
<h2>Opening hours</h2>
<ul><li>Monday to Friday</li><li>Saturday mornings</li></ul>
<table><thead><tr><th>Day</th><th>Hours</th></tr></thead><tbody><tr><td>Monday</td><td>9 to 17</td></tr></tbody></table>
</article></main>
<aside class="sidebar">Related links ${w}aside</aside>
<footer class="site-footer">Copyright 2026 ${w}footer · Imprint · Privacy</footer>
<script>document.write("${w}inline")</script>
</body></html>`;
}
