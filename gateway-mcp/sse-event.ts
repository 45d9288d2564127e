/**
 * One JSON-RPC message as a Streamable HTTP server-sent event (MCP 2025-06-18 transport). No event
 * id: the answer is complete in this one event, so there is nothing to resume; the stream then ends.
 */
export function sseEvent(message: string): string {
  // JSON.stringify never emits raw newlines, so the message fits one data line.
  return `event: message\ndata: ${message}\n\n`;
}
