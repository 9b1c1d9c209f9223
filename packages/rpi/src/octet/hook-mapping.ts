/**
 * octet's hooks as pi lifecycle events: which pi event answers which octet hook, the event data
 * built from the hook payload, and the octet hook result built from the extension's reduced
 * handler value (the prelude reduces across one extension's handlers as pi does; the host
 * combines extensions as octet does: the first deny stops the chain).
 *
 * before_tool_call <- tool_call ({block, reason} -> deny)
 * after_tool_call  <- tool_result (observed; a rewrite is refused with a diagnostic)
 * before_prompt    <- input ({action:"handled"} and {action:"transform"} -> deny) and before_agent_start
 *                     (systemPrompt and message -> context contributions)
 * after_response   <- agent_end
 */

export interface PiHookCall {
  event: string;
  data: Record<string, unknown>;
}

/** The octet hooks an extension answers, from the pi events it registered. */
export function octetHooksFor(piEvents: readonly string[]): string[] {
  const hooks = new Set<string>();
  for (const e of piEvents) {
    if (e === "tool_call") hooks.add("before_tool_call");
    else if (e === "tool_result") hooks.add("after_tool_call");
    else if (e === "input" || e === "before_agent_start") hooks.add("before_prompt");
    else if (e === "agent_end") hooks.add("after_response");
  }
  return [...hooks];
}

/** The pi events to invoke, in order, for one octet hook/run. */
export function piCallsFor(hook: string, payload: Record<string, unknown>, piEvents: readonly string[]): PiHookCall[] {
  const has = (e: string): boolean => piEvents.includes(e);
  const calls: PiHookCall[] = [];
  switch (hook) {
    case "before_tool_call":
      if (has("tool_call"))
        calls.push({ event: "tool_call", data: { toolName: payload["name"], input: payload["arguments"] ?? {} } });
      break;
    case "after_tool_call":
      if (has("tool_result")) {
        calls.push({
          event: "tool_result",
          data: {
            toolName: payload["name"],
            input: payload["arguments"] ?? {},
            content: [{ type: "text", text: String(payload["output"] ?? "") }],
            isError: payload["is_error"] === true,
          },
        });
      }
      break;
    case "before_prompt":
      if (has("input"))
        calls.push({ event: "input", data: { text: String(payload["prompt"] ?? ""), source: "interactive" } });
      // octet does not hand the system prompt to hooks: handlers that chain it start from "" and
      // what they add becomes a system_suffix contribution.
      if (has("before_agent_start"))
        calls.push({
          event: "before_agent_start",
          data: { prompt: String(payload["prompt"] ?? ""), systemPrompt: "" },
        });
      break;
    case "after_response":
      if (has("agent_end")) calls.push({ event: "agent_end", data: { response: String(payload["response"] ?? "") } });
      break;
  }
  return calls;
}

export interface OctetHookResult {
  disposition: { action: "continue" } | { action: "deny"; reason: string };
  context: { label: string; content: string; placement: "system_suffix" | "prompt_prefix" }[];
  notifications: never[];
}

