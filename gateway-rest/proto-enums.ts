import type { DescEnum } from "@bufbuild/protobuf";
import { z } from "zod";

/**
 * Proto enums as the lowercase words REST uses ("semantic", "queued", "document"), read from the
 * enum descriptors so a value added to the proto appears in the REST schemas and the OpenAPI
 * document without a second list. UNSPECIFIED is never a REST value.
 */

/** The REST words of an enum, in proto order, without UNSPECIFIED. */
export function enumWords(desc: DescEnum): [string, ...string[]] {
  const words = desc.values.filter((v) => v.number !== 0).map((v) => v.localName.toLowerCase());
  const [first, ...rest] = words;
  if (first === undefined) throw new Error(`${desc.typeName} has no values besides UNSPECIFIED`);
  return [first, ...rest];
}

/** The REST word for a value; "unspecified" when core left it unset. */
export function enumWord(desc: DescEnum, value: number): string {
  return desc.values.find((v) => v.number === value)?.localName.toLowerCase() ?? "unspecified";
}

/** The proto number for a REST word that the request schema has already checked. */
export function enumNumber(desc: DescEnum, word: string): number {
  const value = desc.values.find((v) => v.localName.toLowerCase() === word);
  if (!value) throw new Error(`${word} is not a value of ${desc.typeName}`);
  return value.number;
}

/** A zod enum of the REST words of a proto enum (or of the listed subset, in proto order). */
export function protoEnum(desc: DescEnum, only?: readonly string[]) {
  const words = enumWords(desc).filter((w) => only === undefined || only.includes(w));
  const [first, ...rest] = words;
  if (first === undefined) throw new Error(`no values of ${desc.typeName} selected`);
  return z.enum([first, ...rest]);
}
