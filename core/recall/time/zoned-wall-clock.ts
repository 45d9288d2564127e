/**
 * Calendar arithmetic in a time zone (ADR 0620): query-time parsing works on "wall-clock" instants —
 * Dates whose UTC fields read as the zone's local date and time — so days, ISO weeks and months begin
 * at the zone's midnight, and the interval's bounds are turned back into real instants at the end
 * (each with the offset valid then: an interval across a daylight-saving change keeps its local
 * midnights). "UTC" is the identity.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The zone's offset from UTC at instant `ms`, in ms (Berlin in winter: +3,600,000). */
function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  const parts: Record<string, number> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(whole))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return local - whole;
}

/** The instant as the zone's wall clock reads it (UTC fields = local date and time). */
export function toWallClock(instant: Date, timeZone: string): Date {
  if (timeZone === "UTC") return instant;
  return new Date(instant.getTime() + offsetAt(instant.getTime(), timeZone));
}

/**
 * The real instant at which the zone's wall clock reads `wall`. A local time that a change skips
 * (02:30 on a spring-forward night) lands an hour later; one that repeats (autumn) is its second
 * occurrence. Interval bounds are local midnights, which the changes leave alone in almost every zone.
 */
export function fromWallClock(wall: Date, timeZone: string): Date {
  if (timeZone === "UTC") return wall;
  const w = wall.getTime();
  if (!Number.isFinite(w)) return wall;
  const guess = w - offsetAt(w, timeZone);
  return new Date(w - offsetAt(guess, timeZone));
}
