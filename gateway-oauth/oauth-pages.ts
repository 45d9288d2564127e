/**
 * The browser pages of the authorization flow, server-rendered without scripts: sign-in (magic
 * link), consent, and errors the user must see instead of a redirect. German and English, chosen by
 * `lang` or Accept-Language. Every value is HTML-escaped.
 */

export type Language = "en" | "de";

const TEXT = {
  en: {
    signInTitle: "Sign in to connect",
    signInLead: (client: string) =>
      `${client} wants to connect to your memory. Sign in with your e-mail address; we send you a sign-in link.`,
    email: "E-mail address",
    sendLink: "Send sign-in link",
    sentTitle: "Check your e-mail",
    sentLead: (email: string) =>
      `We sent a sign-in link to ${email}. Open it in this browser to continue; it is valid for 24 hours.`,
    consentTitle: "Allow access?",
    consentLead: (client: string, workspace: string) =>
      `${client} asks for access to the workspace ${workspace}.`,
    signedInAs: (email: string) => `Signed in as ${email}`,
    redirectsTo: (host: string) => `After your decision you return to ${host}.`,
    publishedBy: (host: string) => `This application describes itself at ${host}.`,
    loopbackWarning:
      "It returns to a program on this computer (localhost): allow only if you just started the connection from that program yourself.",
    scopesLegend: "Permissions (you may remove some)",
    scopes: {
      read: "read – recall and list your memories",
      write: "write – store, update and link memories",
      admin: "admin – manage webhooks and plan-relevant settings",
    },
    allow: "Allow",
    deny: "Deny",
    revokeHint: "You can revoke this connection at any time under Tokens in the dashboard.",
    errorTitle: "This request cannot be completed",
    onboardingTitle: "Create your workspace first",
    onboardingLead: "Your account has no workspace yet. Create one, then connect the assistant again.",
    onboardingLink: "Create workspace",
  },
  de: {
    signInTitle: "Anmelden und verbinden",
    signInLead: (client: string) =>
      `${client} möchte sich mit Ihrem Gedächtnis verbinden. Melden Sie sich mit Ihrer E-Mail-Adresse an; wir senden Ihnen einen Anmeldelink.`,
    email: "E-Mail-Adresse",
    sendLink: "Anmeldelink senden",
    sentTitle: "Bitte prüfen Sie Ihre E-Mails",
    sentLead: (email: string) =>
      `Wir haben einen Anmeldelink an ${email} gesendet. Öffnen Sie ihn in diesem Browser, um fortzufahren; er ist 24 Stunden gültig.`,
    consentTitle: "Zugriff erlauben?",
    consentLead: (client: string, workspace: string) =>
      `${client} bittet um Zugriff auf den Arbeitsbereich ${workspace}.`,
    signedInAs: (email: string) => `Angemeldet als ${email}`,
    redirectsTo: (host: string) => `Nach Ihrer Entscheidung geht es zurück zu ${host}.`,
    publishedBy: (host: string) => `Diese Anwendung beschreibt sich unter ${host}.`,
    loopbackWarning:
      "Sie führt zu einem Programm auf diesem Computer (localhost) zurück: Erlauben Sie nur, wenn Sie die Verbindung gerade selbst in diesem Programm gestartet haben.",
    scopesLegend: "Berechtigungen (Sie können einzelne entfernen)",
    scopes: {
      read: "read – Erinnerungen abrufen und auflisten",
      write: "write – Erinnerungen speichern, aktualisieren und verknüpfen",
      admin: "admin – Webhooks und planrelevante Einstellungen verwalten",
    },
    allow: "Erlauben",
    deny: "Ablehnen",
    revokeHint: "Sie können diese Verbindung jederzeit im Dashboard unter Tokens widerrufen.",
    errorTitle: "Diese Anfrage kann nicht ausgeführt werden",
    onboardingTitle: "Legen Sie zuerst Ihren Arbeitsbereich an",
    onboardingLead:
      "Ihr Konto hat noch keinen Arbeitsbereich. Legen Sie einen an und verbinden Sie den Assistenten dann erneut.",
    onboardingLink: "Arbeitsbereich anlegen",
  },
} as const;

