const SHARED_CHARS = 8;

/**
 * Removes a secret from text that may be shown to people (error messages built from a provider's
 * response). Besides the exact secret, any run of key-like characters sharing 8 consecutive characters
 * with the secret is removed, so a server echoing part of a key ("Incorrect API key: sk-…abcd1234")
 * leaks nothing either.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === "") return text;
  return text
    .split(secret)
    .join("[redacted]")
    .replace(/[\w.~+/=-]{8,}/g, (run) => (sharesPart(run, secret) ? "[redacted]" : run));
}

function sharesPart(run: string, secret: string): boolean {
  for (let i = 0; i + SHARED_CHARS <= run.length; i++) {
    if (secret.includes(run.slice(i, i + SHARED_CHARS))) return true;
  }
  return false;
}

/** An endpoint as it may appear in messages: scheme, host and path — no user info, no query string. */
export function describeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}
