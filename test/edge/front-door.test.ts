import test from "ava";
import { startTestService, type TestService } from "../helpers/test-service.js";

// GET / (issue 49, item 1; ADR 0385): a browser is led to the dashboard, an API client gets a JSON
// map of the entry points — never the bare 404 it answered before.

let service: TestService;

test.before(async () => {
  service = await startTestService();
});

test.after.always(async () => {
  await service?.stop();
});

test("a browser asking for / is sent to the dashboard, which answers", async (t) => {
  const res = await fetch(`${service.httpUrl}/`, {
    headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    redirect: "manual",
  });
  t.is(res.status, 303);
  t.is(res.headers.get("location"), "/dashboard");
  const page = await fetch(new URL("/dashboard", service.httpUrl), { headers: { accept: "text/html" } });
  t.is(page.status, 200);
  t.regex(page.headers.get("content-type") ?? "", /text\/html/);
});

test("an API client asking for / gets JSON naming the entry points, and each of them exists", async (t) => {
  const res = await fetch(`${service.httpUrl}/`, { headers: { accept: "application/json" } });
  t.is(res.status, 200);
  const body = (await res.json()) as Record<string, string>;
  t.like(body, { dashboard: "/dashboard", openapi: "/api/openapi.json", health: "/health" });
  for (const path of [body.openapi, body.health, body.api]) {
    const answer = await fetch(new URL(path ?? "/missing", service.httpUrl));
    t.is(answer.status, 200, `${path} answers`);
  }
  // Without any Accept header (curl's default is */*): JSON too.
  t.is((await fetch(`${service.httpUrl}/`)).headers.get("content-type")?.split(";")[0], "application/json");
});
