/**
 * pi's message_start / message_end for the user, assistant and toolResult messages of a run, at
 * the points pi's loop has them: the user message before it is saved, the assistant message when
 * its stream starts and once it is complete, a tool result before it is saved. message_end may
 * return `{message}`, which replaces the finalized message before it is committed; answers chain
 * across extensions. A replacement of another role, or not shaped as a message of its role, is
 * said as a notice and the message is kept as it was (pi requires the same role).
 */
import type { Message } from "@mariozechner/pi-ai";
import type { AgentEvent } from "./events.js";
import type { PiEvents } from "./pi-events.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** message_start (its answers ignored); nothing is built when no extension takes it. */
export async function piMessageStart(pi: PiEvents | null | undefined, message: Message, signal?: AbortSignal) {
  if (pi?.takes("message_start")) await pi.observe("message_start", { message: structuredClone(message) }, signal);
}

/** message_end: the message to commit (a replacement, or `message` itself). */
export async function piMessageEnd<M extends Message>(
  pi: PiEvents | null | undefined,
  message: M,
  emit: (e: AgentEvent) => void,
  signal?: AbortSignal,
): Promise<M> {
  if (!pi?.takes("message_end")) return message;
  let current = message;
  await pi.reduce(
    "message_end",
    () => ({ message: structuredClone(current) }),
    signal,
    (answer, extension) => {
      if (!isObject(answer) || answer["message"] === undefined) return false;
      const why = refusal(answer["message"], current.role);
      if (why === null) current = answer["message"] as M;
      else
        emit({
          type: "notice",
          level: "warning",
          source: extension,
          text: `message_end: the replacement ${why}; the ${current.role} message is kept as it was`,
        });
      return false;
    },
  );
  return current;
}

/** Why `m` cannot replace a message of `role`, or null when it can. */
function refusal(m: unknown, role: string): string | null {
  if (!isObject(m)) return "is not a message object";
  if (m["role"] !== role) return `has role ${JSON.stringify(m["role"])}, not "${role}"`;
  const content = m["content"];
  const textOk = role === "user" && typeof content === "string";
  if (!textOk && !(Array.isArray(content) && content.every(isObject))) return "has no content list";
  return null;
}
