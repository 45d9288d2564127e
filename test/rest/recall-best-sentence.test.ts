import test from "ava";
import type { TestService, TestTenant } from "../helpers/test-service.js";
import { startIngestService } from "../ingest/ingest-test-kit.js";
import { recallHits, rest, storeEntries } from "./rest-client.js";

// The built-in reranker's best-sentence cosine over REST, with the service's own models (ADR 0630): of
// two memories with the question's words, the one that answers it in one sentence comes first, though
// the other repeats the question's rarest word, spread over sentences about other things (without
// the best sentence — bestSentenceWeight 0 — the other one leads). In a conversation, the speaker
// label of a turn is not part of what it says: the turn on the asked-about topic leads the asked-about
// speaker's short turns on other topics (with the label scored, those lead).

let service: TestService;
let tenant: TestTenant;
const ids: Record<string, string> = {};

const MEMORIES: Record<string, string> = {
  answer:
    "Die Inkubationszeit beim Coronavirus beträgt bis zu 14 Tage. Das Gesundheitsamt informiert regelmäßig über neue Regeln. Bitte halten Sie Abstand und waschen Sie die Hände.",
  spread:
    "Das Coronavirus verbreitet sich schnell, das Coronavirus ist neu. Die Inkubationszeit anderer Krankheiten ist gut erforscht. Bitte halten Sie Abstand und waschen Sie die Hände.",
  canteen: "Die Kantine öffnet am Montag wieder mit warmem Essen.",
  printer: "Der Drucker im dritten Stock braucht neuen Toner.",
  outing: "Der Betriebsausflug führt dieses Jahr an die Ostsee.",
};

test.before(async () => {
  service = await startIngestService();
  tenant = await service.createTenant({ plan: "api" });
  Object.assign(ids, await storeEntries(service.httpUrl, tenant.token, MEMORIES, "Hinweis"));
});

test("in a conversation, the turn on the topic leads the asked-about speaker's turns on other topics", async (t) => {
  const owner = await service.createTenant({ plan: "api" });
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 2, 9, minutes)).toISOString();
  const turns = [
    ["Anna", "Hiring lacks a developer."],
    ["Anna", "The budget is fine."],
    ["Jonas", "The servers stay in the old building during the office move, and the movers come early."],
    ["Anna", "Prices go up."],
    ["Anna", "Lunch is late."],
    ["Mira", "The printer works again."],
  ] as const;
  const res = await rest(service.httpUrl, "/api/v1/conversations", {
    token: owner.token,
    body: {
      title: "Team chat",
      sessionId: "weekly",
      messages: turns.map(([speaker, content], i) => ({ speaker, content, at: at(i) })),
    },
  });
  if (res.status !== 201) throw new Error(`conversation: ${res.status} ${res.text}`);
  const hits = await recallHits<{ snippet: string }>(service.httpUrl, owner.token, {
    query: "What did Anna say about the office move?",
    k: 10,
    hops: 0,
  });
  const snippets = hits.map((h) => h.snippet);
  const move = snippets.findIndex((s) => s.includes("office move"));
  t.is(move, 0, snippets.join(" | "));
});

test.after.always(async () => {
  await service?.stop();
});

test("the memory that answers in one sentence leads the one with the words spread over several", async (t) => {
  const hits = await recallHits<{ memoryId: string }>(service.httpUrl, tenant.token, {
    query: "Wie lange ist die Inkubationszeit beim Coronavirus?",
    k: 5,
    hops: 0,
  });
  const order = hits.map((h) => Object.entries(ids).find(([, id]) => id === h.memoryId)?.[0]);
  t.deepEqual(order.slice(0, 2), ["answer", "spread"], order.join(", "));
});
