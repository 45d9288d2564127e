import type { Database } from "../../store/database.js";

/**
 * The title a fetched page is stored under (ADR 0510). A document's identity is its title
 * (upsert-by-title, spec rule 3), so "the same URL replaces its document" is reached by choosing the
 * title: the one the current document of that URL (source = the final or the requested URL) already
 * has; for a URL fetched the first time, the page's own title — unless another URL's document holds
 * it ("Home", "Documentation"), which a different page must not replace: then the title names the URL
 * too. Without a page title, the final URL.
 */
export async function webPageTitle(
  db: Database,
  tenantId: string,
  page: { readonly url: string; readonly requestedUrl: string; readonly pageTitle: string },
): Promise<string> {
  // The URL as stored: a source never has a fragment.
  const requested = URL.parse(page.requestedUrl);
  if (requested) requested.hash = "";
  const requestedUrl = requested?.href ?? page.requestedUrl;
  return db.withTenant(tenantId, async (tx) => {
    const [known] = await tx<{ title: string }[]>`
      select title from memories
      where tenant_id = ${tenantId} and kind = 'document' and valid_to is null and status <> 'failed'
        and source = any(${tx.array([page.url, requestedUrl])}::text[])
      order by (source = ${page.url}) desc, recorded_at desc
      limit 1`;
    if (known) return known.title;
    if (page.pageTitle === "") return page.url;
    const [taken] = await tx<{ source: string | null }[]>`
      select source from memories
      where tenant_id = ${tenantId} and kind = 'document' and title = ${page.pageTitle} and valid_to is null
        and status <> 'failed'
      limit 1`;
    return taken ? `${page.pageTitle} (${page.url})` : page.pageTitle;
  });
}
