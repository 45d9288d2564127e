import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import test from "ava";
import type { z } from "zod";
import type { eraseMemoryOutput } from "../../gateway-mcp/tools/erase-memory.js";
import type { recallOutput } from "../../gateway-mcp/tools/recall.js";
import type { storedMemorySchema } from "../../gateway-mcp/translate/stored-memory-result.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { parseJsonAnswer, postMcp, rpc, UNTHROTTLED } from "./post-mcp.js";
import { callTool } from "./sdk-client.js";
import { switchableModels } from "./switchable-embedder.js";

// Erasure confirmed by the user through the revision's own mechanism (issue 47, item 5):
// form elicitation on the response stream (2025-11-25, 1.x SDK client), the multi round-trip input
// request (2026-07-28, 2.x SDK client and raw requests), and the confirm argument for clients that
// declared no elicitation. The user's answer is played by the clients' elicitation handlers.

type Erased = z.output<typeof eraseMemoryOutput>;
type Stored = z.output<typeof storedMemorySchema>;
type Answer = "accept" | "decline" | "cancel";

let service: TestService;
let tenant: TestTenant;
let otherAdmin: string;
const closers: (() => Promise<void>)[] = [];
/** What the scripted user answers next, and the questions they were shown. */
let nextAnswer: Answer = "accept";
const questions: string[] = [];

function userAnswer(message: string): ElicitResult {
  questions.push(message);
  return nextAnswer === "accept" ? { action: "accept", content: { confirm: true } } : { action: nextAnswer };
}

test.before(async () => {
  service = await startTestService({ models: switchableModels() });
  tenant = await service.createTenant({ scopes: ["read", "write", "admin"], limitsOverride: UNTHROTTLED });
  otherAdmin = (await tenant.issueToken(["read", "write", "admin"], "second admin")).token;
});

test.after.always(async () => {
  for (const close of closers) await close();
  await service?.stop();
});

