import { z } from "zod";

/** Arguments shared by service_link and service_unlink (spec: from_id, to_id, rel_type, all required). */
export const relationArguments = z.strictObject({
  from_id: z.string().min(1).describe("memory_id of the source memory."),
  to_id: z.string().min(1).describe("memory_id of the target memory."),
  rel_type: z
    .string()
    .max(64)
    .regex(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, "must be UPPER_SNAKE_CASE, e.g. REFERENCES")
    .describe("Relation type in UPPER_SNAKE_CASE, e.g. OWNS, FOR_CLIENT, REFERENCES."),
});
