import { type ComponentChildren, h } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { ErrorNotice, Field, Select, TextArea } from "../ui.js";
import { label, titles, type Version } from "./memory-graphs.js";

// The explorer's editing forms (issue 49 item 6, ADR 0452): a fact update, a link, an erasure. Each
// goes through the REST routes any script would use, with the session and its X-CSRF-Token.

/** GET /api/graph/schema `relationTypes`: the registry, with its shape rules. */
export interface RelationTypeInfo {
  readonly name: string;
  readonly inverse: string;
  readonly symmetric: boolean;
  readonly sourceKinds: readonly string[];
  readonly targetKinds: readonly string[];
  readonly allowSelfLoop: boolean;
  readonly description: string;
}

/** What a shape rule looks at: the memory's kind (document, entry) and its memory type. */
export interface Endpoint {
  readonly kind: string;
  readonly memoryType: string;
}

/**
 * SUPERSEDES and its inverse record a fact's history; only a fact update writes them and core refuses
 * them in link and unlink (rule rel_type_reserved), so the forms never offer them.
 */
export const LINEAGE_TYPES: ReadonlySet<string> = new Set(["SUPERSEDES", "SUPERSEDED_BY"]);

/** A shape rule's list admits an endpoint when it is empty or names its kind or its memory type. */
const admits = (kinds: readonly string[], end: Endpoint) =>
  kinds.length === 0 || kinds.includes(end.kind) || kinds.includes(end.memoryType);

/** The registry's types a user may link from `source` to `target` (shape rules, no lineage types). */
export function fittingTypes(
  types: readonly RelationTypeInfo[],
  source: Endpoint,
  target: Endpoint,
): RelationTypeInfo[] {
  return types.filter(
    (r) => !LINEAGE_TYPES.has(r.name) && admits(r.sourceKinds, source) && admits(r.targetKinds, target),
  );
}

let schema: Promise<RelationTypeInfo[]> | undefined;

/** The relation-type registry, read once per page load (it changes only with a new release). */
function relationTypes(): Promise<RelationTypeInfo[]> {
  schema ??= api<{ relationTypes: RelationTypeInfo[] }>("GET", "/api/graph/schema")
    .then((r) => r.relationTypes)
    .catch((e: unknown) => {
      schema = undefined;
      throw e;
    });
  return schema;
}

/** The newest version of a fact (the one an update supersedes), with its kind and type. */
export const currentVersion = (versions: readonly Version[]) =>
  versions.findLast((v) => v.validTo === null) ?? versions.at(-1);

/**
 * Update a fact: the edit box starts with the current version's full text (not a snippet); saving
 * writes a new version with the reason and closes the old one (POST /api/memory/{id}/versions).
 */
export function FactEditor(props: { current: Version; onSaved: (newId: string) => void }): ComponentChildren {
  const [title, setTitle] = useState(props.current.title);
  const [content, setContent] = useState(props.current.content ?? "");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // Another memory or a newer version chosen: start again from its text.
  useEffect(() => {
    setTitle(props.current.title);
    setContent(props.current.content ?? "");
    setReason("");
    setError(undefined);
  }, [props.current.id]);
  const unchanged = title === props.current.title && content === (props.current.content ?? "");
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const r = await api<{ newMemoryId: string }>(
        "POST",
        `/api/memory/${encodeURIComponent(props.current.id)}/versions`,
        { newTitle: title, newContent: content, updateReason: reason },
      );
      titles.set(r.newMemoryId, title);
      props.onSaved(r.newMemoryId);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return h(
    "form",
    { onSubmit: submit, "data-testid": "fact-editor" },
    h("h3", null, t("updateFact")),
    h("p", { class: "help" }, t("updateFactLead")),
    error ? h(ErrorNotice, { error }) : null,
    h(Field, { label: t("factTitle"), name: "fact-title", value: title, onInput: setTitle, required: true }),
    h(TextArea, {
      label: t("factContent"),
      name: "fact-content",
      value: content,
      onInput: setContent,
      rows: 8,
      required: true,
    }),
    h(Field, {
      label: t("updateReason"),
      name: "update-reason",
      value: reason,
      onInput: setReason,
      required: true,
      help: t("updateReasonHelp"),
    }),
    h(
      "button",
      {
        type: "submit",
        disabled: busy || unchanged || reason.trim() === "" || title.trim() === "" || content.trim() === "",
      },
      t("saveVersion"),
    ),
  );
}

/**
 * Link this memory to another one the page has seen: the target first, then only the relation types
 * whose shape rules (GET /api/graph/schema) admit both ends, with the chosen type's description.
 */
