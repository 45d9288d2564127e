import { z } from "zod";

/** Job payloads are JSON from the queue table: checked at this boundary, typed after. */
export const tenantPayload = z.object({ tenantId: z.uuid() });
export const memoryPayload = z.object({ tenantId: z.uuid(), memoryId: z.uuid() });
export const spacePayload = z.object({ tenantId: z.uuid(), space: z.string().min(1) });
