import test from "ava";
import fc from "fast-check";
import { JsonRpcError } from "../../gateway-mcp/json-rpc-error.js";
import { parseJsonRpcMessage } from "../../gateway-mcp/parse-json-rpc-message.js";

function codeOf(body: string): number | undefined {
  try {
    parseJsonRpcMessage(body);
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    return error.code;
  }
}

test("a request keeps its id, method and params", (t) => {
  t.deepEqual(parseJsonRpcMessage('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}'), {
    kind: "request",
    id: 7,
    method: "tools/list",
    params: { cursor: "x" },
  });
  t.like(parseJsonRpcMessage('{"jsonrpc":"2.0","id":"a","method":"ping"}'), { kind: "request", id: "a" });
  // The spec allows a null id ("id (string, integer or null)").
  t.like(parseJsonRpcMessage('{"jsonrpc":"2.0","id":null,"method":"ping"}'), { kind: "request", id: null });
});

test("a message without id is a notification; one with result or error is a response", (t) => {
  t.deepEqual(parseJsonRpcMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}'), {
    kind: "notification",
    method: "notifications/initialized",
  });
  t.like(parseJsonRpcMessage('{"jsonrpc":"2.0","id":1,"result":{}}'), {
    kind: "response",
    id: 1,
    result: {},
  });
  t.like(parseJsonRpcMessage('{"jsonrpc":"2.0","id":"e","error":{"code":1,"message":"x"}}'), {
    kind: "response",
    id: "e",
    error: { code: 1, message: "x" },
  });
});

test("malformed JSON is -32700 with HTTP 400", (t) => {
  for (const body of ["", "{", '{"jsonrpc":"2.0",}', "nul", "\u0000"]) {
    t.is(codeOf(body), -32700, JSON.stringify(body));
  }
});

test("batches, non-objects and broken envelopes are -32600", (t) => {
  for (const body of [
    "[]",
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    "42",
    '"ping"',
    "null",
    '{"id":1,"method":"ping"}',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":""}',
    '{"jsonrpc":"2.0","id":1,"method":3}',
    '{"jsonrpc":"2.0","id":1}',
  ]) {
    t.is(codeOf(body), -32600, body);
  }
});

test("any string is parsed or refused with a JSON-RPC error, never anything else", (t) => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.json(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      (body) => {
        const code = codeOf(body);
        return code === undefined || code === -32700 || code === -32600;
      },
    ),
    { numRuns: 2000 },
  );
  t.pass();
});

test("any object with jsonrpc 2.0, an id and a method string parses as that request", (t) => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      fc.string({ minLength: 1 }),
      fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
      (id, method, params) => {
        const message = parseJsonRpcMessage(
          JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }),
        );
        return message.kind === "request" && message.id === id && message.method === method;
      },
    ),
  );
  t.pass();
});
