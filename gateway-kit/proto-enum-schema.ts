import type { DescEnum } from "@bufbuild/protobuf";
import { z } from "zod";
import { enumWords } from "../lib/proto-enum-words.js";

/** A zod enum of the words of a proto enum (or of the listed subset, in proto order). */
export function protoEnum(desc: DescEnum, only?: readonly string[]) {
  const words = enumWords(desc).filter((w) => only === undefined || only.includes(w));
  const [first, ...rest] = words;
  if (first === undefined) throw new Error(`no values of ${desc.typeName} selected`);
  return z.enum([first, ...rest]);
}
