import test from "ava";
import postgres from "postgres";
import { answeredInTime, watchDatabase } from "../../core/store/database-watchdog.js";
import { ADMIN_URL } from "../helpers/test-database.js";

// The watchdog must tell a silent database from a busy process (issue 46 runs: under load 8–24 a
// healthy database was declared stalled and every call refused with 503). A synchronous block of the
// event loop longer than the timeout used to let the timer win over the answer already waiting on the
// socket.

function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: what a long synchronous index build or embedding batch does to the loop
  }
}

test("an answer that arrived while the event loop was blocked past the timeout counts as answered", async (t) => {
  const sql = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await sql`select 1`; // connected
    const answer = sql`select 1`.then(() => true);
    const verdict = answeredInTime(answer, 500);
    blockEventLoop(1200);
    t.true(await verdict);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

test("a ping that never answers is not answered in time, and one that fails is not either", async (t) => {
  t.false(await answeredInTime(new Promise<boolean>(() => undefined), 300));
  t.false(await answeredInTime(Promise.reject(new Error("connection refused")), 300));
});

test("the watchdog marks a silent database stalled, tells its listeners once, and clears when it answers", async (t) => {
  let silent = false;
  const changes: boolean[] = [];
  const watchdog = watchDatabase({
    ping: () => (silent ? new Promise<boolean>(() => undefined) : Promise.resolve(true)),
    onChange: (stalled) => changes.push(stalled),
    intervalMs: 50,
    timeoutMs: 300,
  });
  try {
    let told = 0;
    watchdog.onStall(() => {
      told += 1;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.false(watchdog.stalled);
    silent = true;
    while (!watchdog.stalled) await new Promise((resolve) => setTimeout(resolve, 50));
    t.is(told, 1);
    silent = false;
    while (watchdog.stalled) await new Promise((resolve) => setTimeout(resolve, 50));
    t.deepEqual(changes, [true, false]);
  } finally {
    watchdog.stop();
  }
});

test("a busy process whose database answers is never marked stalled", async (t) => {
  const sql = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  const changes: boolean[] = [];
  const watchdog = watchDatabase({
    ping: () => sql`select 1`.then(() => true),
    onChange: (stalled) => changes.push(stalled),
    intervalMs: 20,
    // Long enough for a starved PostgreSQL on a loaded test machine to answer within free loop time;
    // each block below is longer, which is the situation under test.
    timeoutMs: 1_000,
  });
  try {
    for (let i = 0; i < 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      blockEventLoop(1_500);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.deepEqual(changes, []);
  } finally {
    watchdog.stop();
    await sql.end({ timeout: 1 });
  }
});
