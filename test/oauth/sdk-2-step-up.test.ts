import {
  Client,
  type OAuthDiscoveryState,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import test from "ava";
import {
  consent,
  InMemoryOAuthProvider,
  memberSession,
  type OAuthTestBed,
  startOAuthTestBed,
} from "./oauth-kit.js";

// Incremental scope consent (MCP 2025-11-25 "Scope Challenge Handling", issue 47 item 3; ADR 0401)
// with the official SDK's 2.x client on 2026-07-28: connected read-only, it calls a tool that needs
// `write`; the server answers 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
// scope="read write"`, the SDK starts a step-up authorization for exactly those scopes, the user
// consents, and the same call then succeeds. (The raw 403 for the 1.x era is in
// oauth-endpoints.test.ts; the 1.x SDK refreshes its token instead of re-authorizing, which cannot
// widen a grant, so it gives up after one retry.)

let bed: OAuthTestBed;
let cookie: string;

test.before(async () => {
  bed = await startOAuthTestBed();
  ({ cookie } = await memberSession(bed));
});

test.after.always(async () => {
  await bed?.stop();
});

/** The test provider plus what a 2.x host also keeps: the discovery state of the flow under way. */
class Sdk2OAuthProvider extends InMemoryOAuthProvider {
  private discovery: OAuthDiscoveryState | undefined;
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/**
 * The consent the user gives on the authorization page the SDK asked to open; returns the callback's
 * parameters, which the 2.x SDK checks (`iss`, RFC 9207) before it redeems the code.
 */
async function userConsents(url: URL | undefined, scopes: string[]): Promise<URLSearchParams> {
  if (!url) throw new Error("the SDK did not ask for authorization");
  const { location } = await consent(bed, cookie, url.searchParams, scopes);
  if (!location?.searchParams.get("code")) throw new Error(`no code: ${location?.href}`);
  return location.searchParams;
}

test("2.x client on 2026-07-28: a read-only connection that writes gets the insufficient_scope challenge, steps up with the named scope and the call succeeds", async (t) => {
  const mcpUrl = new URL(`${bed.url}/api/mcp/v1`);
  const provider = new Sdk2OAuthProvider("http://127.0.0.1:9/oauth/callback");
  const refusals: { status: number; challenge: string | null; body: string }[] = [];
  const newTransport = () =>
    new StreamableHTTPClientTransport(mcpUrl, {
      authProvider: provider,
      // Only watches the answers of the endpoint; the SDK does everything else itself.
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (String(input) === mcpUrl.href && response.status === 403) {
          refusals.push({
            status: response.status,
            challenge: response.headers.get("www-authenticate"),
            body: await response.clone().text(),
          });
        }
        return response;
      },
    });
  const newClient = () =>
    new Client({ name: "step-up", version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });

  // 1. First connection: the user grants read only.
  await t.throwsAsync(newClient().connect(newTransport()), { instanceOf: UnauthorizedError });
  const transport = newTransport();
  await transport.finishAuth(await userConsents(provider.authorizationUrl, ["read"]));
  t.is((await provider.tokens())?.scope, "read");
  const client = newClient();
  t.teardown(() => client.close());
  await client.connect(transport);
  t.is(client.getNegotiatedProtocolVersion(), "2026-07-28");
  const listed = await client.callTool({ name: "service_list_recent", arguments: {} });
  t.falsy(listed.isError);

  // 2. A write: 403 with the challenge naming what to ask for; the SDK re-authorizes with it.
  provider.authorizationUrl = undefined;
  const write = {
    name: "service_store_memory",
    arguments: { title: "Step-up", content: "Stored after the user widened the connection to write." },
  };
  await t.throwsAsync(client.callTool(write), { instanceOf: UnauthorizedError });
  t.is(refusals.length, 1);
  t.is(refusals[0]?.status, 403);
  t.regex(refusals[0]?.challenge ?? "", /^Bearer /);
  t.regex(refusals[0]?.challenge ?? "", /error="insufficient_scope"/);
  t.regex(refusals[0]?.challenge ?? "", / scope="read write"/);
  t.regex(
    refusals[0]?.challenge ?? "",
    new RegExp(`resource_metadata="${bed.url}/\\.well-known/oauth-protected-resource/api/mcp/v1"`),
  );
  // The body is the 2026-07-28 framing of the scope error (-32002 moved to -31002 there).
  t.like(JSON.parse(refusals[0]?.body ?? "{}"), {
    error: { code: -31002, data: { required_scope: "write", scope: "read write" } },
  });
  const stepUp = provider.authorizationUrl as URL | undefined;
  t.truthy(stepUp, "the SDK asked the user to authorize again");
  t.is(stepUp?.searchParams.get("scope"), "read write");

  // 3. The user allows both; the same call goes through with the new token.
  await transport.finishAuth(await userConsents(stepUp, ["read", "write"]));
  t.is((await provider.tokens())?.scope, "read write");
  const stored = await client.callTool(write);
  t.falsy(stored.isError, JSON.stringify(stored.content));
  t.is(refusals.length, 1);
});
