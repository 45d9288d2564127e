/**
 * RFC 8707 resource indicators, shared by the OAuth endpoints (edge) and token issuance (core): a
 * resource is an absolute URI without fragment; two are the same after URL normalisation (scheme and
 * host in lower case, default port dropped), a trailing slash not being significant (MCP
 * authorization "Canonical Server URI").
 */
export function sameResource(given: string, ours: string): boolean {
  if (given.includes("#")) return false;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  const strip = (u: string) => u.replace(/\/+$/, "");
  return strip(url.href) === strip(new URL(ours).href);
}
