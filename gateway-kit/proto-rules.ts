import { type DescField, getOption } from "@bufbuild/protobuf";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { z } from "zod";

/**
 * zod types whose bounds are read from the proto's protovalidate annotations (proto/memory/v1),
 * so the REST schemas — and the OpenAPI document generated from them — state the same limits core
 * enforces (k 1..25, hops 0..3, title length, uuid ids, rel_type pattern, allowed values) without a
 * second copy.
 * Core stays the authority: it validates again for every transport; the gateway only answers
 * earlier, with the REST field name.
 */

function rulesOf(field: DescField) {
  return getOption(field, fieldRules);
}

/**
 * An int32 field with the proto's gte/lte (gt/lt) bounds. `coerce` for query strings, whose values
 * arrive as text.
 */
export function protoInt(field: DescField, options: { coerce?: boolean } = {}) {
  // Each check carries its own message: a schema-level error would also replace the bound's
  // ("k: must be an integer" for k=51, issue 15).
  let schema = options.coerce
    ? z.coerce.number({ error: "must be an integer" }).int({ error: "must be an integer" })
    : z.int();
  const atLeast = (n: number) => schema.min(n, { error: `must be at least ${n}` });
  const atMost = (n: number) => schema.max(n, { error: `must be at most ${n}` });
  const rules = rulesOf(field);
  if (rules.type.case === "int32") {
    const { greaterThan, lessThan } = rules.type.value;
    if (greaterThan.case === "gte") schema = atLeast(greaterThan.value);
    if (greaterThan.case === "gt") schema = atLeast(greaterThan.value + 1);
    if (lessThan.case === "lte") schema = atMost(lessThan.value);
    if (lessThan.case === "lt") schema = atMost(lessThan.value - 1);
  }
  return schema;
}

/**
 * A string field with the proto's min_len/max_len (counted in code points, as protovalidate and
 * JSON Schema count them, not in UTF-16 units as zod's .max would), pattern, uuid and `in` rules.
 * `required` makes an empty string invalid where REST requires the field and the proto, being
 * shared with optional callers, does not.
 */
export function protoString(field: DescField, options: { required?: boolean } = {}): z.ZodType<string> {
  const rules = rulesOf(field);
  if (rules.type.case !== "string") return nonEmpty(z.string(), options.required);
  const { minLen, maxLen, pattern, wellKnown, in: allowed } = rules.type.value;
  if (wellKnown.case === "uuid") return z.guid({ error: "must be a UUID" });
  if (wellKnown.case === "uri") return z.url({ error: "must be an absolute URL" });
  if (wellKnown.case === "email") return z.email({ error: "must be an email address" });
  const [first, ...rest] = allowed;
  if (first !== undefined) return z.enum([first, ...rest]);
  const min = Math.max(Number(minLen), options.required ? 1 : 0);
  const max = Number(maxLen);
  const json: { minLength?: number; maxLength?: number; pattern?: string } = {};
  let schema: z.ZodType<string> = z.string();
  if (min > 0) {
    json.minLength = min;
    schema = schema.refine((value) => codePoints(value) >= min, {
      error: min === 1 ? "must not be empty" : `must be at least ${min} characters`,
      abort: true,
    });
  }
  if (max > 0) {
    json.maxLength = max;
    schema = schema.refine((value) => codePoints(value) <= max, {
      error: `must be at most ${max} characters`,
      abort: true,
    });
  }
  if (pattern) {
    json.pattern = pattern;
    const regex = new RegExp(pattern);
    schema = schema.refine((value) => regex.test(value), { error: `must match the pattern ${pattern}` });
  }
  return Object.keys(json).length > 0 ? schema.meta(json) : schema;
}

function nonEmpty(schema: z.ZodString, required: boolean | undefined): z.ZodType<string> {
  return required ? schema.min(1, { error: "must not be empty" }) : schema;
}

/**
 * An enum field as its REST words (lowercase value names), restricted by the proto's `in` /
 * `not_in` rules; UNSPECIFIED is never accepted.
 */
export function protoEnumField(field: DescField) {
  if (field.fieldKind !== "enum") throw new Error(`${field.name} is not an enum field`);
  const rules = rulesOf(field);
  const only = rules.type.case === "enum" ? rules.type.value.in : [];
  const excluded = rules.type.case === "enum" ? rules.type.value.notIn : [];
  const words = field.enum.values
    .filter((v) => v.number !== 0 && (only.length === 0 || only.includes(v.number)))
    .filter((v) => !excluded.includes(v.number))
    .map((v) => v.localName.toLowerCase());
  const [first, ...rest] = words;
  if (first === undefined) throw new Error(`${field.name} admits no value`);
  return z.enum([first, ...rest]);
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}
