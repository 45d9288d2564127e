import type * as http2 from "node:http2";

/**
 * gRPC's grpc-message is percent-encoded with only bytes outside printable ASCII (and '%') escaped
 * (gRPC over HTTP/2, "Status-Message"). connect-node escapes with encodeURIComponent, which also
 * escapes ':', '/', '?' and the like; grpc-js decodes with decodeURI, which leaves exactly those
 * escaped, so its users read "missing credentials%3A send …" (issue 15). Re-encoding the header
 * the spec's way is correct for every client.
 */
export function encodeGrpcMessage(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function reencode(headers: http2.OutgoingHttpHeaders): http2.OutgoingHttpHeaders {
  const value = headers["grpc-message"];
  if (typeof value !== "string") return headers;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return headers;
  }
  return { ...headers, "grpc-message": encodeGrpcMessage(decoded) };
}

/** Wraps a node request handler so grpc-message, in headers (trailers-only) or trailers, is re-encoded. */
export function withSpecGrpcMessages(
  handler: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
): (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void {
  return (req, res) => {
    if (req.headers["content-type"]?.startsWith("application/grpc") !== true) return handler(req, res);
    const addTrailers = res.addTrailers.bind(res);
    res.addTrailers = (trailers) => addTrailers(reencode(trailers as http2.OutgoingHttpHeaders));
    const writeHead = res.writeHead.bind(res) as (
      status: number,
      headers?: http2.OutgoingHttpHeaders,
    ) => typeof res;
    res.writeHead = ((status: number, headers?: http2.OutgoingHttpHeaders) =>
      writeHead(status, headers && reencode(headers))) as typeof res.writeHead;
    return handler(req, res);
  };
}
