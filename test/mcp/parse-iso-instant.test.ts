import test from "ava";
import fc from "fast-check";
import { parseIsoInstant } from "../../gateway-mcp/translate/parse-iso-instant.js";

test("date-times with Z or an offset name that instant", (t) => {
  t.is(parseIsoInstant("2025-03-01T12:00:00Z")?.toISOString(), "2025-03-01T12:00:00.000Z");
  t.is(parseIsoInstant("2025-03-01T12:00:00.5Z")?.toISOString(), "2025-03-01T12:00:00.500Z");
  t.is(parseIsoInstant("2025-03-01T12:00:00.123456789Z")?.toISOString(), "2025-03-01T12:00:00.123Z");
  t.is(parseIsoInstant("2025-03-01T14:00:00+02:00")?.toISOString(), "2025-03-01T12:00:00.000Z");
  t.is(parseIsoInstant("2025-03-01T12:00Z")?.toISOString(), "2025-03-01T12:00:00.000Z");
  t.is(parseIsoInstant("2025-03-01t12:00:00z")?.toISOString(), "2025-03-01T12:00:00.000Z");
});

test("a date alone means midnight UTC", (t) => {
  t.is(parseIsoInstant("2024-02-29")?.toISOString(), "2024-02-29T00:00:00.000Z");
});

test("anything that is not an ISO 8601 instant is refused", (t) => {
  for (const text of [
    "",
    "now",
    "yesterday",
    "2025-03-01T12:00:00", // no zone: not one instant
    "2025-02-30",
    "2023-02-29",
    "2025-13-01T00:00:00Z",
    "2025-03-01T24:00:00Z",
    "2025-03-01T12:60:00Z",
    "2025-03-01T12:00:00+25:00",
    "01.03.2025",
    "2025-W09-6",
    "1740830400",
    " 2025-03-01T12:00:00Z",
  ]) {
    t.is(parseIsoInstant(text), undefined, text);
  }
});

test("every instant's toISOString() parses back to the same instant", (t) => {
  fc.assert(
    fc.property(
      fc.date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59Z"),
        noInvalidDate: true,
      }),
      (date) => parseIsoInstant(date.toISOString())?.getTime() === date.getTime(),
    ),
  );
  t.pass();
});