export function LinkEditor(props: {
  id: string;
  source: Endpoint;
  /** Memories the page has seen (hits, newest), minus this fact's own versions. */
  candidates: readonly string[];
  /** Linked: what to tell the user (the detail shows it above the relations). */
  onLinked: (message: string) => void;
}): ComponentChildren {
  const [types, setTypes] = useState<RelationTypeInfo[] | undefined>();
  const [target, setTarget] = useState("");
  const [targetEnd, setTargetEnd] = useState<Endpoint | undefined>();
  const [relType, setRelType] = useState("");
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    relationTypes()
      .then(setTypes)
      .catch((e: unknown) => setError(e));
  }, []);
  // The target's kind and type decide which relations fit.
  useEffect(() => {
    setTargetEnd(undefined);
    if (!target) return;
    api<{ versions: Version[] }>("GET", `/api/memory/${encodeURIComponent(target)}/versions`)
      .then((r) => {
        const v = currentVersion(r.versions);
        if (v) setTargetEnd({ kind: v.kind, memoryType: v.memoryType });
      })
      .catch((e: unknown) => setError(e));
  }, [target]);
  const fitting = types && targetEnd ? fittingTypes(types, props.source, targetEnd) : [];
  const hidden =
    types && targetEnd ? types.filter((r) => !LINEAGE_TYPES.has(r.name)).length - fitting.length : 0;
  const chosen = fitting.find((r) => r.name === relType) ?? fitting[0];
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!chosen) return;
    setError(undefined);
    try {
      await api("POST", "/api/relations", { fromId: props.id, toId: target, relType: chosen.name });
      props.onLinked(t("linked", { rel: chosen.name, title: label(target) }));
      // The form starts over for the next relation.
      setTarget("");
      setRelType("");
    } catch (e) {
      setError(e);
    }
  };
  return h(
    "form",
    { onSubmit: submit, "data-testid": "link-editor" },
    h("h3", null, t("addRelation")),
    error ? h(ErrorNotice, { error }) : null,
    props.candidates.length === 0
      ? h("p", { class: "help" }, t("noLinkTargets"))
      : h(
          "div",
          null,
          h(Select, {
            label: t("linkTarget"),
            name: "link-target",
            value: target,
            options: [["", t("chooseMemory")], ...props.candidates.map((id) => [id, label(id)] as const)],
            onChange: setTarget,
          }),
          targetEnd
            ? h(
                "div",
                null,
                h(Select, {
                  label: t("relationType"),
                  name: "relation-type",
                  value: chosen?.name ?? "",
                  options: fitting.map((r) => [r.name, r.name] as const),
                  onChange: setRelType,
                }),
                chosen ? h("p", { class: "help", "data-testid": "relation-rule" }, chosen.description) : null,
                hidden > 0
                  ? h(
                      "p",
                      { class: "help", "data-testid": "shape-note" },
                      t("typesHidden", { count: hidden }),
                    )
                  : null,
              )
            : null,
          h("button", { type: "submit", disabled: !chosen || !targetEnd }, t("link")),
        ),
  );
}

/**
 * Erase the whole fact (every version, its chunks, vectors and relations): a dry run first says what
 * would go (DELETE /api/memories/{id}?dryRun=true), and only "Yes, erase" erases.
 */
export function EraseMemory(props: { id: string; onErased: (title: string) => void }): ComponentChildren {
  const [plan, setPlan] = useState<{ title: string; versions: number; chunks: number; edges: number }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const path = `/api/memories/${encodeURIComponent(props.id)}`;
  useEffect(() => {
    setPlan(undefined);
    setError(undefined);
  }, [props.id]);
  const ask = async () => {
    setError(undefined);
    try {
      setPlan(await api("DELETE", `${path}?dryRun=true`));
    } catch (e) {
      setError(e);
    }
  };
  const erase = async () => {
    setBusy(true);
    try {
      const r = await api<{ title: string }>("DELETE", path);
      props.onErased(r.title);
    } catch (e) {
      setError(e);
      setPlan(undefined);
    } finally {
      setBusy(false);
    }
  };
  return h(
    "div",
    { class: "erase", "data-testid": "erase-memory" },
    h("h3", null, t("eraseMemory")),
    h("p", { class: "help" }, t("eraseLead")),
    error ? h(ErrorNotice, { error }) : null,
    plan
      ? h(
          "div",
          { class: "confirm", role: "group", "aria-label": t("eraseMemory") },
          h(
            "p",
            { "data-testid": "erase-plan" },
            t("eraseConfirm", {
              title: plan.title,
              versions: plan.versions,
              chunks: plan.chunks,
              edges: plan.edges,
            }),
          ),
          h(
            "button",
            {
              type: "button",
              class: "danger",
              disabled: busy,
              ref: (el: HTMLButtonElement | null) => el?.focus(),
              onClick: () => void erase(),
            },
            t("eraseYes"),
          ),
          h("button", { type: "button", onClick: () => setPlan(undefined) }, t("cancel")),
        )
      : h("button", { type: "button", class: "danger", onClick: () => void ask() }, t("eraseMemory")),
  );
}
