import { createHash } from "node:crypto";

/**
 * The id an imported row gets in the target workspace: derived from the target's tenant id and the
 * row's id in the bundle (SHA-256, laid out as an RFC 9562 version-8 uuid). Deterministic, so the
 * importer keeps no id map in memory however large the bundle (an edge's ends and a version's lineage
 * map the same way wherever they appear), and distinct per target, so the same bundle can be
 * imported into several workspaces of one instance.
 */
export function importedId(targetTenantId: string, bundleId: string): string {
  const hash = createHash("sha256")
    .update(`memory-service-import\0${targetTenantId}\0${bundleId.toLowerCase()}`)
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x80;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
