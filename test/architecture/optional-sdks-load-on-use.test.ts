import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import test from "ava";

// The SDKs of optional features (Stripe for payments, nodemailer for SMTP, Hugging Face's tokenizers
// for ONNX models, undici for calls to tenants' URLs, ioredis for shared rate limits, onnxruntime and
// onnx-proto for the English sentence encoder) load when the
// feature is used, not with the modules that use them: every process held them in its heap before
// (≈ 8 MB of the idle service's, docs/observability.md "Idle memory"). A child process imports the
// service's whole start-up graph and reports every file it loaded, through the ESM loader (a hook)
// and CommonJS (require.cache).

const root = fileURLToPath(new URL("../..", import.meta.url));

const OPTIONAL = [
  "node_modules/stripe/",
  "node_modules/nodemailer/",
  "node_modules/@huggingface/tokenizers/",
  "node_modules/undici/",
  "node_modules/ioredis/",
  // The English sentence encoder (ADR 0760): onnxruntime and the graph writer load with the first
  // English query the built-in reranker scores.
  "node_modules/onnxruntime-node/",
  "node_modules/onnx-proto/",
];

/** Runs `body` (ESM, top-level await) after importing the start-up graph; the files loaded meanwhile. */
function filesLoaded(body: string): string[] {
  const script = `
    import { createRequire, register } from "node:module";
    import { MessageChannel } from "node:worker_threads";
    const loaded = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on("message", (url) => loaded.add(url));
    const hook = "data:text/javascript," + encodeURIComponent(
      "let port; export function initialize(data) { port = data.port; }" +
      "export async function load(url, context, next) { port.postMessage(url); return next(url, context); }");
    register(hook, { data: { port: port2 }, transferList: [port2] });
    await import("./apps/start-service.ts");
    ${body}
    await new Promise((resolve) => setTimeout(resolve, 200));
    port1.close();
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify([...loaded, ...cjs]));
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`the child failed (${run.status}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as string[]).map((file) => file.replaceAll("\\", "/"));
}

const optionalIn = (files: readonly string[]) => OPTIONAL.filter((sdk) => files.some((f) => f.includes(sdk)));

test("the start-up graph loads no optional SDK", (t) => {
  const files = filesLoaded("");
  t.true(
    files.some((f) => f.includes("/core/create-core.ts")),
    "the start-up graph was imported",
  );
  t.deepEqual(optionalIn(files), []);
});

test("configured, each SDK loads — through CommonJS and through the ESM loader alike", (t) => {
  const files = filesLoaded(`
    const { createPayments } = await import("./core/billing/payments.ts");
    const { createMagicLinkMailer } = await import("./core/tenancy/magic-link-mailer.ts");
    const { createLogger } = await import("./config/logger.ts");
    createPayments({ secretKey: "sk_test_optional", webhookSecret: "whsec_optional", prices: {} });
    createMagicLinkMailer({ smtpUrl: "smtp://127.0.0.1:2525", from: "a@example.test", logger: createLogger("silent") }).close();
    await import("@huggingface/tokenizers");
    const { createRateLimiters } = await import("./lib/rate-limit/rate-limiters.ts");
    await createRateLimiters({ redisUrl: "redis://127.0.0.1:6379", keyPrefix: "optional-sdks", logger: createLogger("silent") }).close();
    const { sharedOutboundGuard } = await import("./lib/net/outbound-guard.ts");
    await sharedOutboundGuard(false).fetch("http://optional-sdks.invalid/", { method: "POST", headers: {}, body: "", signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    const { createUseLiteEncoder } = await import("./core/models/sentence-encoder/create-use-lite-encoder.ts");
    await (await createUseLiteEncoder({ threads: 1 }))?.release();
  `);
  t.deepEqual(optionalIn(files), OPTIONAL);
});
