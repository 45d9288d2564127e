import test from "ava";
import { negotiateResponseFormat } from "../../gateway-mcp/negotiate-response-format.js";

test("JSON is the default: no Accept, */*, or both types as MCP clients send them", (t) => {
  t.is(negotiateResponseFormat(undefined), "json");
  t.is(negotiateResponseFormat(""), "json");
  t.is(negotiateResponseFormat("*/*"), "json");
  t.is(negotiateResponseFormat("application/json, text/event-stream"), "json");
  t.is(negotiateResponseFormat("text/event-stream, application/json"), "json");
  t.is(negotiateResponseFormat("application/json"), "json");
  t.is(negotiateResponseFormat("application/*"), "json");
});

test("SSE when the client asks for text/event-stream only or prefers it", (t) => {
  t.is(negotiateResponseFormat("text/event-stream"), "sse");
  t.is(negotiateResponseFormat("Text/Event-Stream"), "sse");
  t.is(negotiateResponseFormat("text/event-stream, application/json;q=0.5"), "sse");
  t.is(negotiateResponseFormat("text/*, application/json;q=0.2"), "sse");
  t.is(negotiateResponseFormat("*/*;q=0.1, text/event-stream"), "sse");
});

test("a more specific range decides over a wildcard", (t) => {
  t.is(negotiateResponseFormat("*/*, application/json;q=0"), "sse");
  t.is(negotiateResponseFormat("text/*, text/event-stream;q=0"), undefined);
});

test("nothing acceptable is undefined (406)", (t) => {
  t.is(negotiateResponseFormat("text/html"), undefined);
  t.is(negotiateResponseFormat("application/xml, text/plain"), undefined);
  t.is(negotiateResponseFormat("application/json;q=0, text/event-stream;q=0"), undefined);
  t.is(negotiateResponseFormat("garbage"), undefined);
});
