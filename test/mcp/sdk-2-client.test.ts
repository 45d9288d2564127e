import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import test from "ava";
import { TOOLS } from "../../gateway-mcp/tools/tool-list.js";
import { startTestService, type TestService, type TestTenant } from "../helpers/test-service.js";
import { UNTHROTTLED } from "./post-mcp.js";
import { switchableModels } from "./switchable-embedder.js";

// The MCP SDK's 2.x client (@modelcontextprotocol/client, the current line) negotiating with the
// dual-era endpoint: with its default, legacy negotiation it offers 2025-11-25 over initialize and
// gets it; with `auto` it probes with server/discover and then speaks 2026-07-28 statelessly. The
// whole tool suite runs with it in sdk-client.test.ts ("2026-07-28" mode).

let service: TestService;
let tenant: TestTenant;
const clients: Client[] = [];

test.before(async () => {
  service = await startTestService({ models: switchableModels() });
  tenant = await service.createTenant({ scopes: ["read", "write"], limitsOverride: UNTHROTTLED });
});

test.after.always(async () => {
  for (const client of clients) await client.close();
  await service?.stop();
});

async function connect(
  mode: "legacy" | "auto",
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${service.httpUrl}/api/mcp/v1`), {
    requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
  });
  const client = new Client(
    { name: "memory-service-tests", version: "2.0.0" },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const EXPECTED = { legacy: "2025-11-25", auto: "2026-07-28" } as const;

for (const mode of ["legacy", "auto"] as const) {
  test(`2.x client (${mode} negotiation) settles on ${EXPECTED[mode]}, lists every tool in the server's order and stores what it recalls`, async (t) => {
    const { client, transport } = await connect(mode);
    t.is(transport.protocolVersion, EXPECTED[mode]);
    t.is(client.getNegotiatedProtocolVersion(), EXPECTED[mode]);
    t.like(client.getServerVersion(), { name: "memory-service" });
    const { tools } = await client.listTools();
    t.deepEqual(
      tools.map((tool) => tool.name),
      TOOLS.map((tool) => tool.name),
    );

    const word = `zq${mode}${Math.random().toString(36).slice(2, 8)}`;
    const stored = await client.callTool({
      name: "service_store_memory",
      arguments: {
        title: `Standup ${word}`,
        content: `The ${word} team meets at 9:30.`,
        memory_type: "semantic",
      },
    });
    t.falsy(stored.isError);
    const recalled = await client.callTool({ name: "service_recall", arguments: { query: word, k: 3 } });
    t.falsy(recalled.isError);
    const hits = (recalled.structuredContent as { hits?: { title?: string }[] } | undefined)?.hits ?? [];
    t.true(
      hits.some((hit) => hit.title === `Standup ${word}`),
      JSON.stringify(recalled.structuredContent),
    );
  });
}
