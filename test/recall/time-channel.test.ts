import test from "ava";
import { parseQueryTime } from "../../core/recall/time/parse-query-time.js";
import { mergeVectorHits, searchTimeWindow } from "../../core/recall/time/search-time-window.js";
import { applyTimeOnly } from "../../core/recall/time/time-boost.js";
import { isTimeOnlyQuestion } from "../../core/recall/time/time-only-question.js";

const hit = (chunkId: string, distance: number) => ({ chunkId, memoryId: `m-${chunkId}`, distance });

test("the window's hits join the channel's nearest first, each chunk once, the channel's first at a tie", (t) => {
  const channel = [hit("a", 0.1), hit("b", 0.3), hit("c", 0.5)];
  const window = [hit("b", 0.3), hit("w1", 0.2), hit("w2", 0.5), hit("w3", 0.9)];
  t.deepEqual(
    mergeVectorHits(channel, window).map((h) => h.chunkId),
    ["a", "w1", "b", "c", "w2", "w3"],
  );
  t.deepEqual(mergeVectorHits(channel, []), channel);
});

test("the window search asks for the interval's valid times, at the channel's depth", async (t) => {
  const asked: [number, string][] = [];
  const search = async (k: number, where: string) => {
    asked.push([k, where]);
    return [];
  };
  const from = new Date("2026-12-04T00:00:00Z");
  const to = new Date("2026-12-05T00:00:00Z");
  const unexpected = () => t.fail("no failure expected");
  await searchTimeWindow(search, { from, to }, 50, unexpected);
  t.deepEqual(asked, [[50, `valid_from >= ${from.getTime()} AND valid_from < ${to.getTime()}`]]);
  await searchTimeWindow(search, { from: to, to: from }, 50, unexpected);
  t.is(asked.length, 1, "an empty interval searches nothing");
});

test("a failed window search finds nothing and is reported once: the channel's own hits stand", async (t) => {
  const reported: unknown[] = [];
  const found = await searchTimeWindow(
    async () => {
      throw new Error("table busy");
    },
    { from: new Date("2026-12-04T00:00:00Z"), to: new Date("2026-12-05T00:00:00Z") },
    50,
    (error) => reported.push(error),
  );
  t.deepEqual(found, []);
  t.is(reported.length, 1);
  t.regex(String(reported[0]), /table busy/);
});

test("a question naming only a time is time-only; one naming a topic or a person is not", (t) => {
  const ref = new Date("2026-12-05T10:00:00Z");
  const only = (query: string) => {
    const time = parseQueryTime(query, ref);
    if (time === undefined) throw new Error(`no time in ${query}`);
    return isTimeOnlyQuestion(query, time);
  };
  for (const query of [
    "What did we talk about yesterday?",
    "Was haben wir gestern besprochen?",
    "What happened last week?",
    "Was war letzte Woche los?",
    "what did we decide on Monday",
    "Worüber haben wir vor drei Tagen gesprochen?",
  ]) {
    t.true(only(query), query);
  }
  for (const query of [
    "What did Anna say yesterday?",
    "What did we decide on the budget last week?",
    "Was hat Jonas gestern zum Release gesagt?",
    "Who won the final in 2015?",
  ]) {
    t.false(only(query), query);
  }
});

test("a time-only question puts the interval first, the fused score ordering each side", (t) => {
  const at = (iso: string) => ({ validFrom: new Date(iso) });
  const yesterday = { from: new Date("2026-12-04T00:00:00Z"), to: new Date("2026-12-05T00:00:00Z") };
  const ordered = applyTimeOnly(
    [
      { id: "older, strong", score: 0.9, chunk: at("2026-10-01T12:00:00Z") },
      { id: "a day off", score: 0.6, chunk: at("2026-12-03T12:00:00Z") },
      { id: "inside, weak", score: 0, chunk: at("2026-12-04T10:00:00Z") },
      { id: "inside, better", score: 0.2, chunk: at("2026-12-04T11:00:00Z") },
    ],
    yesterday,
  );
  t.deepEqual(
    ordered.map((c) => c.id),
    ["inside, better", "inside, weak", "a day off", "older, strong"],
  );
  // Nothing inside: the nearest in time first.
  const lastYear = { from: new Date("2025-01-01T00:00:00Z"), to: new Date("2026-01-01T00:00:00Z") };
  t.is(
    applyTimeOnly(
      [
        { id: "recent", score: 0.9, chunk: at("2026-11-01T00:00:00Z") },
        { id: "january", score: 0.1, chunk: at("2026-01-10T00:00:00Z") },
      ],
      lastYear,
    )[0]?.id,
    "january",
  );
});
