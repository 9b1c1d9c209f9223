/**
 * pi's events of one run (pi-events.ts), at the points pi's agent loop has them: the messages
 * before_agent_start returned (committed after the prompt, as pi places them), agent_start,
 * turn_start / turn_end per model request, the request's `context`, `before_provider_request`
 * and `after_provider_response`, and agent_end with the run's messages. Without a pi extension
 * that takes an event, nothing is built for it.
 */
import type { Message, ToolResultMessage } from "@mariozechner/pi-ai";
import type { JsonValue, SessionEntry, SessionFile } from "../session/index.js";
import type { PiEvents } from "./pi-events.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A pi message's content as the text a custom_message entry holds: a string, or its text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => isObject(p) && p["type"] === "text" && typeof p["text"] === "string")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

export class PiRun {
  readonly #pi: PiEvents | null;
  readonly #session: SessionFile;
  readonly #userEntryId: string;

  constructor(pi: PiEvents | null | undefined, session: SessionFile, userEntryId: string) {
    this.#pi = pi ?? null;
    this.#session = session;
    this.#userEntryId = userEntryId;
  }

  /**
   * Commits before_agent_start's messages (pi's CustomMessage: customType, content, display,
   * details), then delivers agent_start.
   */
  async start(messages: readonly { extension: string; message: Record<string, unknown> }[], signal: AbortSignal) {
    for (const { extension, message } of messages) {
      const details = message["details"];
      await this.#session.append({
        type: "custom_message",
        entry_type:
          typeof message["customType"] === "string" && message["customType"] ? message["customType"] : extension,
        content: contentText(message["content"]),
        display: message["display"] !== false,
        extension,
        // Plain JSON only: whatever else a renderer was handed cannot be kept in the file.
        ...(details !== undefined ? { details: JSON.parse(JSON.stringify(details)) as JsonValue } : {}),
      });
    }
    if (this.#pi?.takes("agent_start")) await this.#pi.observe("agent_start", {}, signal);
  }

  async turnStart(turnIndex: number, signal: AbortSignal): Promise<void> {
    if (this.#pi?.takes("turn_start"))
      await this.#pi.observe("turn_start", { turnIndex, timestamp: Date.now() }, signal);
  }

  async turnEnd(turnIndex: number, message: Message, results: readonly SessionEntry[], signal: AbortSignal) {
    if (!this.#pi?.takes("turn_end")) return;
    const toolResults = results.flatMap((e) =>
      e.type === "message" && e.message.role === "toolResult" ? [e.message as ToolResultMessage] : [],
    );
    await this.#pi.observe("turn_end", { turnIndex, message, toolResults }, signal);
  }

  /** The request's messages after pi's `context` event (a copy: the session is never changed). */
  async context(messages: Message[], signal: AbortSignal): Promise<Message[]> {
    return this.#pi?.takes("context") ? this.#pi.context(messages, signal) : messages;
  }

  /** pi-ai's onPayload and onResponse for this request, only when a pi extension takes them. */
  providerHooks(signal: AbortSignal): {
    onPayload?: (payload: unknown) => Promise<unknown>;
    onResponse?: (r: { status: number; headers: Record<string, string> }) => Promise<void>;
  } {
    const pi = this.#pi;
    if (!pi) return {};
    return {
      ...(pi.takes("before_provider_request")
        ? { onPayload: (payload: unknown) => pi.beforeProviderRequest(payload, signal) }
        : {}),
      ...(pi.takes("after_provider_response")
        ? {
            onResponse: (r: { status: number; headers: Record<string, string> }) =>
              pi.observe("after_provider_response", { status: r.status, headers: r.headers }, signal),
          }
        : {}),
    };
  }

  /** agent_end with the messages of this run: delivered whatever the outcome, as pi does. */
  async end(): Promise<void> {
    if (!this.#pi?.takes("agent_end")) return;
    const path = this.#session.pathToLeaf();
    const from = path.findIndex((e) => e.id === this.#userEntryId);
    const messages = (from < 0 ? [] : path.slice(from)).flatMap((e) => (e.type === "message" ? [e.message] : []));
    // No signal: a cancelled run still ends, and its extensions are told (each bounded by the hook timeout).
    await this.#pi.observe("agent_end", { messages });
  }
}
