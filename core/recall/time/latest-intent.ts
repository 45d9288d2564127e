import { DAY } from "./calendar-spans.js";
import type { QueryTime } from "./parse-query-time.js";

const HOUR = DAY / 24;

/**
 * Words that ask for the latest word on something without naming a time (ADR 0740): "Was ist der
 * aktuelle Stand zum Release?", "Was wurde zuletzt zum Budget gesagt?", "What is the latest on the
 * hiring?", "What did we last say about the move?", "Where does Anna work at the moment?", "Gibt es
 * Neuigkeiten zum Umzug?", "Wie ist der Stand beim Budget?", "Any news on the launch?". Written for
 * this project, German and English; a bare "jetzt" / "now" is left out ("Was muss ich jetzt tun?"
 * asks what to do, not for the newest note).
 */
const LATEST =
  /(?<![\p{L}\p{N}])(?:zuletzt|neueste[nrms]?|aktuelle[nrms]?|aktuell|derzeit(?:ige[nrms]?)?|momentan(?:e[nrms]?)?|mittlerweile|inzwischen|neuigkeiten|stand\s+der\s+dinge|(?:wie|was)\s+ist\s+der\s+stand|latest|any\s+news|what(?:'s|\s+is)\s+new\s+(?:with|on|about|regarding)|any\s+updates?|most\s+recent|current(?:ly)?|these\s+days|at\s+the\s+moment|right\s+now|by\s+now|last\s+(?:said|say|says|talked|discussed|decided|mentioned|heard|told|agreed))(?![\p{L}\p{N}])/iu;

/** The latest word of the query (its text and position), or undefined. */
export function findLatestWords(query: string): Pick<QueryTime, "text" | "index" | "length"> | undefined {
  const found = LATEST.exec(query);
  return found === null ? undefined : { text: found[0], index: found.index, length: found[0].length };
}

/** How far back recall also looks among the newest memories for such a question (the time channel's window). */
const LATEST_WINDOW_DAYS = 90;

/**
 * Candidates scoring at least this share of the best one are about the question's subject: the
 * newest of them anchors the interval. (On the time set's latest questions, where a topic's turns
 * score alike: 0.8 put the newest turn first in 0.21 of them, 0.65 in 0.79, 0.5 in 0.92.)
 */
const ON_SUBJECT = 0.5;

export function latestWindow(reference: Date): Pick<QueryTime, "from" | "to"> {
  return {
    from: new Date(reference.getTime() - LATEST_WINDOW_DAYS * DAY),
    to: new Date(reference.getTime() + 1),
  };
}

/**
 * The interval a latest-word question is about: from an hour (the same conversation) before the
 * newest valid time among the candidates on its subject (those scoring at least ON_SUBJECT of the
 * best) up to the reference, so the soft time boost puts the newest of them first and an older one
 * needs a much better match to stay ahead. Undefined without candidates.
 */
export function latestInterval(
  candidates: readonly { readonly score: number; readonly chunk: { readonly validFrom: Date } }[],
  reference: Date,
): Pick<QueryTime, "from" | "to"> | undefined {
  const best = candidates.reduce((max, c) => Math.max(max, c.score), 0);
  if (best <= 0) return undefined;
  let newest = Number.NEGATIVE_INFINITY;
  for (const c of candidates)
    if (c.score >= ON_SUBJECT * best) newest = Math.max(newest, c.chunk.validFrom.getTime());
  return { from: new Date(newest - HOUR), to: new Date(Math.max(newest, reference.getTime()) + 1) };
}
