import { type ComponentChildren, h } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../api.js";
import { t } from "../i18n.js";
import type { Session } from "../session.js";
import { ErrorNotice, missingFeature, PageHead } from "../ui.js";

/**
 * Fetches a download with the session cookie and hands it to the browser as a file; a refusal (the
 * plan gate's 402 above all) is thrown as an ApiError so the page can say why instead of saving the
 * error's JSON as the file or doing nothing.
 */
async function download(href: string, file: string): Promise<void> {
  const res = await fetch(href, {
    credentials: "same-origin",
    headers: { accept: "text/csv, application/json" },
  });
  if (!res.ok) {
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      body = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    throw new ApiError(res.status, String(body?.error ?? `${res.status} ${res.statusText}`), body);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = file;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the blob over once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Downloads from the REST routes (GET with the session cookie; nothing is changed). The audit log
 * is plan-gated (pro and higher): on a plan without it the notice stands in place of the button,
 * and the button fetches first, so a 402 (a plan changed meanwhile) also becomes the notice; the
 * workspace bundle, open on every plan and possibly large, stays a plain link streamed by the browser.
 */
export function ExportsPage(props: { session: Session }): ComponentChildren {
  const gate = missingFeature(props.session, "audit_export");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const title = (text: string) => h("span", { class: "sr-only" }, ` ${text}`);
  return h(
    "section",
    null,
    h(PageHead, { title: t("exportsTitle") }),
    h(
      "div",
      { class: "card" },
      h("h2", null, t("auditExport")),
      h("p", null, t("auditHelp")),
      error ? h(ErrorNotice, { error }) : null,
      gate ??
        h(
          "button",
          {
            type: "button",
            disabled: busy,
            onClick: async () => {
              setError(undefined);
              setBusy(true);
              try {
                await download("/api/audit/export", "audit-log.csv");
              } catch (e) {
                setError(e);
              } finally {
                setBusy(false);
              }
            },
          },
          t("download"),
          title(t("auditExport")),
        ),
    ),
    h(
      "div",
      { class: "card" },
      h("h2", null, t("tenantExport")),
      h("p", null, t("tenantHelp")),
      h(
        "a",
        { class: "button", href: "/api/tenant/export", download: "tenant-export.json" },
        t("download"),
        title(t("tenantExport")),
      ),
    ),
  );
}
