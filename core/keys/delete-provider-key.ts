import { Code } from "@connectrpc/connect";
import { ErrorReason } from "../../gen/memory/v1/errors_pb.js";
import type { TenantCaller } from "../auth/caller.js";
import { coreError, notFound } from "../errors.js";
import type { Database } from "../store/database.js";
import { recordAudit } from "../store/record-audit.js";
import { readModelSelection } from "./tenant-models.js";

/**
 * DELETE /api/keys/{id}: removes the sealed key for good. A key the workspace embeds or reranks
 * with (or whose space recall still searches) is refused with 409: choose another first.
 */
export async function deleteProviderKey(
  deps: { db: Database },
  caller: TenantCaller,
  input: { id: string; ip: string | undefined },
): Promise<void> {
  await deps.db.withTenant(caller.tenantId, async (tx) => {
    const selection = await readModelSelection(tx, caller.tenantId);
    const uses = [selection?.embeddingKeyId, selection?.rerankKeyId, selection?.activeKeyId];
    if (uses.includes(input.id)) {
      throw coreError(
        Code.FailedPrecondition,
        ErrorReason.CONFLICT,
        "this key is in use for embeddings or reranking; choose another (PUT /api/keys/selection) first",
      );
    }
    const deleted = await tx<{ provider: string }[]>`
      delete from provider_keys where tenant_id = ${caller.tenantId} and id = ${input.id} returning provider`;
    if (deleted.length === 0) throw notFound("provider key");
    await recordAudit(tx, {
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      actorTokenId: caller.tokenId,
      action: "provider_key.deleted",
      target: input.id,
      ip: input.ip,
      details: { provider: deleted[0]?.provider ?? "" },
    });
  });
}
