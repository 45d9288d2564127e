import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";

/** A proto Timestamp as ISO 8601 UTC with milliseconds; null when unset (spec: valid_to may be unset). */
export function isoFromTimestamp(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : timestampDate(timestamp).toISOString();
}
