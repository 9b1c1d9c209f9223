/**
 * pi's session events, delivered by the agent itself to the foreign instances that take them
 * (ExtensionHost.foreignEvents: the rpi runtime's pi extensions, launched with the host's
 * `sessionLayer` option). octet's hooks cannot carry what pi extensions do with these events (a
 * `context` rewrite of the messages, an `input` transform, a `tool_result` rewrite, a cancelled
 * `session_before_compact`), and the agent is the session layer pi extensions were written for,
 * so it sends pi's payloads at pi's points and applies the answers as pi's runner does across
 * extensions, in load (discovery) order. Each instance has already reduced its own handlers the
 * same way (the rpi prelude), so here one answer per instance is chained into the next.
 *
 * A failing instance is said (a notice) and counts as no opinion, except for tool_call, where a
 * failure blocks the call (fail closed, as pi's runner lets a tool_call throw block it).
 */
import type { ExtensionHost } from "@octet/host";
import type { AgentEvent } from "./events.js";
import type { PI_SESSION_EVENTS } from "./pi-event-names.js";

export { PI_SESSION_EVENTS } from "./pi-event-names.js";

export type PiSessionEvent = (typeof PI_SESSION_EVENTS)[number];

type Data = Record<string, unknown>;

const isObject = (v: unknown): v is Data => typeof v === "object" && v !== null && !Array.isArray(v);

/** The image parts pi's input and before_agent_start events carry; octet prompts are text. */
type Images = unknown[] | undefined;

export class PiEvents {
  readonly #host: () => ExtensionHost | null;
  readonly #emit: (e: AgentEvent) => void;

  constructor(host: () => ExtensionHost | null, emit: (e: AgentEvent) => void) {
    this.#host = host;
    this.#emit = emit;
  }

  /** Whether any instance takes `name` now: build a costly payload only then. */
  takes(name: PiSessionEvent): boolean {
    return (this.#host()?.foreignEvents(name).length ?? 0) > 0;
  }

  /** An event whose answers pi ignores: each instance in turn, awaited, as pi awaits its handlers. */
  async observe(name: PiSessionEvent, data: Data, signal?: AbortSignal): Promise<void> {
    await this.#each(
      name,
      () => data,
      signal,
      () => false,
    );
  }

