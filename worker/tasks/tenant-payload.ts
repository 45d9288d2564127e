import { z } from "zod";

/** Job payloads are JSON from the queue table: checked at this boundary, typed after. */
export const tenantPayload = z.object({ tenantId: z.uuid() });
export const memoryPayload = z.object({ tenantId: z.uuid(), memoryId: z.uuid() });
export const spacePayload = z.object({ tenantId: z.uuid(), space: z.string().min(1) });
/** A vector table's upkeep; `duringWrites` when a write asked for it (no index rebuild then). */
export const maintainPayload = spacePayload.extend({ duringWrites: z.boolean().optional() });
