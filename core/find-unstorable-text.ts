/**
 * PostgreSQL stores neither NUL (U+0000) in text or jsonb nor text that is not valid Unicode (a
 * lone UTF-16 surrogate would be silently replaced on the way). Such input is refused up front with
 * the field's name (issue 15: it used to reach PostgreSQL and answer 500 / -32603 "unavailable").
 */

export interface UnstorableText {
  /** The proto field path, snake_case: "content", "tags[2]", "metadata.source". */
  readonly field: string;
  readonly problem: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemOf(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL (\\u0000) characters";
  if (LONE_SURROGATE.test(text)) return "must be valid Unicode text (it contains an unpaired surrogate)";
  return undefined;
}

/** protobuf-es names fields in lowerCamelCase; the proto (and the error) in snake_case. */
const protoName = (localName: string) => localName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);

/**
 * The first string in a request (a protobuf-es message, including oneofs and Struct metadata held as
 * plain JSON, and the keys of maps and JSON objects) that PostgreSQL cannot store, or undefined.
 */
export function findUnstorableText(value: unknown, path = ""): UnstorableText | undefined {
  if (typeof value === "string") {
    const problem = problemOf(value);
    return problem ? { field: path, problem } : undefined;
  }
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnstorableText(item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  const isMessage = typeof record.$typeName === "string";
  // A oneof: { case: "fieldName", value }.
  if (
    !isMessage &&
    typeof record.case === "string" &&
    "value" in record &&
    Object.keys(record).length === 2
  ) {
    return findUnstorableText(record.value, join(path, protoName(record.case)));
  }
  for (const [key, item] of Object.entries(record)) {
    if (key === "$typeName" || key === "$unknown") continue;
    const name = isMessage ? protoName(key) : key;
    const keyProblem = isMessage ? undefined : problemOf(key);
    if (keyProblem) return { field: path, problem: `keys ${keyProblem}` };
    const found = findUnstorableText(item, join(path, name));
    if (found) return found;
  }
  return undefined;
}
