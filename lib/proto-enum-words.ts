import type { DescEnum } from "@bufbuild/protobuf";
import type { GenEnum } from "@bufbuild/protobuf/codegenv2";

/**
 * Proto enums as the lowercase words the product uses everywhere outside protobuf — REST and MCP
 * fields, database columns, plan names ("semantic", "queued", "document", "pro", "read"). Read from
 * the enum descriptors, so a value added to the proto needs no second list anywhere. The word is the
 * value's name without the enum prefix (MEMORY_TYPE_SEMANTIC → "semantic"); UNSPECIFIED (0) is never
 * a word.
 */

const wordOf = (localName: string) => localName.toLowerCase();

/** Every word of an enum, in proto order, without UNSPECIFIED. */
export function enumWords(desc: DescEnum): [string, ...string[]] {
  const words = desc.values.filter((v) => v.number !== 0).map((v) => wordOf(v.localName));
  const [first, ...rest] = words;
  if (first === undefined) throw new Error(`${desc.typeName} has no values besides UNSPECIFIED`);
  return [first, ...rest];
}

/** The word of a value; "unspecified" for 0 or a number this build does not know. */
export function enumWord(desc: DescEnum, value: number): string {
  if (value === 0) return "unspecified";
  const found = desc.values.find((v) => v.number === value);
  return found ? wordOf(found.localName) : "unspecified";
}

/** The value of a word; UNSPECIFIED (0) for a word that is not one of the enum's. */
export function enumValue<T extends number>(desc: GenEnum<T>, word: string): T | 0 {
  const found = desc.values.find((v) => v.number !== 0 && wordOf(v.localName) === word);
  return found ? (found.number as T) : 0;
}

/** The value of a word that was already validated; throws on an unknown word (a bug, not input). */
export function enumNumber(desc: DescEnum, word: string): number {
  const found = desc.values.find((v) => v.number !== 0 && wordOf(v.localName) === word);
  if (!found) throw new Error(`${word} is not a value of ${desc.typeName}`);
  return found.number;
}
