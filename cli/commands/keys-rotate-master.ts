import { parseMasterKey } from "../../core/keys/key-cipher.js";
import { rotateMasterKey } from "../../core/keys/rotate-master-key.js";
import type { Database } from "../../core/store/database.js";
import { CliError } from "../cli-error.js";

/**
 * `keys rotate-master`: re-seals every provider key from MASTER_KEY to NEW_MASTER_KEY (both from the
 * environment, never the command line, where `ps` would show them). Afterwards set MASTER_KEY to the
 * new value and restart. Interrupted, it can simply be run again.
 */
export async function keysRotateMaster(
  db: Database,
  env: { masterKey: string | undefined; newMasterKey: string | undefined },
): Promise<string> {
  if (!env.masterKey) throw new CliError("MASTER_KEY (the current master key) must be set", 2);
  if (!env.newMasterKey) throw new CliError("NEW_MASTER_KEY (32 random bytes, base64) must be set", 2);
  let to: ReturnType<typeof parseMasterKey>;
  try {
    to = parseMasterKey(env.newMasterKey);
  } catch {
    throw new CliError("NEW_MASTER_KEY must be 32 bytes, base64 or base64url encoded", 2);
  }
  const from = parseMasterKey(env.masterKey);
  if (from.id === to.id) throw new CliError("NEW_MASTER_KEY equals MASTER_KEY", 2);
  const report = await rotateMasterKey(db.sql, from, to);
  return `re-sealed ${report.rotated} provider key(s) under the new master key (${report.alreadyNew} already were); now set MASTER_KEY to the new key and restart\n`;
}
