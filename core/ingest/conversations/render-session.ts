import { createHash } from "node:crypto";
import type { ContentSegment } from "../../memories/index.js";

/** One turn of a session as stored (conversation_turns) or about to be. */
export interface SessionTurn {
  readonly speaker: string;
  readonly content: string;
  /** The message's time, or when the session first received it. */
  readonly saidAt: Date;
  /** turnKey of the message as sent: what tells a re-sent turn from a new one. */
  readonly key: string;
}

/** The session memory's content and where each turn lies in it. */
export interface RenderedSession {
  readonly content: string;
  readonly segments: readonly ContentSegment[];
  /** The earliest turn time: the memory's valid_from. */
  readonly startedAt: Date;
}

/** Between turns: a blank line, so the content reads as a transcript and as Markdown paragraphs. */
const SEPARATOR = "\n\n";

/**
 * A turn's identity: speaker, content and the time as given (none when the message had none), so a
 * re-sent message is recognised whether or not it carried a time, and two messages that differ only
 * in their time are two turns.
 */
export function turnKey(speaker: string, content: string, at: Date | undefined): string {
  return createHash("sha256")
    .update(`${speaker}\u0000${content}\u0000${at?.toISOString() ?? ""}`)
    .digest("hex");
}

/**
 * The transcript "Speaker: content" per turn, in the order the turns arrived, each turn one segment
 * (chunked alone, valid from its time). Pure: the same turns give the same content, so a re-send
 * that adds nothing finds the stored version identical.
 */
export function renderSession(turns: readonly SessionTurn[]): RenderedSession {
  let content = "";
  const segments: ContentSegment[] = [];
  let startedAt = turns[0]?.saidAt ?? new Date();
  for (const turn of turns) {
    if (content.length > 0) content += SEPARATOR;
    const charStart = content.length;
    content += `${turn.speaker}: ${turn.content}`;
    segments.push({ charStart, charEnd: content.length, label: turn.speaker, validFrom: turn.saidAt });
    if (turn.saidAt < startedAt) startedAt = turn.saidAt;
  }
  return { content, segments, startedAt };
}
