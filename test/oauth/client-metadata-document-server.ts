import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One answer of the document server: status, headers and body (a JSON value is serialised). */
export interface DocumentAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
  /** Send the headers and then nothing more: a server that never finishes the document. */
  readonly hang?: boolean;
}

export interface ClientMetadataDocumentServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Serves `answer` at `path` (e.g. "/clients/a.json"); returns the document's URL. */
  serve(path: string, answer: (url: string) => DocumentAnswer): string;
  /** How many times `path` was requested. */
  fetches(path: string): number;
  close(): Promise<void>;
}

/**
 * A local web server that hosts OAuth clients' metadata documents, as a client's own site would.
 * The service reaches it only with OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_URLS (it is on loopback).
 */
export async function startClientMetadataDocumentServer(): Promise<ClientMetadataDocumentServer> {
  const routes = new Map<string, (url: string) => DocumentAnswer>();
  const counts = new Map<string, number>();
  let origin = "";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const answer = route(`${origin}${path}`);
    if (answer.hang) {
      response.writeHead(200, { "content-type": "application/json" });
      response.write("{");
      return;
    }
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    response
      .writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    serve(path, answer) {
      routes.set(path, answer);
      return `${origin}${path}`;
    },
    fetches: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A well-formed public client's document for `url` (MCP authorization 2025-11-25's example). */
export function clientDocument(
  url: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: url,
    client_name: "Document assistant",
    client_uri: "https://assistant.example",
    redirect_uris: ["http://127.0.0.1:9/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
}
