import test from "ava";
import { seal, unseal } from "../../gateway-mcp/caller-sealed.js";
import { decodeHeaderValue } from "../../gateway-mcp/classify-request.js";
import { JSON_RPC_CODES } from "../../gateway-mcp/json-rpc-codes.js";
import { JsonRpcError } from "../../gateway-mcp/json-rpc-error.js";
import { acceptsEventStream } from "../../gateway-mcp/negotiate-response-format.js";
import { negotiateLegacyRevision, supportsFormElicitation } from "../../gateway-mcp/protocol-revisions.js";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import { answerOf } from "../../gateway-mcp/user-confirmation.js";

// The pieces of revision framing (issue 47, items 1, 2, 5) that need no server.

test("initialize negotiation: 2025 revisions are echoed, newer asks get 2025-11-25, older ones 2025-06-18", (t) => {
  t.is(negotiateLegacyRevision("2025-06-18"), "2025-06-18");
  t.is(negotiateLegacyRevision("2025-11-25"), "2025-11-25");
  t.is(negotiateLegacyRevision("2026-07-28"), "2025-11-25");
  t.is(negotiateLegacyRevision("2025-03-26"), "2025-06-18");
  t.is(negotiateLegacyRevision("nonsense"), "2025-11-25", "unknown strings sort after the dates");
});

test("form elicitation counts as declared with form, or with no mode at all, never with url only", (t) => {
  t.true(supportsFormElicitation({ elicitation: {} }));
  t.true(supportsFormElicitation({ elicitation: { form: {} } }));
  t.true(supportsFormElicitation({ elicitation: { form: {}, url: {} } }));
  t.false(supportsFormElicitation({ elicitation: { url: {} } }));
  t.false(supportsFormElicitation({}));
  t.false(supportsFormElicitation({ elicitation: true }));
  t.false(supportsFormElicitation(undefined));
});

test("only accept with confirm: true is an acceptance", (t) => {
  t.is(answerOf({ action: "accept", content: { confirm: true } }), "accept");
  t.is(answerOf({ action: "accept", content: { confirm: false } }), "decline");
  t.is(answerOf({ action: "accept" }), "decline");
  t.is(answerOf({ action: "decline" }), "decline");
  t.is(answerOf({ action: "cancel" }), "cancel");
  t.is(answerOf(undefined), "cancel");
  t.is(answerOf("accept"), "cancel");
});

test("Mcp-Name values: plain, Base64 sentinel, and characters no header may hold", (t) => {
  t.is(decodeHeaderValue("service_recall"), "service_recall");
  t.is(decodeHeaderValue(`=?base64?${Buffer.from("Grüße").toString("base64")}?=`), "Grüße");
  t.is(decodeHeaderValue("a\u0000b"), undefined);
  t.is(decodeHeaderValue("zwölf"), undefined);
});

test("sealed values verify only for the purpose and credential they were sealed with", (t) => {
  const sealed = seal("session", "Bearer a", { elicitation: true });
  t.deepEqual(unseal("session", "Bearer a", sealed), { elicitation: true });
  t.is(unseal("session", "Bearer b", sealed), undefined);
  t.is(unseal("request-state", "Bearer a", sealed), undefined);
  t.is(unseal("session", "Bearer a", `${sealed}x`), undefined);
  t.is(unseal("session", "Bearer a", "no-dot"), undefined);
  t.is(unseal("session", "Bearer a", undefined), undefined);
});

test("on 2026-07-28 -32002 and -32029 leave the reserved range, -32601 is HTTP 404; the rest is unchanged", (t) => {
  const scope = new JsonRpcError(JSON_RPC_CODES.scopeMissing, "write scope missing", {
    data: { reason: "x" },
  });
  t.like(scope.forModernRevision(), { code: -31002, httpStatus: 200, data: { reason: "x" } });
  const limited = new JsonRpcError(JSON_RPC_CODES.rateLimited, "slow down", {
    httpStatus: 429,
    headers: { "retry-after": "7" },
  });
  t.like(limited.forModernRevision(), { code: -31029, httpStatus: 429, headers: { "retry-after": "7" } });
  t.like(new JsonRpcError(JSON_RPC_CODES.methodNotFound, "no").forModernRevision(), {
    code: -32601,
    httpStatus: 404,
  });
  const notFound = new JsonRpcError(JSON_RPC_CODES.notFound, "gone");
  t.is(notFound.forModernRevision(), notFound);
});

test("an event stream is acceptable unless refused with q=0", (t) => {
  t.true(acceptsEventStream("application/json, text/event-stream"));
  t.true(acceptsEventStream("text/event-stream;q=0.1, application/json"));
  t.true(acceptsEventStream("*/*"));
  t.false(acceptsEventStream("application/json"));
  t.false(acceptsEventStream("text/event-stream;q=0, application/json"));
  t.false(acceptsEventStream(undefined));
});

test("every tool lists one self-contained data: SVG icon from 2025-11-25 on, and none on 2025-06-18", (t) => {
  for (const tool of TOOLS) {
    t.is(tool.listing.icons, undefined, tool.name);
    const { icons, ...rest } = tool.listingWithIcons;
    t.deepEqual(rest, tool.listing, tool.name);
    t.is(icons?.length, 1, tool.name);
    const [icon] = icons ?? [];
    t.like(icon, { mimeType: "image/svg+xml", sizes: ["any"] }, tool.name);
    const svg = Buffer.from(
      (icon?.src ?? "").replace(/^data:image\/svg\+xml;base64,/, ""),
      "base64",
    ).toString();
    t.regex(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/, tool.name);
    t.notRegex(svg, /<script|href=/i, tool.name);
  }
});