  /** input: transforms chain, "handled" stops (the prompt goes no further). */
  async input(
    text: string,
    source: "interactive" | "rpc" | "extension",
    signal?: AbortSignal,
  ): Promise<{ handled: string } | { text: string; images: Images }> {
    let current = { text, images: undefined as Images };
    let handledBy: string | null = null;
    await this.#each(
      "input",
      () => ({ text: current.text, ...(current.images ? { images: current.images } : {}), source }),
      signal,
      (answer, extension) => {
        if (!isObject(answer)) return false;
        if (answer["action"] === "handled") {
          handledBy = extension;
          return true;
        }
        if (answer["action"] === "transform" && typeof answer["text"] === "string")
          current = {
            text: answer["text"],
            images: Array.isArray(answer["images"]) ? answer["images"] : current.images,
          };
        return false;
      },
    );
    return handledBy !== null ? { handled: handledBy } : current;
  }

  /** before_agent_start: the system prompt chains; each message an instance returns is kept. */
  async beforeAgentStart(
    prompt: string,
    systemPrompt: string,
    signal?: AbortSignal,
  ): Promise<{ systemPrompt: string; messages: { extension: string; message: Data }[] }> {
    let current = systemPrompt;
    const messages: { extension: string; message: Data }[] = [];
    await this.#each(
      "before_agent_start",
      () => ({ prompt, systemPrompt: current, systemPromptOptions: {} }),
      signal,
      (answer, extension) => {
        if (!isObject(answer)) return false;
        if (typeof answer["systemPrompt"] === "string") current = answer["systemPrompt"];
        const list = Array.isArray(answer["messages"]) ? answer["messages"] : [answer["message"]];
        for (const m of list) if (isObject(m)) messages.push({ extension, message: m });
        return false;
      },
    );
    return { systemPrompt: current, messages };
  }

  /** context: each instance gets the messages the one before it returned; the last list is sent. */
  async context<M>(messages: M[], signal?: AbortSignal): Promise<M[]> {
    // A deep copy, as pi's: a handler that edits the list in place must not change the session.
    let current = structuredClone(messages);
    await this.#each(
      "context",
      () => ({ messages: current }),
      signal,
      (answer) => {
        if (isObject(answer) && Array.isArray(answer["messages"])) current = answer["messages"] as M[];
        return false;
      },
    );
    return current;
  }

  /** before_provider_request: any answer replaces the payload for the next instance and the request. */
  async beforeProviderRequest(payload: unknown, signal?: AbortSignal): Promise<unknown> {
    let current = payload;
    await this.#each(
      "before_provider_request",
      () => ({ payload: current }),
      signal,
      (answer) => {
        if (answer !== undefined && answer !== null) current = answer;
        return false;
      },
    );
    return current;
  }

  /**
   * tool_call: the first block wins; arguments an instance edited (pi's in-place `event.input`
   * edit, which the prelude returns as `input`) are what the next instance and the call see. A
   * failing instance blocks the call.
   */
  async toolCall(
    toolCallId: string,
    toolName: string,
    input: Data,
    signal?: AbortSignal,
  ): Promise<{ blocked: string | null; input: Data }> {
    let current = input;
    let blocked: string | null = null;
    const targets = this.#host()?.foreignEvents("tool_call") ?? [];
    for (const t of targets) {
      let answer: unknown;
      try {
        answer = await t.dispatch({ toolCallId, toolName, input: current }, signal);
      } catch (err) {
        return { blocked: `the tool_call hook of ${t.extension} failed: ${messageOf(err)}`, input: current };
      }
      if (!isObject(answer)) continue;
      if (answer["block"] === true) {
        blocked =
          typeof answer["reason"] === "string" && answer["reason"] !== ""
            ? answer["reason"]
            : `blocked by the tool_call hook of ${t.extension}`;
        break;
      }
      if (isObject(answer["input"])) current = answer["input"];
    }
    return { blocked, input: current };
  }

  /** tool_result: content, details and isError chain; null when no instance changed any. */
  async toolResult(
    event: {
      toolCallId: string;
      toolName: string;
      input: Data;
      content: unknown[];
      details: unknown;
      isError: boolean;
    },
    signal?: AbortSignal,
  ): Promise<{ content: unknown[]; details: unknown; isError: boolean } | null> {
    const current = { ...event };
    let changed = false;
    await this.#each(
      "tool_result",
      () => ({ ...current }),
      signal,
      (answer) => {
        if (!isObject(answer)) return false;
        if (Array.isArray(answer["content"])) {
          current.content = answer["content"];
          changed = true;
        }
        if (answer["details"] !== undefined) {
          current.details = answer["details"];
          changed = true;
        }
        if (typeof answer["isError"] === "boolean") {
          current.isError = answer["isError"];
          changed = true;
        }
        return false;
      },
    );
    return changed ? { content: current.content, details: current.details, isError: current.isError } : null;
  }

  /**
   * A session_before_* event: the last answer that says something is the result, and a cancel
   * stops there (pi's runner). null when no instance answered.
   */
  async sessionBefore(
    name: "session_before_switch" | "session_before_compact" | "session_before_fork" | "session_before_tree",
    data: Data,
    signal?: AbortSignal,
  ): Promise<(Data & { extension: string }) | null> {
    let result: (Data & { extension: string }) | null = null;
    await this.#each(
      name,
      () => data,
      signal,
      (answer, extension) => {
        if (!isObject(answer)) return false;
        result = { ...answer, extension };
        return answer["cancel"] === true;
      },
    );
    return result;
  }

  /**
   * user_bash: the first instance that answers with a `result` ({output, exitCode, cancelled,
   * truncated}) replaces the run (pi's runner: the first handler result wins). An `operations`
   * answer is run inside the extension, which answers with the result it collected; a chunk of its
   * output may come before as an update ({output}), passed to `onOutput`.
   */
  async userBash(
    event: { command: string; excludeFromContext: boolean; cwd: string },
    signal?: AbortSignal,
    onOutput?: (text: string) => void,
  ): Promise<(Data & { extension: string }) | null> {
    let result: (Data & { extension: string }) | null = null;
    await this.#each(
      "user_bash",
      () => event,
      signal,
      (answer, extension) => {
        if (!isObject(answer) || !isObject(answer["result"])) return false;
        result = { ...answer["result"], extension };
        return true;
      },
      onOutput,
    );
    return result;
  }

  /** Each instance in turn with `data()`, read per instance so answers chain; `take` returns true to stop. */
  reduce(
    name: PiSessionEvent,
    data: () => Data,
    signal: AbortSignal | undefined,
    take: (answer: unknown, extension: string) => boolean,
  ): Promise<void> {
    return this.#each(name, data, signal, take);
  }

  /** Each instance that takes `name`, in order; `take` returns true to stop. Failures are notices. */
  async #each(
    name: PiSessionEvent,
    data: () => Data,
    signal: AbortSignal | undefined,
    take: (answer: unknown, extension: string) => boolean,
    onOutput?: (text: string) => void,
  ): Promise<void> {
    const targets = this.#host()?.foreignEvents(name) ?? [];
    for (const t of targets) {
      if (signal?.aborted) return;
      let answer: unknown;
      try {
        answer = await t.dispatch(data(), signal, onOutput && outputUpdates(onOutput));
      } catch (err) {
        this.#emit({ type: "notice", level: "warning", source: t.extension, text: messageOf(err) });
        continue;
      }
      if (take(answer, t.extension)) return;
    }
  }
}

/** An update of a user_bash answer that runs in the extension: `{output}`, a chunk of its output. */
function outputUpdates(onOutput: (text: string) => void): (value: unknown) => void {
  return (value) => {
    if (isObject(value) && typeof value["output"] === "string") onOutput(value["output"]);
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
