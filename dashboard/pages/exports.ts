import { type ComponentChildren, h } from "preact";
import { t } from "../i18n.js";
import { PageHead } from "../ui.js";

/** Downloads straight from the REST routes (GET with the session cookie; nothing is changed). */
export function ExportsPage(): ComponentChildren {
  const item = (title: string, help: string, href: string, file: string) =>
    h(
      "div",
      { class: "card" },
      h("h2", null, title),
      h("p", null, help),
      h(
        "a",
        { class: "button", href, download: file },
        t("download"),
        h("span", { class: "sr-only" }, ` ${title}`),
      ),
    );
  return h(
    "section",
    null,
    h(PageHead, { title: t("exportsTitle") }),
    item(t("auditExport"), t("auditHelp"), "/api/audit/export", "audit-log.csv"),
    item(t("tenantExport"), t("tenantHelp"), "/api/tenant/export", "tenant-export.json"),
  );
}