export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** `lang` wins; otherwise the first of Accept-Language that we speak; English by default. */
export function pickLanguage(lang: string | undefined, acceptLanguage: string | undefined): Language {
  if (lang === "de" || lang === "en") return lang;
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { tag: tag.toLowerCase(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    if (tag.startsWith("de")) return "de";
    if (tag.startsWith("en")) return "en";
  }
  return "en";
}

/** The dashboard's look: system font, light card on a grey page, one accent colour. */
const STYLE = `
:root{color-scheme:light dark;--accent:#4f46e5;--bg:#f4f4f5;--card:#fff;--text:#18181b;--muted:#52525b;--border:#e4e4e7}
@media (prefers-color-scheme:dark){:root{--bg:#09090b;--card:#18181b;--text:#fafafa;--muted:#a1a1aa;--border:#27272a}}
*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
main{background:var(--card);border:1px solid var(--border);border-radius:12px;padding:2rem;max-width:28rem;width:100%;margin:1rem}
h1{font-size:1.25rem;margin:0 0 1rem}p{margin:0 0 1rem}.muted{color:var(--muted);font-size:.875rem}
label{display:block;margin:.5rem 0}input[type=email]{width:100%;padding:.6rem;border:1px solid var(--border);border-radius:8px;font:inherit;background:transparent;color:inherit}
fieldset{border:1px solid var(--border);border-radius:8px;margin:0 0 1rem;padding:.5rem 1rem}
.actions{display:flex;gap:.75rem;margin-top:1rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid var(--border);cursor:pointer;background:transparent;color:inherit}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}code{font-size:.875rem}`;

function page(lang: Language, title: string, body: string): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

const hidden = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");

/**
 * Characters that can make a name read as another: controls, and the bidirectional formatting
 * characters (U+061C, U+200E/F, U+202A–202E, U+2066–2069) that reorder what follows them.
 */
const DECEPTIVE = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * How the pages name a client: its self-chosen name cleaned of deceptive characters, beside a host
 * the user can check. For a client ID metadata document that host is the client_id URL's — the one
 * thing about it the server verified (the draft's "OAuth Phishing Attacks": show the hostname);
 * its `client_uri` is only a claim and is not shown. A nameless client is called by that host.
 */
export function clientLabel(name: string, host: string | undefined): string {
  const clean = name.replace(/\s+/g, " ").replace(DECEPTIVE, "").trim().slice(0, 80);
  if (clean === "") return host ?? "MCP client";
  return host === undefined || clean === host ? clean : `${clean} (${host})`;
}

export function signInPage(
  lang: Language,
  input: { clientName: string; action: string; returnTo: string; problem?: string },
): string {
  const t = TEXT[lang];
  return page(
    lang,
    t.signInTitle,
    `<h1>${escapeHtml(t.signInTitle)}</h1><p>${escapeHtml(t.signInLead(input.clientName))}</p>${
      input.problem ? `<p role="alert">${escapeHtml(input.problem)}</p>` : ""
    }<form method="post" action="${escapeHtml(input.action)}">${hidden({ return_to: input.returnTo, lang })}<label>${escapeHtml(t.email)}<input type="email" name="email" required autocomplete="email"></label><div class="actions"><button class="primary" type="submit">${escapeHtml(t.sendLink)}</button></div></form>`,
  );
}

export function linkSentPage(lang: Language, email: string): string {
  const t = TEXT[lang];
  return page(
    lang,
    t.sentTitle,
    `<h1>${escapeHtml(t.sentTitle)}</h1><p>${escapeHtml(t.sentLead(email))}</p>`,
  );
}

export function consentPage(
  lang: Language,
  input: {
    clientName: string;
    clientUri: string | undefined;
    /**
     * A client ID metadata document's host (the client_id URL's), shown so the user can tell who
     * describes the client (draft-ietf-oauth-client-id-metadata-document 6 "OAuth Phishing Attacks").
     */
    metadataDocumentHost?: string | undefined;
    /** The redirect URI is on loopback: anyone's local program could claim to be a document client. */
    loopbackRedirect?: boolean;
    workspace: string;
    email: string;
    redirectHost: string;
    requested: readonly string[];
    action: string;
    fields: Readonly<Record<string, string>>;
  },
): string {
  const t = TEXT[lang];
  const scopes = input.requested
    .map(
      (s) =>
        `<label><input type="checkbox" name="scope" value="${escapeHtml(s)}" checked> ${escapeHtml(
          t.scopes[s as keyof typeof t.scopes] ?? s,
        )}</label>`,
    )
    .join("");
  const client = clientLabel(
    input.clientName,
    input.metadataDocumentHost ?? (input.clientUri ? new URL(input.clientUri).host : undefined),
  );
  return page(
    lang,
    t.consentTitle,
    `<h1>${escapeHtml(t.consentTitle)}</h1><p>${escapeHtml(t.consentLead(client, input.workspace))}</p><p class="muted">${escapeHtml(
      t.signedInAs(input.email),
    )}</p>${
      input.metadataDocumentHost === undefined
        ? ""
        : `<p class="muted">${escapeHtml(t.publishedBy(input.metadataDocumentHost))}</p>${
            input.loopbackRedirect ? `<p role="alert">${escapeHtml(t.loopbackWarning)}</p>` : ""
          }`
    }<form method="post" action="${escapeHtml(input.action)}">${hidden(input.fields)}<fieldset><legend>${escapeHtml(
      t.scopesLegend,
    )}</legend>${scopes}</fieldset><p class="muted">${escapeHtml(t.redirectsTo(input.redirectHost))} ${escapeHtml(
      t.revokeHint,
    )}</p><div class="actions"><button class="primary" type="submit" name="decision" value="allow">${escapeHtml(
      t.allow,
    )}</button><button type="submit" name="decision" value="deny">${escapeHtml(t.deny)}</button></div></form>`,
  );
}

export function errorPage(lang: Language, error: string, description: string): string {
  const t = TEXT[lang];
  return page(
    lang,
    t.errorTitle,
    `<h1>${escapeHtml(t.errorTitle)}</h1><p>${escapeHtml(description)}</p><p class="muted"><code>${escapeHtml(error)}</code></p>`,
  );
}

export function onboardingPage(lang: Language, publicUrl: string): string {
  const t = TEXT[lang];
  return page(
    lang,
    t.onboardingTitle,
    `<h1>${escapeHtml(t.onboardingTitle)}</h1><p>${escapeHtml(t.onboardingLead)}</p><p><a href="${escapeHtml(
      `${publicUrl}/onboarding`,
    )}">${escapeHtml(t.onboardingLink)}</a></p>`,
  );
}
