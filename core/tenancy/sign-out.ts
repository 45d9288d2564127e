import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";

/** Revokes the calling session; its cookie is worthless from the next request on (no cache). */
export async function signOut(
  deps: { db: Database },
  input: { sessionId: string; userId: string; tenantId: string | undefined; ip: string | undefined },
): Promise<void> {
  await deps.db.sql.begin(async (tx) => {
    const revoked = await tx`
      update sessions set revoked_at = now() where id = ${input.sessionId} and revoked_at is null
      returning id`;
    if (revoked.length === 0) return;
    await recordAudit(tx, {
      tenantId: input.tenantId,
      actorUserId: input.userId,
      action: "auth.sign_out",
      target: input.sessionId,
      ip: input.ip,
    });
  });
}
