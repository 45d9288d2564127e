import test from "ava";
import { describeEndpoint, redactSecret } from "../../core/models/http/redact-secret.js";

const KEY = "sk-live-AbCdEfGh1234567890ZyXw";

test("the whole key and any 8-character piece of it are removed", (t) => {
  t.is(redactSecret(`key ${KEY} refused`, KEY), "key [redacted] refused");
  t.is(redactSecret("provided: sk-live-AbCd****7890ZyXw", KEY), "provided: [redacted]****[redacted]");
  t.is(redactSecret("nothing secret here at all", KEY), "nothing secret here at all");
  t.is(redactSecret("no key configured", undefined), "no key configured");
});

test("endpoints are shown without user info or query string", (t) => {
  t.is(
    describeEndpoint("https://user:pass@api.example.com/v1/embeddings?api_key=abc"),
    "https://api.example.com/v1/embeddings",
  );
  t.is(describeEndpoint("not a url"), "(invalid URL)");
});
