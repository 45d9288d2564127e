import test from "ava";
import { findLatestWords, latestInterval } from "../../core/recall/time/latest-intent.js";

const asksForLatest = (query: string) => findLatestWords(query) !== undefined;

// Questions after the latest word on something (ADR 0740): recognised in German and English, and
// the interval runs from the newest candidate on the question's subject to the reference.

test("questions after the latest word, German and English", (t) => {
  for (const query of [
    "Was ist der aktuelle Stand zum Release?",
    "Was wurde zuletzt zum Budget gesagt?",
    "Wo arbeitet Anna derzeit?",
    "Welche Version nutzen wir momentan?",
    "Hat sich mittlerweile etwas beim Umzug getan?",
    "What is the latest on the hiring?",
    "What did we last say about the move?",
    "Where does Anna currently work?",
    "Which laptop does Jonas use these days?",
    "What is the most recent plan for the launch?",
    "Gibt es Neuigkeiten zum Umzug?",
    "Wie ist der Stand beim Budget?",
    "Any news on the launch?",
    "What's new with the hiring?",
    "Are there any updates on the migration?",
  ])
    t.true(asksForLatest(query), query);
  // A bare "jetzt" / "now" asks what to do, a named time is the parser's, "last" before a noun is
  // no latest word, nor is a word that only starts like one.
  for (const query of [
    "Was muss ich jetzt tun?",
    "What should I do now?",
    "What did we decide last week?",
    "The last time we met",
    "Wie hoch ist die Aktualisierungsrate?",
    "Wer hatte einen Stand auf der Messe?",
    "What is new in version 3?",
  ])
    t.false(asksForLatest(query), query);
});

test("the interval starts an hour before the newest candidate on the subject", (t) => {
  const at = (iso: string) => ({ chunk: { validFrom: new Date(iso) } });
  const reference = new Date("2026-12-07T10:00:00Z");
  const interval = latestInterval(
    [
      { score: 1, ...at("2026-11-01T12:00:00Z") },
      { score: 0.6, ...at("2026-12-05T12:00:00Z") },
      // Newer, but not about the subject (under half the best score): it does not anchor.
      { score: 0.3, ...at("2026-12-06T12:00:00Z") },
    ],
    reference,
  );
  t.deepEqual(interval?.from, new Date("2026-12-05T11:00:00Z"));
  t.is(interval?.to.getTime(), reference.getTime() + 1);
  t.is(latestInterval([], reference), undefined);
});
