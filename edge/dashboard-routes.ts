import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { SESSION_COOKIE } from "../gateway-kit/credentials.js";
import { csrfTokenFor } from "./csrf-guard.js";
import { dashboardBundle } from "./dashboard-bundle.js";

/**
 * Strict CSP (issue 19): scripts and styles only from this origin (no inline code, no CDN), calls
 * only to this origin, no framing, no plugins, forms only to this origin.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": DASHBOARD_CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
};

/** First language of Accept-Language that the dashboard speaks; English otherwise. */
export function dashboardLanguage(acceptLanguage: string | undefined): "de" | "en" {
  for (const part of (acceptLanguage ?? "").split(",")) {
    const tag = part.split(";")[0]?.trim().toLowerCase() ?? "";
    if (tag.startsWith("de")) return "de";
    if (tag.startsWith("en")) return "en";
  }
  return "en";
}

function shell(lang: "de" | "en", csrfToken: string, version: string): string {
  // csrfToken is base64url and version hex: nothing here needs escaping.
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Memory Service – Dashboard</title>
<meta name="csrf-token" content="${csrfToken}">
<link rel="stylesheet" href="/dashboard/assets/app.css?v=${version}">
<script type="module" src="/dashboard/assets/app.js?v=${version}"></script>
</head>
<body>
<div id="app"><noscript>${lang === "de" ? "Das Dashboard braucht JavaScript." : "The dashboard needs JavaScript."}</noscript></div>
</body>
</html>
`;
}

function withSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(SECURITY_HEADERS);
}

/**
 * The dashboard (issue 19) at /dashboard: one HTML shell for every page (the client routes by path),
 * the bundled script and style sheet, and /onboarding (where core sends a first sign-in) forwarded
 * to its dashboard page. Everything the pages show comes from the public REST API under /api.
 */
export const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } };

  app.get("/onboarding", hide, async (_request, reply) =>
    reply.code(303).header("location", "/dashboard/onboarding").send(),
  );

  const page = async (
    request: {
      headers: Record<string, string | string[] | undefined>;
      cookies: Record<string, string | undefined>;
    },
    reply: FastifyReply,
  ) => {
    const { version } = await dashboardBundle();
    const session = request.cookies[SESSION_COOKIE];
    const acceptLanguage = request.headers["accept-language"];
    const lang = dashboardLanguage(typeof acceptLanguage === "string" ? acceptLanguage : undefined);
    return withSecurityHeaders(reply)
      .header("cache-control", "no-store")
      .header("vary", "accept-language, cookie")
      .type("text/html; charset=utf-8")
      .send(shell(lang, session === undefined ? "" : csrfTokenFor(session), version));
  };
  app.get("/dashboard", hide, page);
  app.get("/dashboard/*", hide, page);

  app.get("/dashboard/assets/app.js", hide, async (_request, reply) => {
    const { js } = await dashboardBundle();
    return withSecurityHeaders(reply)
      .header("cache-control", "public, max-age=3600")
      .type("text/javascript; charset=utf-8")
      .send(js);
  });
  app.get("/dashboard/assets/app.css", hide, async (_request, reply) => {
    const { css } = await dashboardBundle();
    return withSecurityHeaders(reply)
      .header("cache-control", "public, max-age=3600")
      .type("text/css; charset=utf-8")
      .send(css);
  });
};
