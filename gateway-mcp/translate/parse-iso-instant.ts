// RFC 3339's profile of ISO 8601: a calendar date, optionally a time with seconds, fraction and an
// offset (Z or ±hh:mm). A date alone means midnight UTC. Anything else (week dates, ordinal dates,
// local times without offset, "yesterday") is refused: an instant needs a zone to be one instant.
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:\d{2}))?$/;

/** The instant an ISO 8601 string names, or undefined when it is not one (spec: as_of → -32602). */
export function parseIsoInstant(text: string): Date | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = "00", minute = "00", second = "00", , offset = "Z"] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  // Date.UTC rolls 2025-02-30 over to March; a calendar check keeps such dates invalid.
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return undefined;
  if (offset !== "Z" && offset !== "z") {
    const [oh, om] = offset.slice(1).split(":").map(Number);
    if (oh === undefined || om === undefined || oh > 23 || om > 59) return undefined;
  }
  const fraction = match[7] ?? "";
  const milliseconds = fraction === "" ? "" : `.${fraction.padEnd(3, "0").slice(0, 3)}`;
  const normalized = `${year}-${month}-${day}T${hour}:${minute}:${second}${milliseconds}${offset.toUpperCase()}`;
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
