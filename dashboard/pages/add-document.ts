import { type ComponentChildren, h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNotice, Field, Notice, TextArea } from "../ui.js";

// "Add document" in the explorer (issue 49 item 6, issue 48 item 1): the text typed in or read from a
// plain-text or Markdown file in the browser (File.text()) goes to the one documents ingest (POST
// /api/documents, upsert by title); a PDF, Word (.docx) or HTML file is sent as it is to the file
// upload (POST /api/documents/upload, multipart), whose text core extracts. Both with the session and
// its X-CSRF-Token. Other files are refused here before anything is sent.

/** Spec "Quotas and sizes": document upload 10 MB (core checks the same, in UTF-8 bytes). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** What the browser reads as text itself. */
const TEXT_FILE = /\.(txt|md)$/i;
/** What the server reads (core's type sniffing decides; the name only picks the route here). */
const UPLOADED_FILE = /\.(pdf|docx|html?)$/i;

/** The file's name as a title, without its ending ("Meeting notes.md" → "Meeting notes"). */
export const titleOf = (fileName: string) => fileName.replace(TEXT_FILE, "").replace(UPLOADED_FILE, "");

/** Waits between looks at the newest list while the worker indexes: quick at first, then calmer. */
const POLL_MS = [500, 1000, 1000, 2000, 2000, 3000, 5000];
/** After this long the page stops looking; the document still appears once indexed. */
const POLL_LIMIT_MS = 120_000;

type Progress =
  | { readonly state: "queued"; readonly title: string }
  | { readonly state: "stored"; readonly title: string }
  | { readonly state: "slow"; readonly title: string };

/** A chosen file: read in the browser (text), or sent as it is for the server to read (upload). */
interface ReadFile {
  readonly name: string;
  readonly text: string;
  readonly bytes: number;
  readonly upload?: File;
}

/** The upload's answer (REST UploadedFile), the fields the page uses. */
interface UploadedFile {
  readonly memoryId: string;
  readonly status: string;
}

