import { IndexStatusSchema, MemoryKindSchema, MemoryTypeSchema } from "../../gen/memory/v1/memory_pb.js";
import { enumValue } from "../../lib/proto-enum-words.js";

/** Database words → proto enums for the hits and recent items this service returns. */
export const memoryTypeEnum = (word: string) => enumValue(MemoryTypeSchema, word);
export const memoryKindEnum = (word: string) => enumValue(MemoryKindSchema, word);
export const indexStatusEnum = (word: string) => enumValue(IndexStatusSchema, word);
