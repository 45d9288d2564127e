import { createRequire } from "node:module";

/**
 * `require` for the SDKs of optional features (Stripe, nodemailer, ioredis), called where the feature
 * is configured: a process without it never loads them (docs/observability.md "Idle memory";
 * test/architecture/optional-sdks-load-on-use.test.ts). Synchronous, so the factories that build
 * their clients stay synchronous; the packages resolve from the project's node_modules.
 */
export const requireOnUse: NodeJS.Require = createRequire(import.meta.url);
