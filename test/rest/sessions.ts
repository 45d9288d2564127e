import { randomUUID } from "node:crypto";
import { generateSecret, hashSecret } from "../../core/auth/token-format.js";
import type { TestService } from "../helpers/test-service.js";

/**
 * A signed-in dashboard session for a workspace member, written straight into the tables the
 * authenticator reads (users, memberships, sessions), so REST tests of session routes do not depend
 * on the magic-link flow. Returns the Cookie header a browser would send.
 */
export async function createSessionCookie(
  service: TestService,
  tenantId: string | undefined,
): Promise<string> {
  const sql = service.storage.db.sql;
  const token = generateSecret();
  const [user] = await sql<{ id: string }[]>`
    insert into users (email) values (${`rest-${randomUUID()}@example.test`}) returning id`;
  if (!user) throw new Error("user not created");
  if (tenantId !== undefined) {
    await sql`insert into memberships (tenant_id, user_id, role) values (${tenantId}, ${user.id}, 'owner')`;
  }
  await sql`
    insert into sessions (user_id, token_hash, expires_at)
    values (${user.id}, ${hashSecret(token)}, now() + interval '1 day')`;
  return `service.session-token=${token}`;
}
