import { generateSecret, hashSecret } from "../auth/token-format.js";
import { invalidArgument } from "../errors.js";
import type { Database } from "../store/database.js";
import type { MagicLinkMailer } from "./magic-link-mailer.js";

/** Spec "Authentication": a magic link is valid 24 hours (and single use). */
export const MAGIC_LINK_TTL_HOURS = 24;

/** Path of the edge route that consumes a link (gateway-rest/routes/auth.ts). */
export const SIGN_IN_CALLBACK_PATH = "/api/auth/callback/email";

export interface StartSignInInput {
  readonly email: string;
  /** The base URL the gateway believes it is served at; must be this service's PUBLIC_URL. */
  readonly baseUrl: string;
  readonly callbackPath: string | undefined;
}

/**
 * Stores a single-use link (only its SHA-256) and mails it. Answers the same whether or not the
 * address belongs to a user: the first completed sign-in creates the user.
 *
 * The link always points at the configured PUBLIC_URL. StartSignIn is public, so a base URL taken
 * from the request would let anyone send a genuine token to a victim inside a link to their own
 * host; a base URL other than ours is refused instead.
 */
export async function startSignIn(
  deps: { db: Database; mailer: MagicLinkMailer; publicUrl: string },
  input: StartSignInInput,
): Promise<void> {
  if (originOf(input.baseUrl) !== originOf(deps.publicUrl)) {
    throw invalidArgument("base_url", "base_url: must be this service's public URL (PUBLIC_URL)");
  }
  // The proto pattern (^/[^/]) keeps the path on this host; browsers also read "/\evil.example"
  // as "//evil.example", so backslashes and control characters are refused too.
  if (input.callbackPath !== undefined && !isPlainPath(input.callbackPath)) {
    throw invalidArgument("callback_path", "callback_path: must be a plain path on this host");
  }
  const email = input.email.trim();
  const token = generateSecret();
  await deps.db.sql`
    insert into magic_links (email, token_hash, callback_path, expires_at)
    values (${email}, ${hashSecret(token)}, ${input.callbackPath ?? null},
            now() + make_interval(hours => ${MAGIC_LINK_TTL_HOURS}))`;
  const link = `${deps.publicUrl}${SIGN_IN_CALLBACK_PATH}?token=${token}`;
  await deps.mailer.send(email, link);
}

function isPlainPath(path: string): boolean {
  for (const char of path) {
    const code = char.charCodeAt(0);
    if (char === "\\" || code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
