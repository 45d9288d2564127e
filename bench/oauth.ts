import { performance } from "node:perf_hooks";
import { createAuthenticator } from "../core/auth/authenticate.js";
import {
  authorizationParams,
  connectedClient,
  consent,
  memberSession,
  pkce,
  registerClient,
  startOAuthTestBed,
  tokenRequest,
} from "../test/oauth/oauth-kit.js";
import { writeBenchResult } from "./write-result.js";

// `npm run bench:oauth` (issue 24): what OAuth adds to the hot path and how long a connection takes.
// 1. Uncached token lookup (the authenticator with its cache off): a kmt_ API token against an OAuth
//    access token, alternating, median of N each. Both go through the one union query; the cached
//    path (a map lookup) is the same for both and measured by bench:auth.
// 2. The protocol round trips of a connection over HTTP on loopback: register, consent (code), token
//    exchange, and a refresh; median of M each. No browser, no mail.

const N = 400;
const M = 30;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const round = (ms: number) => Math.round(ms * 1000) / 1000;

const bed = await startOAuthTestBed();
try {
  const { cookie, apiToken } = await memberSession(bed);
  const connected = await connectedClient(bed, cookie);
  const authenticator = createAuthenticator({
    db: bed.service.storage.db,
    cacheTtlMs: 0,
    touchIntervalMs: 1e9,
  });
  const api: number[] = [];
  const oauth: number[] = [];
  for (let i = 0; i < N; i++) {
    for (const [token, into] of i % 2 === 0
      ? ([
          [apiToken, api],
          [connected.accessToken, oauth],
        ] as const)
      : ([
          [connected.accessToken, oauth],
          [apiToken, api],
        ] as const)) {
      const start = performance.now();
      await authenticator.resolve({ authorization: `Bearer ${token}` });
      into.push(performance.now() - start);
    }
  }

  const register: number[] = [];
  const authorize: number[] = [];
  const exchange: number[] = [];
  const refresh: number[] = [];
  for (let i = 0; i < M; i++) {
    let t0 = performance.now();
    const client = await registerClient(bed);
    register.push(performance.now() - t0);
    const { verifier, challenge } = pkce();
    t0 = performance.now();
    const { location } = await consent(bed, cookie, authorizationParams(bed, client, challenge));
    authorize.push(performance.now() - t0);
    const code = location?.searchParams.get("code") ?? "";
    t0 = performance.now();
    const res = await tokenRequest(bed, {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      resource: `${bed.url}/api/mcp/v1`,
    });
    const tokens = (await res.json()) as { refresh_token: string };
    exchange.push(performance.now() - t0);
    t0 = performance.now();
    await (
      await tokenRequest(bed, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token,
        client_id: client.clientId,
      })
    ).json();
    refresh.push(performance.now() - t0);
  }
  const result = {
    description:
      "Uncached bearer lookup (authenticator, cache off) of a kmt_ API token vs an OAuth access token, alternating; then HTTP round trips on loopback of registration, consent POST (code), code exchange and refresh. Medians in ms.",
    uncachedLookupMs: { apiToken: round(median(api)), oauthAccessToken: round(median(oauth)), samples: N },
    roundTripMs: {
      register: round(median(register)),
      consent: round(median(authorize)),
      codeExchange: round(median(exchange)),
      refresh: round(median(refresh)),
      samples: M,
    },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  writeBenchResult("oauth", result);
} finally {
  await bed.stop();
}
