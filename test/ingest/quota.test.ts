import { Code } from "@connectrpc/connect";
import test from "ava";
import { IndexStatus } from "../../gen/memory/v1/memory_pb.js";
import type { TestService } from "../helpers/test-service.js";
import { expectFailure, ingestClient, readMemory, startIngestService } from "./ingest-test-kit.js";

// Spec "Quotas and sizes": the memory limit is checked in the same transaction as the insert, with no
// race past the limit; at the limit writes get the plan-gate error (402) with limit, used, message and
// upgradeUrl; reads keep working.

let service: TestService;

test.before(async () => {
  service = await startIngestService();
});

test.after.always(async () => {
  await service?.stop();
});

const limitedTenant = (memoryLimit: number) =>
  service.createTenant({ plan: "free", limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit } });

async function currentCount(tenantId: string): Promise<number> {
  const [row] = await service.storage.db.sql<{ n: number }[]>`
    select count(*)::int as n from memories
    where tenant_id = ${tenantId} and valid_to is null and status <> 'failed'`;
  return row?.n ?? 0;
}

test("concurrent writes never pass the limit", async (t) => {
  const tenant = await limitedTenant(5);
  const client = ingestClient(service, tenant.token);
  const results = await Promise.allSettled(
    Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0
        ? client.storeMemory({ content: `Eintrag ${i}: Termin beim Zahnarzt am ${i}. Mai.` })
        : client.uploadDocument({ title: `Dokument ${i}`, content: `Dokument ${i} über Steuern.` }),
    ),
  );
  const fulfilled = results.filter((r) => r.status === "fulfilled");
  t.is(fulfilled.length, 5);
  t.is(await currentCount(tenant.tenantId), 5);
  for (const result of results) {
    if (result.status === "fulfilled") continue;
    const failure = await expectFailure(t, Promise.reject(result.reason), Code.FailedPrecondition);
    t.is(failure.reason, "plan_upgrade_required");
    t.is(failure.planGate?.limit, 5n);
    t.is(failure.planGate?.used, 5n);
    t.regex(failure.planGate?.message ?? "", /5 of 5 memories/);
    t.regex(failure.planGate?.upgradeUrl ?? "", /^https?:\/\/.+/);
  }
});

test("at the limit: new writes are refused, identical and replacing writes and reads still work", async (t) => {
  const tenant = await limitedTenant(2);
  const client = ingestClient(service, tenant.token);
  const note = await client.storeMemory({ title: "Notiz", content: "Der Schlüssel liegt unter der Matte." });
  const doc = await client.uploadDocument({ title: "Plan", content: "Version eins des Plans." });
  t.is(doc.memory?.quota?.memoriesUsed, 2n);
  t.true(doc.memory?.quota?.warnAt80);
  t.regex(doc.memory?.quota?.hint ?? "", /2 of 2 memories used \(100 %\)/);

  const refused = await expectFailure(
    t,
    client.storeMemory({ title: "Neu", content: "Das passt nicht mehr hinein." }),
    Code.FailedPrecondition,
  );
  t.is(refused.reason, "plan_upgrade_required");
  const refusedQueued = await expectFailure(
    t,
    client.ingestDocument({ title: "Neu", content: "Auch nicht asynchron." }),
    Code.FailedPrecondition,
  );
  t.is(refusedQueued.planGate?.used, 2n);

  // Byte-identical content writes nothing, so it is answered as before.
  const same = await client.storeMemory({ title: "Notiz", content: "Der Schlüssel liegt unter der Matte." });
  t.true(same.memory?.unchanged);
  t.is(same.memory?.memoryId, note.memory?.memoryId);
  // Replacing a document by title leaves the count unchanged, so it is allowed at the limit.
  const replaced = await client.uploadDocument({ title: "Plan", content: "Version zwei des Plans." });
  t.is(replaced.memory?.status, IndexStatus.INDEXED);
  t.deepEqual(replaced.memory?.replacedDocumentIds, [doc.memory?.memoryId]);
  t.is(replaced.memory?.quota?.memoriesUsed, 2n);
  t.is(await currentCount(tenant.tenantId), 2);

  // Reads keep working: the stored memory is still searchable and readable.
  const [query] = await service.models.embedder.embed(["Wo ist der Schlüssel?"], "query");
  const hits = await service.storage.vectors.search(tenant.tenantId, service.models.embedder.id, query!, 3);
  t.true(hits.some((h) => h.memoryId === note.memory?.memoryId));
  t.is((await readMemory(service, note.memory?.memoryId ?? ""))?.status, "indexed");
});

test("plans without a memory limit are not counted against one", async (t) => {
  const tenant = await service.createTenant({ plan: "pro" });
  const client = ingestClient(service, tenant.token);
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => client.storeMemory({ content: `Unbegrenzt ${i}.` })),
  );
  t.true(results.every((r) => r.memory?.status === IndexStatus.INDEXED));
  const last = results.map((r) => r.memory?.quota?.memoriesUsed ?? 0n).sort((a, b) => Number(a - b));
  t.is(last.at(-1), 6n);
  t.is(results[0]?.memory?.quota?.memoryLimit, undefined);
});
