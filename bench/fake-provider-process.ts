/**
 * The local fake provider server of bench/providers.ts in its own process, so its JSON work does not
 * share an event loop with the client being measured. Started with fork(); answers over IPC:
 * `{url}` once listening, then `{busy}` (its per-request busy intervals) on `"busy"`, and resets them
 * on `"reset"`.
 */
import { startFakeProviders } from "../test/helpers/fake-providers.js";

const latencyMs = Number(process.env.FAKE_LATENCY_MS ?? "0");
const fake = await startFakeProviders(process.env.FAKE_KEY, { latencyMs });
const send = (message: unknown) => process.send?.(message);
process.on("message", (message) => {
  if (message === "busy") send({ busy: fake.busy, requests: fake.requests.length });
  if (message === "reset") {
    fake.busy.length = 0;
    fake.requests.length = 0;
    send({ reset: true });
  }
  if (message === "close") void fake.close().then(() => process.exit(0));
});
send({ url: fake.url });