export function AddDocument(props: {
  /** The document is indexed: the explorer reads its newest list again and may open it. */
  onStored: (id: string) => void;
}): ComponentChildren {
  const [title, setTitle] = useState("");
  const [text, setText] = useState("");
  const [file, setFile] = useState<ReadFile | undefined>();
  const [refused, setRefused] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [progress, setProgress] = useState<Progress | undefined>();
  const [busy, setBusy] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  // The title the last file suggested: replaced by the next file's name unless the user changed it.
  const suggested = useRef("");
  // The page's look for the indexed document; stopped when another one is sent or the page closes.
  const polling = useRef(0);
  useEffect(
    () => () => {
      polling.current += 1;
    },
    [],
  );

  const clearFile = () => {
    setFile(undefined);
    if (picker.current) picker.current.value = "";
  };

  const choose = async (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const chosen = input.files?.[0];
    setRefused(undefined);
    setError(undefined);
    setFile(undefined);
    // A finished document's notice has done its job; one still being indexed keeps its own.
    setProgress((old) => (old?.state === "queued" ? old : undefined));
    if (!chosen) return;
    if (!TEXT_FILE.test(chosen.name) && !UPLOADED_FILE.test(chosen.name)) {
      setRefused(t("docRefusedType", { name: chosen.name }));
      input.value = "";
      return;
    }
    if (chosen.size > MAX_DOCUMENT_BYTES) {
      setRefused(t("docRefusedSize", { name: chosen.name, size: megabytes(chosen.size) }));
      input.value = "";
      return;
    }
    if (UPLOADED_FILE.test(chosen.name)) {
      setFile({ name: chosen.name, text: "", bytes: chosen.size, upload: chosen });
    } else {
      setFile({ name: chosen.name, text: await chosen.text(), bytes: chosen.size });
    }
    if (title === "" || title === suggested.current) {
      suggested.current = titleOf(chosen.name);
      setTitle(suggested.current);
    }
  };

  /** Looks at the newest memories until the document is there (queued documents are listed once indexed). */
  const watch = async (id: string, shownTitle: string) => {
    const run = ++polling.current;
    const started = Date.now();
    for (let i = 0; Date.now() - started < POLL_LIMIT_MS; i++) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS[Math.min(i, POLL_MS.length - 1)]));
      if (run !== polling.current) return;
      try {
        const r = await api<{ items: { id: string }[] }>("GET", "/api/memory/recent?k=50");
        if (run !== polling.current) return;
        if (r.items.some((item) => item.id === id)) {
          setProgress({ state: "stored", title: shownTitle });
          props.onStored(id);
          return;
        }
      } catch (e) {
        setError(e);
        return;
      }
    }
    if (run === polling.current) setProgress({ state: "slow", title: shownTitle });
  };

  const content = file ? file.text : text;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setRefused(undefined);
    setBusy(true);
    try {
      const sent = title.trim();
      let queuedId: string | undefined;
      if (file?.upload) {
        const form = new FormData();
        form.append("file", file.upload, file.name);
        form.append("title", sent);
        form.append("source", file.name);
        const r = await api<UploadedFile>("POST", "/api/documents/upload", form);
        // Small files are indexed in the call (201, or 200 unchanged); larger ones are queued (202).
        if (r.status === "queued") queuedId = r.memoryId;
        else {
          setProgress({ state: "stored", title: sent });
          props.onStored(r.memoryId);
        }
      } else {
        const r = await api<{ documentId: string; status: string }>("POST", "/api/documents", {
          title: sent,
          content,
          ...(file ? { source: file.name } : {}),
        });
        queuedId = r.documentId;
      }
      if (queuedId !== undefined) setProgress({ state: "queued", title: sent });
      // The form starts over for the next document; the notice stays until it is indexed.
      setTitle("");
      setText("");
      suggested.current = "";
      clearFile();
      if (queuedId !== undefined) void watch(queuedId, sent);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return h(
    "form",
    { class: "card add-document", onSubmit: submit, "data-testid": "add-document" },
    h("h2", null, t("addDocument")),
    h("p", { class: "help" }, t("addDocumentLead")),
    error ? h(ErrorNotice, { error }) : null,
    refused ? h(Notice, { kind: "error" }, refused) : null,
    progress
      ? h(
          "p",
          {
            role: "status",
            class: `notice ${progress.state === "slow" ? "warn" : "info"}`,
            "data-testid": "doc-progress",
          },
          t(
            progress.state === "queued" ? "docQueued" : progress.state === "stored" ? "docStored" : "docSlow",
            {
              title: progress.title,
            },
          ),
        )
      : null,
    h(Field, {
      label: t("docTitle"),
      name: "document-title",
      value: title,
      onInput: setTitle,
      required: true,
      help: t("docTitleHelp"),
    }),
    h(FilePicker, { picker, onChange: (e: Event) => void choose(e) }),
    file
      ? h(
          "p",
          { class: "help", "data-testid": "doc-file" },
          t(file.upload ? "docFileChosen" : "docFileRead", { name: file.name, size: kilobytes(file.bytes) }),
          " ",
          h("button", { type: "button", class: "link", onClick: clearFile }, t("docFileRemove")),
        )
      : h(TextArea, { label: t("docText"), name: "document-text", value: text, onInput: setText, rows: 6 }),
    h(
      "button",
      { type: "submit", disabled: busy || title.trim() === "" || (!file?.upload && content.trim() === "") },
      t("docSend"),
    ),
  );
}

/** The file input with its label; accept= only narrows the browser's dialog, the name is checked again. */
function FilePicker(props: {
  picker: { current: HTMLInputElement | null };
  onChange: (event: Event) => void;
}): ComponentChildren {
  return h(
    "div",
    { class: "field" },
    h("label", { for: "document-file" }, t("docFile")),
    h("input", {
      id: "document-file",
      name: "document-file",
      type: "file",
      accept:
        ".txt,.md,.pdf,.docx,.html,.htm,text/plain,text/markdown,application/pdf,text/html,application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ref: props.picker,
      "aria-describedby": "document-file-help",
      onChange: props.onChange,
    }),
    h("p", { id: "document-file-help", class: "help" }, t("docFileHelp")),
  );
}

const kilobytes = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString()} KB`;
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
