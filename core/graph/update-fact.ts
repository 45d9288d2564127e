import {
  type NewVersionDeps,
  type NewVersionInput,
  type NewVersionResult,
  requireContent,
  writeNewVersion,
} from "../memories/index.js";
import { replayedUpdate } from "./replayed-update.js";

export type UpdateFactDeps = NewVersionDeps;
export type UpdateFactInput = NewVersionInput;
export type UpdateFactResult = NewVersionResult;

/**
 * service_update_fact (spec "States and transitions", Memory version): the new version is written by
 * core/memories (writeNewVersion: close the target, the new version of its lineage, edges carried over,
 * SUPERSEDES and its inverse, memory.updated), unless this is a keyed re-run after a crash whose first
 * run committed: then that write is the answer.
 */
export async function updateFact(deps: UpdateFactDeps, input: UpdateFactInput): Promise<UpdateFactResult> {
  requireContent(input.newContent);
  const replayed = await replayedUpdate(deps.db, input);
  if (replayed) return replayed;
  return writeNewVersion(deps, input);
}
