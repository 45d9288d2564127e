import test from "ava";
import type { TestService } from "../helpers/test-service.js";
import { ingestClient, startIngestService } from "./ingest-test-kit.js";

// A tenant's first writes create its vector table under a cross-process lock that takes a pooled
// connection. A shared write transaction upserts its vectors before it commits (ADR 0330), holding
// the tenant's title and quota locks: had it created the table there, a pool whose other connections
// wait on those locks deadlocked (seen as a hung quota test under load). On a pool of two connections
// concurrent first writes of a limited tenant must all settle.

let service: TestService;

test.before(async () => {
  service = await startIngestService({ env: { DATABASE_POOL_SIZE: "2" } });
});

test.after.always(async () => {
  await service?.stop();
});

const STALLED = Symbol("stalled");

test("concurrent first writes of a limited tenant settle on a pool of two connections", async (t) => {
  for (let round = 0; round < 3; round++) {
    const tenant = await service.createTenant({
      plan: "free",
      limitsOverride: { requestsPerMinutePerToken: 100_000, memoryLimit: 50 },
    });
    const client = ingestClient(service, tenant.token);
    const writes = Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? client.storeMemory({ content: `Runde ${round}, Eintrag ${i}: Termin am ${i}. Mai.` })
          : client.uploadDocument({
              title: `Dokument ${round}-${i}`,
              content: `Dokument ${i} über Steuern.`,
            }),
      ),
    );
    const settled = await Promise.race([
      writes,
      new Promise<typeof STALLED>((resolve) => setTimeout(() => resolve(STALLED), 30_000).unref()),
    ]);
    if (settled === STALLED) {
      t.fail(`round ${round}: the writes stalled`);
      return;
    }
    t.deepEqual(
      settled.map((r) => r.status),
      Array.from({ length: 12 }, () => "fulfilled"),
      `round ${round}`,
    );
  }
});
