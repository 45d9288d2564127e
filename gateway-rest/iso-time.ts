import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";

/** ISO 8601 (UTC, milliseconds) of a proto timestamp; null when core left it unset. */
export function isoTime(timestamp: Timestamp | undefined): string | null {
  return timestamp ? timestampDate(timestamp).toISOString() : null;
}
