import type { CallOptions } from "@connectrpc/connect";
import type { CallToolResult, Icon, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CoreClients } from "../../gateway-kit/core-clients.js";
import { invalidParams } from "../json-rpc-error.js";

/** The user's answer to a confirmation the server asked for (elicitation's `action`). */
export type ConfirmationAnswer = "accept" | "decline" | "cancel";

/**
 * A way to ask the user, through the client, to confirm one action (issue 47, item 5): form
 * elicitation sent on the response stream (2025-11-25) or a multi round-trip input request
 * (2026-07-28). The tool says what to ask; the revision decides how it travels.
 */
export interface UserConfirmation {
  /**
   * `subject` names the action exactly (tool and target): an answer given for one subject is never
   * taken for another. May throw the revision's own signal (2026-07-28: the call ends with an
   * input_required result, and the retry brings the answer).
   */
  ask(request: { readonly subject: string; readonly message: string }): Promise<ConfirmationAnswer>;
}

/** What a tool's translation gets per call: the core clients and the caller's forwarded credentials. */
export interface ToolContext {
  readonly clients: CoreClients;
  readonly callOptions: CallOptions;
  /**
   * How to ask the user, when the request's revision and the client offer a way (form elicitation
   * declared); undefined otherwise (2025-06-18, or no elicitation capability): tools then fall back
   * to an explicit argument.
   */
  readonly confirmation?: UserConfirmation;
}

/** A tool's answer: the structured result, plus an optional plain-text note for the assistant. */
export interface ToolOutcome<O> {
  readonly structured: O;
  readonly note?: string;
  /**
   * The call was refused by the tool itself, for the model to read and act on (MCP 2025-06-18
   * "Error Handling": a tool execution error, not a protocol error) — only service_erase_memory
   * without confirm. Every other failure is a JSON-RPC error (docs/mcp.md "Errors").
   */
  readonly isError?: true;
}

/**
 * MCP 2025-06-18 "Tool annotations" (schema `ToolAnnotations`), every hint stated: left out, a hint
 * takes the spec's default (destructive true, idempotent false, open world true), and some clients
 * read destructiveHint even on read-only tools although the spec calls it meaningful only when
 * readOnlyHint is false. The title is the tool's own `title`. openWorldHint is false for every tool
 * that touches only the caller's workspace; true only for service_fetch_web_page, which reads the web.
 */
export interface ToolHints {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The hints of a tool that only reads: nothing changes, so a repeat changes nothing either. */
export const READ_ONLY_HINTS: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** One tool as its file declares it: schemas, description, annotations and translation together. */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  readonly name: string;
  readonly title: string;
  /** Written for an assistant deciding whether to call the tool. */
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolHints;
  /** Listed from revision 2025-11-25 on (SEP-973); tools/tool-icons.ts. */
  readonly icons: readonly Icon[];
  /**
   * Arguments the published schema marks required although a missing value is passed on as empty:
   * the spec files "content missing or empty" under core's content_required (-32603), not -32602.
   */
  readonly requiredForCore?: readonly string[];
  call(args: z.output<I>, context: ToolContext): Promise<ToolOutcome<z.output<O>>>;
}

/** A tool with its types erased, as tools/list and tools/call use it. */
export interface RegisteredTool {
  readonly name: string;
  /** The tools/list entry of revision 2025-06-18 (no icons: that revision's Tool has none). */
  readonly listing: Tool;
  /** The tools/list entry of 2025-11-25 and 2026-07-28: the same plus `icons`. */
  readonly listingWithIcons: Tool;
  /** The zod form of outputSchema, for tests. */
  readonly output: z.ZodObject;
  /** Validates arguments against the published inputSchema (-32602) and returns the call to make. */
  prepare(args: unknown): (context: ToolContext) => Promise<CallToolResult>;
}

type JsonObjectSchema = Tool["inputSchema"];

/** zod → JSON Schema draft-07 (what the SDK's ajv validator and most MCP clients read). */
function jsonSchemaOf(schema: z.ZodObject, io: "input" | "output"): JsonObjectSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<
    string,
    unknown
  >;
  return { ...rest, type: "object" };
}

/** The first problem with the arguments, in words an assistant can act on. */
function describeIssue(issue: z.core.$ZodIssue): { message: string; field: string | undefined } {
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : undefined;
  if (issue.code === "unrecognized_keys") {
    return {
      message: `unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`,
      field: issue.keys[0],
    };
  }
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return { message: `${field ?? "argument"} is required`, field };
  }
  return { message: field ? `${field}: ${issue.message}` : issue.message, field };
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): RegisteredTool {
  const inputSchema = jsonSchemaOf(spec.input, "input");
  if (spec.requiredForCore) {
    inputSchema.required = [...(inputSchema.required ?? []), ...spec.requiredForCore];
  }
  const listing: Tool = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema,
    outputSchema: jsonSchemaOf(spec.output, "output"),
    annotations: { title: spec.title, ...spec.annotations },
  };
  return {
    name: spec.name,
    listing,
    listingWithIcons: { ...listing, icons: [...spec.icons] },
    output: spec.output,
    prepare(args) {
      const parsed = spec.input.safeParse(args ?? {});
      if (!parsed.success) {
        const [first] = parsed.error.issues;
        const { message, field } = first
          ? describeIssue(first)
          : { message: "invalid arguments", field: undefined };
        throw invalidParams(`Invalid arguments for tool ${spec.name}: ${message}`, field);
      }
      return async (context) => {
        const outcome = await spec.call(parsed.data, context);
        // MCP 2025-06-18 "Structured Content": the same JSON also as text for clients that read only content.
        const content: CallToolResult["content"] = [
          { type: "text", text: JSON.stringify(outcome.structured) },
        ];
        if (outcome.note) content.push({ type: "text", text: outcome.note });
        return {
          content,
          structuredContent: outcome.structured,
          ...(outcome.isError ? { isError: true } : {}),
        };
      };
    },
  };
}
