import { seal, unseal } from "./caller-sealed.js";
import type { ConfirmationAnswer, UserConfirmation } from "./tools/tool-definition.js";

/** The form both revisions send: one required yes/no field, so "accept" carries an explicit yes. */
export const CONFIRM_SCHEMA = {
  type: "object",
  properties: {
    confirm: {
      type: "boolean",
      title: "Yes, do it",
      description: "Tick to confirm. It cannot be undone.",
      default: false,
    },
  },
  required: ["confirm"],
} as const;

/** How long an answer to a 2026-07-28 input request may take to come back with the retry. */
export const REQUEST_STATE_TTL_MS = 10 * 60 * 1000;
/** How long a 2025-11-25 tools/call waits on the response stream for the user's answer. */
export const ELICITATION_TIMEOUT_MS = 5 * 60 * 1000;

const INPUT_KEY = "confirm";
const STATE_PURPOSE = "request-state";

/** An ElicitResult (either revision) → the answer; "accept" only with confirm: true. */
export function answerOf(result: unknown): ConfirmationAnswer {
  if (typeof result !== "object" || result === null) return "cancel";
  const { action, content } = result as { action?: unknown; content?: unknown };
  if (action === "accept") {
    const confirmed =
      typeof content === "object" && content !== null && (content as { confirm?: unknown }).confirm;
    return confirmed === true ? "accept" : "decline";
  }
  return action === "decline" ? "decline" : "cancel";
}

/**
 * Thrown by the 2026-07-28 confirmation on the first round: the call ends with this
 * InputRequiredResult (MRTR "Basic Workflow"), and the client retries with the answer.
 */
export class InputRequired extends Error {
  constructor(
    readonly inputRequests: Record<string, unknown>,
    readonly requestState: string,
  ) {
    super("input required");
    this.name = "InputRequired";
  }

  /** The result, framed as 2026-07-28 wants it (no cache hints: interim results carry none). */
  toResult(): Record<string, unknown> {
    return {
      resultType: "input_required",
      inputRequests: this.inputRequests,
      requestState: this.requestState,
    };
  }
}

/**
 * 2026-07-28 multi round-trip confirmation. Round one: an `elicitation/create` form under the key
 * "confirm" plus a `requestState` sealed with the caller's credential, naming the subject and an
 * expiry (the MRTR server requirements: principal, short TTL, the originating request). Round two
 * (a retry with `inputResponses` and that `requestState`): the answer, taken only if the state
 * verifies for this caller and this subject and has not lapsed — else the question is asked again
 * (MRTR "Error Handling": missing information gets a new InputRequiredResult, not an error).
 */
export function multiRoundTripConfirmation(
  params: Record<string, unknown>,
  credential: string,
): UserConfirmation {
  return {
    async ask({ subject, message }) {
      const state = unseal(
        STATE_PURPOSE,
        credential,
        typeof params.requestState === "string" ? params.requestState : undefined,
      );
      const responses = params.inputResponses;
      const response =
        typeof responses === "object" && responses !== null
          ? (responses as Record<string, unknown>)[INPUT_KEY]
          : undefined;
      if (
        state !== undefined &&
        state.subject === subject &&
        typeof state.expires === "number" &&
        state.expires > Date.now() &&
        response !== undefined
      ) {
        return answerOf(response);
      }
      throw new InputRequired(
        {
          [INPUT_KEY]: {
            method: "elicitation/create",
            params: { mode: "form", message, requestedSchema: CONFIRM_SCHEMA },
          },
        },
        seal(STATE_PURPOSE, credential, { subject, expires: Date.now() + REQUEST_STATE_TTL_MS }),
      );
    },
  };
}

/**
 * 2025-11-25 form elicitation: an `elicitation/create` request sent on the tools/call's response
 * stream, the answer awaited from the client's next POST (`sendRequest` does both, mcp-gateway.ts).
 */
export function elicitationConfirmation(
  sendRequest: (method: string, params: Record<string, unknown>) => Promise<unknown>,
): UserConfirmation {
  return {
    async ask({ message }) {
      const result = await sendRequest("elicitation/create", {
        mode: "form",
        message,
        requestedSchema: CONFIRM_SCHEMA,
      });
      return answerOf(result);
    },
  };
}
