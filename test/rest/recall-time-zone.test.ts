import test from "ava";
import { testModels } from "../graph/graph-test-kit.js";
import { startTestService, type TestService } from "../helpers/test-service.js";
import { recallHits, rest } from "./rest-client.js";

// RECALL_TIME_ZONE over REST (ADR 0620): "yesterday" is the configured zone's yesterday, shown as such
// in explain. Kiritimati (UTC+14, no daylight saving) differs from UTC's calendar day for most of the
// day, so the check holds whenever it runs; the expected bounds are computed here from the fixed offset.

let service: TestService;
const OFFSET = 14 * 3_600_000;

test.before(async () => {
  service = await startTestService({
    models: testModels(),
    worker: false,
    env: { RECALL_TIME_ZONE: "Pacific/Kiritimati" },
  });
});

test.after.always(async () => {
  await service?.stop();
});

test("'yesterday' is the configured zone's day before, from its midnight to its midnight", async (t) => {
  const tenant = await service.createTenant({ plan: "api" });
  const stored = await rest(service.httpUrl, "/api/v1/memory/entries", {
    token: tenant.token,
    body: { memory_type: "episodic", title: "Release", content: "Anna: The release moves to Friday." },
  });
  t.is(stored.status, 201);
  const before = Date.now();
  const hits = await recallHits<{ explanation?: { queryTime?: { from: string; to: string } } }>(
    service.httpUrl,
    tenant.token,
    { query: "What did Anna say about the release yesterday?", k: 5, explain: true },
  );
  const after = Date.now();
  // Yesterday's bounds in the zone, from the fixed offset (either side of the call, should it cross
  // the zone's midnight).
  const bounds = (ms: number) => {
    const local = new Date(ms + OFFSET);
    const start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - 1) - OFFSET;
    return [new Date(start).toISOString(), new Date(start + 86_400_000).toISOString()];
  };
  const time = hits[0]?.explanation?.queryTime;
  const seen = [time?.from, time?.to];
  t.true(
    [bounds(before), bounds(after)].some((b) => b[0] === seen[0] && b[1] === seen[1]),
    JSON.stringify(seen),
  );
});
