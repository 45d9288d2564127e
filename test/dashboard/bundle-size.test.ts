import { gzipSync } from "node:zlib";
import test from "ava";
import { buildDashboardBundle } from "../../edge/dashboard-bundle.js";

// Issue 19 "Build": the first load stays under 150 KB of JavaScript (gzip). The dashboard loads one
// script, so its gzip size is the whole first load.
const LIMIT_BYTES = 150 * 1024;

test("the dashboard's JavaScript is under 150 KB gzip and self-contained", async (t) => {
  const bundle = await buildDashboardBundle();
  const gzipped = gzipSync(bundle.js).length;
  t.log(
    `app.js: ${bundle.js.length} bytes, ${gzipped} bytes gzip; app.css ${gzipSync(bundle.css).length} bytes gzip`,
  );
  t.true(gzipped < LIMIT_BYTES, `${gzipped} bytes gzip`);
  // Nothing fetched at run time: no import of another module, no URL of another host.
  // (Preact names the XML namespaces of www.w3.org; they are identifiers, never fetched.)
  const foreign = /https?:\/\/(?!www\.w3\.org\/)[a-z0-9]/i.exec(bundle.js);
  t.is(foreign, null, `a URL of another host in the bundle: ${foreign?.[0] ?? ""}`);
  t.false(/\bimport\s*\(/.test(bundle.js), "no dynamic import");
});