const url = () => new URL(`${service.httpUrl}/api/mcp/v1`);
const requestInit = () => ({ headers: { authorization: `Bearer ${tenant.token}` } });
const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10)}`;

interface Caller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** The 1.x client on 2025-11-25; with `elicitation`, it declares form elicitation and answers as the user. */
async function legacyClient(
  elicitation: boolean,
): Promise<{ client: Client; sessionIds: (string | null)[] }> {
  const sessionIds: (string | null)[] = [];
  const transport = new StreamableHTTPClientTransport(url(), {
    requestInit: requestInit(),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === "string" && init.body.includes('"initialize"'))
        sessionIds.push(response.headers.get("mcp-session-id"));
      return response;
    },
  });
  const client = new Client(
    { name: "erase-tests", version: "1.0.0" },
    { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  if (elicitation)
    client.setRequestHandler(ElicitRequestSchema, (request) => userAnswer(request.params.message));
  await client.connect(transport);
  await client.listTools();
  closers.push(() => client.close());
  return { client, sessionIds };
}

/** The 2.x client on 2026-07-28; with `elicitation`, it fulfils input requests as the user. */
async function modernClient(elicitation: boolean): Promise<Client2> {
  const client = new Client2(
    { name: "erase-tests", version: "2.0.0" },
    { versionNegotiation: { mode: "auto" }, capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  if (elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => userAnswer(request.params.message));
  }
  await client.connect(new Transport2(url(), { requestInit: requestInit() }));
  closers.push(() => client.close());
  return client;
}

async function store(client: Caller, word: string): Promise<Stored> {
  return callTool<Stored>(client, "service_store_memory", {
    title: `Locker code ${word}`,
    content: `The locker code for ${word} is 4711.`,
  });
}

async function stillThere(client: Caller, word: string, id: string): Promise<boolean> {
  const { hits } = await callTool<z.output<typeof recallOutput>>(client, "service_recall", {
    query: `locker ${word}`,
  });
  return hits.some((hit) => hit.memory_id === id);
}

async function erase(client: Caller, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name: "service_erase_memory", arguments: args })) as CallToolResult;
}

const clients = {
  "2025-11-25 (1.x client, elicitation on the response stream)": async () =>
    (await legacyClient(true)).client,
  "2026-07-28 (2.x client, input_required round trip)": () => modernClient(true),
};

for (const [label, connect] of Object.entries(clients)) {
  test.serial(`${label}: the user is asked, naming the memory; accept erases it`, async (t) => {
    const client = await connect();
    const word = uniqueWord();
    const stored = await store(client, word);
    nextAnswer = "accept";
    questions.length = 0;
    // No confirm argument: the server asks the user itself.
    const result = await erase(client, { memory_id: stored.memory_id });
    t.falsy(result.isError, JSON.stringify(result.content));
    t.like(result.structuredContent as Erased, { erased: true, memory_id: stored.memory_id, versions: 1 });
    t.is(questions.length, 1);
    t.regex(questions[0] ?? "", new RegExp(`Locker code ${word}`));
    t.false(await stillThere(client, word, stored.memory_id));
  });

  for (const answer of ["decline", "cancel"] as const) {
    test.serial(`${label}: ${answer} erases nothing, even with confirm: true from the model`, async (t) => {
      const client = await connect();
      const word = uniqueWord();
      const stored = await store(client, word);
      nextAnswer = answer;
      const result = await erase(client, { memory_id: stored.memory_id, confirm: true });
      t.true(result.isError);
      t.like(result.structuredContent as Erased, { erased: false, memory_id: stored.memory_id });
      t.regex(JSON.stringify(result.content), answer === "decline" ? /declined/ : /did not answer/);
      t.true(await stillThere(client, word, stored.memory_id));
    });
  }
}

test.serial("2025-11-25: a session id is issued only to a client that declared elicitation", async (t) => {
  const withElicitation = await legacyClient(true);
  const without = await legacyClient(false);
  t.regex(withElicitation.sessionIds[0] ?? "", /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  t.is(without.sessionIds[0], null);
});

const fallbackClients = {
  "2025-11-25 without elicitation": async () => (await legacyClient(false)).client,
  "2026-07-28 without elicitation": () => modernClient(false),
};

for (const [label, connect] of Object.entries(fallbackClients)) {
  test.serial(`${label}: the confirm argument decides, as on 2025-06-18`, async (t) => {
    const client = await connect();
    const word = uniqueWord();
    const stored = await store(client, word);
    const refused = await erase(client, { memory_id: stored.memory_id });
    t.true(refused.isError);
    t.regex(JSON.stringify(refused.content), /confirm: true/);
    t.true(await stillThere(client, word, stored.memory_id));
    const done = await erase(client, { memory_id: stored.memory_id, confirm: true });
    t.falsy(done.isError);
    t.false(await stillThere(client, word, stored.memory_id));
  });
}

// The 2026-07-28 round trip on the wire.

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
};

function modernCall(token: string, params: Record<string, unknown>) {
  return postMcp(
    service.httpUrl,
    rpc("tools/call", { name: "service_erase_memory", ...params, _meta: META }),
    {
      token,
      headers: {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "service_erase_memory",
      },
    },
  );
}

test.serial(
  "2026-07-28 on the wire: input_required with a form and requestState; the retry with the answer erases",
  async (t) => {
    const word = uniqueWord();
    const client = await modernClient(false);
    const stored = await store(client, word);
    const first = parseJsonAnswer(
      await modernCall(tenant.token, { arguments: { memory_id: stored.memory_id } }),
    );
    const asked = first.result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
      requestState: string;
      ttlMs?: number;
    };
    t.is(asked.resultType, "input_required");
    t.is(asked.ttlMs, undefined, "interim results carry no cache hints");
    t.like(asked.inputRequests.confirm, {
      method: "elicitation/create",
      params: { mode: "form", requestedSchema: { type: "object", required: ["confirm"] } },
    });
    t.regex(String(asked.inputRequests.confirm?.params.message), new RegExp(word));
    t.true(await stillThere(client, word, stored.memory_id), "asking erases nothing");

    const accept = { confirm: { action: "accept", content: { confirm: true } } };
    // Another token (even of the same workspace) cannot use this requestState: asked again.
    const foreign = parseJsonAnswer(
      await modernCall(otherAdmin, {
        arguments: { memory_id: stored.memory_id },
        inputResponses: accept,
        requestState: asked.requestState,
      }),
    );
    t.is(foreign.result?.resultType, "input_required");
    // A tampered requestState: asked again.
    const tampered = parseJsonAnswer(
      await modernCall(tenant.token, {
        arguments: { memory_id: stored.memory_id },
        inputResponses: accept,
        requestState: `${asked.requestState.slice(0, -2)}xx`,
      }),
    );
    t.is(tampered.result?.resultType, "input_required");
    t.true(await stillThere(client, word, stored.memory_id));

    const done = parseJsonAnswer(
      await modernCall(tenant.token, {
        arguments: { memory_id: stored.memory_id },
        inputResponses: accept,
        requestState: asked.requestState,
      }),
    );
    t.like(done.result, {
      resultType: "complete",
      structuredContent: { erased: true, memory_id: stored.memory_id },
    });
    t.false(await stillThere(client, word, stored.memory_id));
  },
);

test.serial(
  "2026-07-28 on the wire: a requestState for one memory does not confirm erasing another",
  async (t) => {
    const client = await modernClient(false);
    const word = uniqueWord();
    const first = await store(client, word);
    const second = await store(client, `${word}b`);
    const asked = parseJsonAnswer(
      await modernCall(tenant.token, { arguments: { memory_id: first.memory_id } }),
    );
    const swapped = parseJsonAnswer(
      await modernCall(tenant.token, {
        arguments: { memory_id: second.memory_id },
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        requestState: (asked.result as { requestState: string }).requestState,
      }),
    );
    t.is(swapped.result?.resultType, "input_required");
    t.true(await stillThere(client, `${word}b`, second.memory_id));
  },
);
