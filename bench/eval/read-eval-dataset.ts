import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** One eval set in the shared format (shared/eval/README.md). */
export interface EvalDocument {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly group: string;
  /** Valid time of the memory (corpus field `valid_from`, ISO 8601); unset: the time of ingest. */
  readonly validFrom?: Date;
  /** Conversational sets: who said it and the session it belongs to (`--via conversations`). */
  readonly speaker?: string;
  readonly session?: string;
}

export interface EvalQuery {
  readonly id: string;
  readonly text: string;
  readonly relevant: ReadonlySet<string>;
  readonly group: string;
  /** Query language where the set states it ("" otherwise): a sampling stratum. */
  readonly lang: string;
  /** Optional question category (e.g. a conversational set's question type), for `--category`. */
  readonly category: string;
}

export interface EvalDataset {
  readonly name: string;
  readonly documents: readonly EvalDocument[];
  readonly queries: readonly EvalQuery[];
  /** Whether titles may be indexed (meta.json); XQuAD's English slugs give the answers away. */
  readonly titlesFair: boolean;
}

const asString = (value: unknown): string => (typeof value === "string" ? value : "");

async function readJsonLines(path: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path, "utf8"))
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function readEvalDataset(directory: string): Promise<EvalDataset> {
  const meta = JSON.parse(await readFile(join(directory, "meta.json"), "utf8")) as Record<string, unknown>;
  const notes = `${asString(meta.notes)} ${asString(meta.task)}`.toLowerCase();
  const documents = (await readJsonLines(join(directory, "corpus.jsonl"))).map((row) => ({
    id: asString(row.id),
    title: asString(row.title),
    text: asString(row.text),
    group: asString(row.group),
    ...(typeof row.valid_from === "string" ? { validFrom: new Date(row.valid_from) } : {}),
    ...(typeof row.speaker === "string" ? { speaker: row.speaker } : {}),
    ...(typeof (row.session ?? row.session_id) === "string"
      ? { session: String(row.session ?? row.session_id) }
      : {}),
  }));
  const queries = (await readJsonLines(join(directory, "queries.jsonl"))).map((row) => ({
    id: asString(row.id),
    text: asString(row.text),
    relevant: new Set(Array.isArray(row.relevant_ids) ? row.relevant_ids.map(asString) : []),
    group: asString(row.group),
    lang: asString(row.lang),
    category: asString(row.category ?? row.question_type ?? row.type),
  }));
  return {
    name: directory.replace(/\/+$/, "").split("/").at(-1) ?? directory,
    documents,
    queries,
    // The README: index titles only where meta.json says it is fair; XQuAD's notes say "index text only".
    titlesFair: !notes.includes("text only") && documents.some((d) => d.title.length > 0),
  };
}
