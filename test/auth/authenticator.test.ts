import test from "ava";
import { type Authenticator, createAuthenticator } from "../../core/auth/authenticate.js";
import { generateSecret, hashSecret, sameHash } from "../../core/auth/token-format.js";
import type { Database } from "../../core/store/database.js";
import { issueApiToken } from "../../core/tenancy/api-tokens.js";
import { createTenant } from "../../core/tenancy/tenants.js";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.js";
import { waitFor } from "../helpers/test-service.js";

// The authenticator against a real database: its 1 s token cache, revocation (in this process at
// once, in others within the cache lifetime), lastUsedAt throttling, and uncached sessions.

let database: TestDatabase;
let counter = 0;

test.before(async () => {
  database = await createTestDatabase();
});

test.after.always(async () => {
  await database?.drop();
});

async function tenantWithToken(): Promise<{ tenantId: string; tokenId: string; token: string }> {
  counter++;
  const tenant = await createTenant(database.db.sql, {
    slug: `auth-${process.pid}-${counter}`,
    name: "Auth",
    plan: "api",
  });
  const issued = await issueApiToken(database.db.sql, { tenantId: tenant.id, name: "t", scopes: ["read"] });
  return { tenantId: tenant.id, tokenId: issued.id, token: issued.token };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function revokeInDb(tokenId: string) {
  return database.db.sql`update api_tokens set revoked_at = now() where id = ${tokenId}`;
}

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test("another process serves a revoked token from its cache for at most the 1 s lifetime", async (t) => {
  const { tokenId, token } = await tenantWithToken();
  const clock = manualClock();
  const other: Authenticator = createAuthenticator({ db: database.db, now: clock.now });
  t.is((await other.resolve(bearer(token))).kind, "token");
  await revokeInDb(tokenId);
  clock.advance(999);
  t.is((await other.resolve(bearer(token))).kind, "token", "cached: revocation not seen yet");
  clock.advance(2);
  await t.throwsAsync(other.resolve(bearer(token)), { message: /invalid or revoked/ });
});

test("the revoking process refuses the token at once (forgetToken)", async (t) => {
  const { tokenId, token } = await tenantWithToken();
  const auth = createAuthenticator({ db: database.db });
  await auth.resolve(bearer(token));
  await revokeInDb(tokenId);
  auth.forgetToken(tokenId);
  await t.throwsAsync(auth.resolve(bearer(token)), { message: /invalid or revoked/ });
});

test("a lookup in flight while the revoke commits is not cached", async (t) => {
  const { tokenId, token } = await tenantWithToken();
  // Lets the token query run now but hands its result over only when the gate opens: the lookup
  // saw the token active, and finishes after the revoke committed and forgetToken ran.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = false;
  const slowSql = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    const query = (
      database.db.sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => Promise<unknown>
    )(strings, ...values);
    if (!held && strings.join("?").includes("from api_tokens t join tenants")) {
      held = true;
      const result = Promise.resolve(query);
      return gate.then(() => result);
    }
    return query;
  }) as unknown as Database["sql"];
  const auth = createAuthenticator({ db: { ...database.db, sql: slowSql } });
  const inFlight = auth.resolve(bearer(token));
  await waitFor(() => (held ? true : undefined), { what: "the lookup to start" });
  await revokeInDb(tokenId);
  auth.forgetToken(tokenId);
  open();
  await t.throwsAsync(inFlight, { message: /invalid or revoked/ });
  await t.throwsAsync(auth.resolve(bearer(token)), { message: /invalid or revoked/ });
});

