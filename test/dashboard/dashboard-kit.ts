import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { testModels } from "../graph/graph-test-kit.js";
import { type FakeProviders, startFakeProviders } from "../helpers/fake-providers.js";
import { onFreePort } from "../helpers/free-port.js";
import { type ReceivedMail, startMailCatcher } from "../helpers/mail-catcher.js";
import { startTestService, type TestService, waitFor } from "../helpers/test-service.js";
import { createSessionCookie } from "../rest/sessions.js";
import { type HttpsReceiver, startHttpsReceiver } from "../webhooks/https-receiver.js";

/** Debian's Chromium unless CHROMIUM_PATH names another (installed by .ci/run). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);
/** Screenshots for people to look at (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));
const AXE_SOURCE = fileURLToPath(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url));

export interface DashboardBed {
  readonly service: TestService;
  /** PUBLIC_URL: the service's real address. */
  readonly url: string;
  readonly mails: ReceivedMail[];
  readonly receiver: HttpsReceiver;
  readonly providers: FakeProviders;
  readonly browser: Browser;
  stop(): Promise<void>;
}

/**
 * The whole service as a user meets it: on a port fixed in advance (PUBLIC_URL names it), with a
 * mail catcher for magic links, payments off and SELF_HOSTED_PLAN=api (every feature unlocked; both
 * can be changed through `options`), a
 * local HTTPS webhook receiver it trusts, fake embedding providers on loopback, and Chromium.
 */
export async function startDashboardBed(
  options: { env?: Record<string, string>; selfHostedPlan?: boolean } = {},
): Promise<DashboardBed> {
  await mkdir(ARTIFACTS, { recursive: true });
  const smtp = await startMailCatcher();
  const receiver = await startHttpsReceiver(tmpdir());
  const providers = await startFakeProviders();
  let url = "";
  const service = await onFreePort((port) => {
    url = `http://127.0.0.1:${port}`;
    return startTestService({
      models: testModels(),
      env: {
        PORT: String(port),
        PUBLIC_URL: url,
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: "Memory <auth@example.test>",
        ...(options.selfHostedPlan === false ? {} : { SELF_HOSTED_PLAN: "api" }),
        MASTER_KEY: randomBytes(32).toString("base64url"),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        WEBHOOK_CA_FILE: receiver.caFile,
        PROVIDER_ALLOW_PRIVATE_URLS: "true",
        ...options.env,
      },
    });
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox"],
  });
  return {
    service,
    url,
    mails: smtp.mails,
    receiver,
    providers,
    browser,
    async stop() {
      await browser.close();
      await service.stop();
      await receiver.close();
      await providers.close();
      await smtp.close();
    },
  };
}

/** The sign-in link of the newest mail to `email`. */
export async function mailedLink(bed: DashboardBed, email: string): Promise<string> {
  const mail = await waitFor(() => bed.mails.findLast((m) => m.to.includes(email)), {
    what: `mail to ${email}`,
  });
  const match = /https?:\/\/\S+\/api\/auth\/callback\/email\?token=[A-Za-z0-9_-]+/.exec(mail.body);
  if (!match) throw new Error(`no sign-in link in the mail: ${mail.body}`);
  return match[0];
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core run inside the page, its source read from node_modules (nothing from the network). It is
 * evaluated through the DevTools protocol rather than added as a <script> tag: the dashboard's CSP
 * refuses inline scripts, and the test must not switch the CSP off to look at the page.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await readFile(AXE_SOURCE, "utf8"));
  return page.evaluate<AxeViolation[]>(`axe.run().then((result) => result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })),
  })))`);
}

/** Serious and critical violations, one line each. */
export function seriousViolations(violations: AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** A REST call with a workspace token, as a script would make it (the dashboard tests' check). */
export async function restAs<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A browser context signed in to the tenant's dashboard (its session cookie set), English, desktop. */
export async function signedInContext(
  bed: DashboardBed,
  tenantId: string,
  viewport = { width: 1100, height: 900 },
): Promise<BrowserContext> {
  const cookie = await createSessionCookie(bed.service, tenantId);
  const [name = "", value = ""] = cookie.split("=");
  const context = await bed.browser.newContext({ locale: "en-GB", viewport });
  await context.addCookies([{ name, value, url: bed.url, httpOnly: true, sameSite: "Lax" }]);
  return context;
}