/** Text of a pi message's content: a string, or the text parts of a content array. */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => ((p as { type?: unknown }).type === "text" ? String((p as { text?: unknown }).text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
}

/**
 * Folds the extension's answers to the calls of one hook into an octet hook result, and says
 * what it could not apply. octet's hooks cannot rewrite a tool's arguments or the prompt, so a
 * tool_call that edited its input and an input transform are denied (fail closed: running the
 * unedited arguments or prompt would do what the extension meant to prevent), and a tool_result
 * rewrite is reported as refused.
 */
export function octetHookResult(answers: readonly { event: string; value: unknown; data: Record<string, unknown> }[]): {
  result: OctetHookResult;
  unapplied: string[];
} {
  const result: OctetHookResult = { disposition: { action: "continue" }, context: [], notifications: [] };
  const unapplied: string[] = [];
  for (const { event, value, data } of answers) {
    const v = (value ?? {}) as Record<string, unknown>;
    if (event === "tool_call") {
      if (v["block"] === true) {
        result.disposition = {
          action: "deny",
          reason: typeof v["reason"] === "string" && v["reason"] ? v["reason"] : "blocked by a tool_call hook",
        };
        break;
      }
      if (v["input"] !== undefined && JSON.stringify(v["input"]) !== JSON.stringify(data["input"])) {
        result.disposition = {
          action: "deny",
          reason:
            "a tool_call hook changed the tool's arguments, which octet cannot apply; the call is refused rather " +
            "than run with the original arguments",
        };
        break;
      }
    }
    if (event === "input") {
      if (v["action"] === "handled") {
        result.disposition = { action: "deny", reason: "handled by the extension's input hook" };
        break;
      }
      // Fail closed, as for a tool_call that edited its input: the extension meant the prompt
      // not to go out as it is (a redaction, say), and octet cannot send its version.
      // A transform that leaves the text as it was (a redaction that found nothing) changes nothing.
      const images = v["images"];
      const same =
        v["text"] === data["text"] &&
        (images === undefined || images === null || (Array.isArray(images) && images.length === 0));
      if (v["action"] === "transform" && !same) {
        result.disposition = {
          action: "deny",
          reason:
            "an input hook transformed the prompt, which octet's before_prompt cannot apply; the prompt is refused " +
            "rather than sent unchanged",
        };
        unapplied.push(
          "refused the prompt: an input hook transformed it, and octet's before_prompt cannot rewrite a prompt",
        );
        break;
      }
    }
    // octet's after_tool_call observes a result that is already final: a rewrite cannot be
    // applied, and the one thing left is to say so loudly.
    // Only a real change is a rewrite: a handler that hands the result back as it was (or the
    // prelude, which returns the folded result whenever a handler answered) changes nothing.
    const rewrote = (k: string): boolean => v[k] !== undefined && JSON.stringify(v[k]) !== JSON.stringify(data[k]);
    if (
      event === "tool_result" &&
      value !== null &&
      value !== undefined &&
      ["content", "details", "isError"].some(rewrote)
    ) {
      unapplied.push(
        `a tool_result hook rewrote the result of tool "${String(data["toolName"])}"; octet's after_tool_call cannot ` +
          `change a result, so the rewrite was refused and the original result stands`,
      );
    }
    if (event === "before_agent_start") {
      if (typeof v["systemPrompt"] === "string" && v["systemPrompt"].trim())
        result.context.push({ label: "system prompt", content: v["systemPrompt"].trim(), placement: "system_suffix" });
      const messages = Array.isArray(v["messages"]) ? v["messages"] : v["message"] !== undefined ? [v["message"]] : [];
      for (const m of messages) {
        const text = messageText((m as { content?: unknown } | null)?.content);
        if (text) result.context.push({ label: "message", content: text, placement: "prompt_prefix" });
      }
    }
  }
  return { result, unapplied };
}

/** octet lifecycle notifications -> the pi event each one is delivered as (fire and forget). */
export const LIFECYCLE_TO_PI: Readonly<Record<string, string>> = {
  "session/started": "session_start",
  "session/settled": "session_shutdown",
  "turn/started": "turn_start",
  "turn/settled": "turn_end",
  "tool/started": "tool_execution_start",
  "tool/settled": "tool_execution_end",
};

/** The pi events an octet host delivers: through its hooks (piCallsFor) and lifecycle events. */
// message_update comes from message/updated batches when the host offers message_injection (WAVE1-08).
const DELIVERED_PI_EVENTS: readonly string[] = [
  "tool_call",
  "tool_result",
  "input",
  "before_agent_start",
  "agent_end",
  "message_update",
];

/**
 * The pi events an extension hooked that octet never emits (session_before_compact, context,
 * model_select, ...): their handlers never run, which status says (unsupportedHooks) instead of
 * leaving the author to wonder.
 */
export function undeliveredPiEvents(piEvents: readonly string[]): string[] {
  const lifecycle = Object.values(LIFECYCLE_TO_PI);
  return piEvents.filter((e) => !DELIVERED_PI_EVENTS.includes(e) && !lifecycle.includes(e));
}

/** The lifecycle events to subscribe to for the pi events an extension hooked. */
export function lifecycleSubscriptions(piEvents: readonly string[]): string[] {
  return Object.entries(LIFECYCLE_TO_PI)
    .filter(([, pi]) => piEvents.includes(pi))
    .map(([method]) => method);
}

/** The pi event data of one lifecycle notification (pi's field names; the octet ids kept). */
export function lifecycleEventData(method: string, params: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = { sessionId: params["session_id"] };
  if (params["turn_id"] !== undefined) data["turnId"] = params["turn_id"];
  if (params["tool_call_id"] !== undefined) {
    data["toolCallId"] = params["tool_call_id"];
    data["toolName"] = params["tool_name"];
  }
  if (method === "session/started") data["reason"] = "startup";
  if (method.endsWith("/settled")) {
    data["outcome"] = params["outcome"];
    if (method === "tool/settled") data["isError"] = params["outcome"] !== "completed";
    if (params["reason"] !== undefined && params["reason"] !== null) data["reason"] = params["reason"];
  }
  return data;
}