test("lastUsedAt: written on first use, then at most once per minute (per process and in SQL)", async (t) => {
  const { tokenId, token } = await tenantWithToken();
  const clock = manualClock();
  const auth = createAuthenticator({ db: database.db, now: clock.now, cacheTtlMs: 0 });
  const lastUsed = async () =>
    (
      await database.db.sql<
        { at: Date | null }[]
      >`select last_used_at as at from api_tokens where id = ${tokenId}`
    )[0]?.at ?? null;
  await auth.resolve(bearer(token));
  const first = await waitFor(async () => (await lastUsed()) ?? undefined, { what: "the first write" });

  // Within the minute: no write, however often the token is used.
  await database.db
    .sql`update api_tokens set last_used_at = now() - interval '2 minutes' where id = ${tokenId}`;
  const backdated = await lastUsed();
  clock.advance(30_000);
  for (let i = 0; i < 5; i++) await auth.resolve(bearer(token));
  await database.db.sql`select 1`;
  t.deepEqual(await lastUsed(), backdated, "the process throttle held the write back");
  t.notDeepEqual(backdated, first);

  // Past the minute: written again.
  clock.advance(31_000);
  await auth.resolve(bearer(token));
  const second = await waitFor(
    async () => {
      const at = await lastUsed();
      return at && backdated && at > backdated ? at : undefined;
    },
    { what: "the second write" },
  );
  t.true(second > (backdated ?? new Date(0)));

  // Another process whose own throttle allows a write is still held back by the SQL guard.
  const otherProcess = createAuthenticator({ db: database.db });
  await otherProcess.resolve(bearer(token));
  await database.db.sql`select 1`;
  t.deepEqual(await lastUsed(), second);
});

test("sessions are looked up on every request: a revoked session is refused at once", async (t) => {
  const [user] = await database.db.sql<{ id: string }[]>`
    insert into users (email) values (${`s-${process.pid}@example.test`}) returning id`;
  const sessionToken = generateSecret();
  const [session] = await database.db.sql<{ id: string }[]>`
    insert into sessions (user_id, token_hash, expires_at)
    values (${user?.id ?? ""}, ${hashSecret(sessionToken)}, now() + interval '1 day') returning id`;
  const auth = createAuthenticator({ db: database.db });
  t.is((await auth.resolve({ sessionToken })).kind, "session");
  await database.db.sql`update sessions set revoked_at = now() where id = ${session?.id ?? ""}`;
  await t.throwsAsync(auth.resolve({ sessionToken }), { message: /expired or signed out/ });
});

test("expired sessions are refused", async (t) => {
  const [user] = await database.db.sql<{ id: string }[]>`
    insert into users (email) values (${`e-${process.pid}@example.test`}) returning id`;
  const sessionToken = generateSecret();
  await database.db.sql`
    insert into sessions (user_id, token_hash, expires_at)
    values (${user?.id ?? ""}, ${hashSecret(sessionToken)}, now() - interval '1 second')`;
  await t.throwsAsync(createAuthenticator({ db: database.db }).resolve({ sessionToken }), {
    message: /expired or signed out/,
  });
});

test("hash comparison is constant-time and length-safe", (t) => {
  const a = hashSecret("kmt_a");
  t.true(sameHash(a, hashSecret("kmt_a")));
  t.false(sameHash(a, hashSecret("kmt_b")));
  t.false(sameHash(a, a.subarray(0, 31)), "different lengths compare false instead of throwing");
  t.false(sameHash(a, Buffer.alloc(0)));
});

test("concurrent requests with a token not in the cache share one lookup", async (t) => {
  const { token } = await tenantWithToken();
  let queries = 0;
  const countingSql = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    if (strings.join("?").includes("from api_tokens t join tenants")) queries++;
    return (database.db.sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => Promise<unknown>)(
      strings,
      ...values,
    );
  }) as unknown as Database["sql"];
  const auth = createAuthenticator({ db: { ...database.db, sql: countingSql } });
  // Fifty connections whose cached entry ran out at the same moment.
  const principals = await Promise.all(Array.from({ length: 50 }, () => auth.resolve(bearer(token))));
  t.true(principals.every((p) => p.kind === "token"));
  t.is(queries, 1);
  // An unknown token: every waiter gets the refusal, and the next request asks again.
  const unknown = `${token.slice(0, -4)}zzzz`;
  const refused = await Promise.allSettled(Array.from({ length: 5 }, () => auth.resolve(bearer(unknown))));
  t.true(refused.every((r) => r.status === "rejected"));
  await t.throwsAsync(auth.resolve(bearer(unknown)), { message: /invalid|malformed/ });
  t.is(queries, 3);
});
