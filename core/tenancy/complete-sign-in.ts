import { generateSecret, hashSecret, sameHash } from "../auth/token-format.js";
import { unauthenticated } from "../errors.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";

/** How long a browser session lasts before the user signs in again. */
export const SESSION_TTL_DAYS = 30;

/** Where a user without a workspace goes first (spec: "the first login leads to onboarding"). */
export const ONBOARDING_PATH = "/onboarding";
export const DASHBOARD_PATH = "/dashboard";

const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface CompletedSignIn {
  readonly sessionId: string;
  /** Clear text for the cookie; only its SHA-256 is stored. */
  readonly sessionToken: string;
  readonly expiresAt: Date;
  readonly userId: string;
  readonly email: string;
  readonly tenantId: string | undefined;
  readonly needsOnboarding: boolean;
  readonly redirectPath: string;
}

/**
 * Exchanges a magic-link token for a session in one transaction: the link is marked used by a
 * conditional update, so of two concurrent uses (a replay) exactly one wins. Unknown, expired and
 * used links get the same answer, which reveals nothing about which it was.
 */
export async function completeSignIn(
  deps: { db: Database },
  input: { token: string; ip: string | undefined },
): Promise<CompletedSignIn> {
  const invalid = () =>
    unauthenticated("this sign-in link is invalid, expired or already used; request a new one");
  if (!LINK_TOKEN_PATTERN.test(input.token)) throw invalid();
  const hash = hashSecret(input.token);
  const sessionToken = generateSecret();
  return (await deps.db.sql.begin(async (tx) => {
    const [link] = await tx<{ email: string; callback_path: string | null; token_hash: Buffer }[]>`
      update magic_links set used_at = now()
      where token_hash = ${hash} and used_at is null and expires_at > now()
      returning email, callback_path, token_hash`;
    if (!link || !sameHash(link.token_hash, hash)) throw invalid();
    const [user] = await tx<{ id: string; email: string }[]>`
      insert into users (email, last_sign_in_at) values (${link.email}, now())
      on conflict ((lower(email))) do update set last_sign_in_at = excluded.last_sign_in_at
      returning id, email`;
    if (!user) throw new Error("user upsert returned no row");
    const [session] = await tx<{ id: string; expires_at: Date }[]>`
      insert into sessions (user_id, token_hash, expires_at)
      values (${user.id}, ${hashSecret(sessionToken)}, now() + make_interval(days => ${SESSION_TTL_DAYS}))
      returning id, expires_at`;
    if (!session) throw new Error("session insert returned no row");
    const [membership] = await tx<{ tenant_id: string }[]>`
      select tenant_id from memberships where user_id = ${user.id} order by created_at limit 1`;
    await recordAudit(tx, {
      tenantId: membership?.tenant_id,
      actorUserId: user.id,
      action: "auth.sign_in",
      target: session.id,
      ip: input.ip,
      details: { method: "email" },
    });
    const needsOnboarding = membership === undefined;
    return {
      sessionId: session.id,
      sessionToken,
      expiresAt: session.expires_at,
      userId: user.id,
      email: user.email,
      tenantId: membership?.tenant_id,
      needsOnboarding,
      redirectPath: needsOnboarding ? ONBOARDING_PATH : (link.callback_path ?? DASHBOARD_PATH),
    };
  })) as CompletedSignIn;
}
