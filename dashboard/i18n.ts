import { de } from "./messages-de.js";
import { en, type MessageKey } from "./messages-en.js";

export type Language = "de" | "en";
export type { MessageKey };

const MESSAGES: Readonly<Record<Language, Record<MessageKey, string>>> = { en, de };

let current: Language = "en";

export function setLanguage(language: Language): void {
  current = language;
  document.documentElement.lang = language;
}

export function language(): Language {
  return current;
}

/** The text of `key` in the current language, with {name} placeholders filled in. */
export function t(key: MessageKey, values: Record<string, string | number> = {}): string {
  return MESSAGES[current][key].replace(/\{(\w+)\}/g, (_m, name: string) => String(values[name] ?? ""));
}

/** A date and time in the current language's format. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return t("never");
  return new Date(iso).toLocaleString(current === "de" ? "de-DE" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "medium",
  });
}

/**
 * A calendar date in the current language's format ("5 January 2027", "5. Januar 2027"): of a
 * moment (ISO date-time) in the browser's time zone; a bare YYYY-MM-DD as that very day.
 */
export function formatDate(iso: string): string {
  const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(iso);
  return new Date(iso).toLocaleDateString(current === "de" ? "de-DE" : "en-GB", {
    dateStyle: "long",
    ...(dayOnly ? { timeZone: "UTC" } : {}),
  });
}
