import test from "ava";
import fc from "fast-check";
import { parseQueryTime } from "../../core/recall/time/parse-query-time.js";
import { fromWallClock, toWallClock } from "../../core/recall/time/zoned-wall-clock.js";

// Time expressions in a configured zone (RECALL_TIME_ZONE, ADR 0620): days, weeks and months begin at
// the zone's midnight, across daylight-saving changes; UTC is what it was.

const BERLIN = "Europe/Berlin";
const at = (iso: string) => new Date(iso);

test("'gestern' half an hour after Berlin's midnight is the Berlin day before, not UTC's", (t) => {
  const ref = at("2026-12-05T23:30:00Z"); // Sunday 6 December, 00:30 in Berlin
  const berlin = parseQueryTime("Was haben wir gestern besprochen?", ref, BERLIN);
  t.deepEqual(berlin?.from, at("2026-12-04T23:00:00Z"));
  t.deepEqual(berlin?.to, at("2026-12-05T23:00:00Z"));
  const utc = parseQueryTime("Was haben wir gestern besprochen?", ref);
  t.deepEqual(utc?.from, at("2026-12-04T00:00:00Z"));
  t.deepEqual(utc?.to, at("2026-12-05T00:00:00Z"));
});

test("a month across the spring change keeps its local midnights; a week begins on the zone's Monday", (t) => {
  const march = parseQueryTime("im März 2026", at("2026-06-01T12:00:00Z"), BERLIN);
  t.deepEqual(march?.from, at("2026-02-28T23:00:00Z")); // CET
  t.deepEqual(march?.to, at("2026-03-31T22:00:00Z")); // CEST since 29 March
  const lastWeek = parseQueryTime("last week", at("2026-12-06T23:30:00Z"), BERLIN); // Monday 00:30 Berlin
  t.deepEqual(lastWeek?.from, at("2026-11-29T23:00:00Z"));
  t.deepEqual(lastWeek?.to, at("2026-12-06T23:00:00Z"));
});

test("a local midnight and back is itself; a skipped local time lands an hour later, a repeated one on its second", (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 3652 }),
      fc.constantFrom(BERLIN, "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"),
      (day, zone) => {
        const midnight = new Date(Date.UTC(2020, 0, 1 + day));
        return toWallClock(fromWallClock(midnight, zone), zone).getTime() === midnight.getTime();
      },
    ),
  );
  // 02:30 on 29 March 2026 does not exist in Berlin; 02:30 on 25 October 2026 happens twice.
  t.deepEqual(fromWallClock(at("2026-03-29T02:30:00Z"), BERLIN), at("2026-03-29T01:30:00Z"));
  t.deepEqual(fromWallClock(at("2026-10-25T02:30:00Z"), BERLIN), at("2026-10-25T01:30:00Z"));
});
