/**
 * One run: a prompt and every model request and tool call it leads to, until the model answers
 * without calling a tool, the run is cancelled, a request fails or the turn limit is reached.
 * Order of the touchpoints (wire reference 1.4, 1.5, 1.10): before_prompt (a deny ends it before
 * anything is committed), the user entry, turn/started; per model request: the catalog snapshot
 * and context/collect, the request, the assistant entry, each tool call with its result entry;
 * after_response only after a complete answer (HOOK-07); turn/settled exactly once (LIFE-11).
 * Every entry is committed (written and fsynced) before it is reported.
 */
import {
  stream,
  streamSimple,
  type AssistantMessage,
  type Context,
  type ToolCall,
  type ToolResultMessage,
  type Usage,
  type ThinkingLevel,
  type UserMessage,
} from "@mariozechner/pi-ai";
import type { CatalogSnapshot, ExtensionHost } from "@octet/host";
import type { SessionEntry, SessionFile } from "../session/index.js";
import { buildContext } from "../session/index.js";
import type { ResolvedModel } from "../models/index.js";
import { describeProviderError, requestOptions } from "../models/index.js";
import type { BuiltinTool, ToolApproval } from "../tools/index.js";
import { addUsage, emptyUsage, type AgentEvent, type RunOutcome } from "./events.js";
import { buildRequest, turnBuiltins, type PlacedContext } from "./request.js";
import { noticeOf, runToolCall, textOf } from "./tool-runner.js";
import type { TurnHooks } from "./turn-hooks.js";
import type { PiEvents } from "./pi-events.js";
import { PiRun } from "./pi-run.js";
import { piMessageEnd, piMessageStart } from "./pi-messages.js";

export interface RunScope {
  session: SessionFile;
  model: ResolvedModel;
  host: ExtensionHost | null;
  builtins: readonly BuiltinTool[];
  approval: ToolApproval;
  systemPrompt: string;
  maxTurns: number;
  maxRetries: number | undefined;
  emit: (event: AgentEvent) => void;
  lifecycle: (method: "turn/started" | "turn/settled" | "tool/started" | "tool/settled", p: object) => void;
  /** Compacts before a request when the context is near the window; returns whether it did. */
  compactIfNeeded: (signal: AbortSignal) => Promise<boolean>;
  /** model_turn_start / model_turn_end (W 1.4b); a failure stops the run. Absent: none. */
  turnHooks?: TurnHooks | null;
  /** The model's active tools for the next request (tools/set_active); null: every tool. */
  activeTools?: () => ReadonlySet<string> | null;
  /** Commits the messages extensions injected meanwhile, before a request is built (W 2.22). */
  commitInjected?: () => Promise<void>;
  /** Told each request and its answer (the cache warmer keeps the last one's prefix warm). */
  onAnswer?: (request: Context, answer: AssistantMessage) => void;
  /** pi's session events for the pi extensions that take them (pi-events.ts); absent: none. */
  pi?: PiEvents | null;
  /** An extension tool of a built-in tool's name replaces it (pi's rule); else the built-in wins. */
  replaceBuiltins?: boolean;
  /** Where the prompt came from, as pi's input event says it: typed, or an extension's message. */
  source?: "interactive" | "extension";
  /** The request's `reasoning` (the thinking level) for a model; absent or undefined: none asked. */
  reasoning?: (model: ResolvedModel) => ThinkingLevel | undefined;
}

export interface RunResult {
  outcome: RunOutcome;
  run_id: string | null;
  text: string;
  turns: number;
  usage: Usage;
  error: string | null;
}

export async function runPrompt(typed: string, s: RunScope, signal: AbortSignal): Promise<RunResult> {
  const usage = emptyUsage();
  const runContext = new RunContext();
  const notAdmitted = (outcome: RunOutcome, error: string): RunResult => ({
    outcome,
    run_id: null,
    text: "",
    turns: 0,
    usage,
    error,
  });
  // pi's input event first (pi-events.ts): a transform is the prompt from here on, and "handled"
  // means the extension answered it itself, so nothing is saved or sent.
  let prompt = typed;
  if (s.pi?.takes("input")) {
    const input = await s.pi.input(typed, s.source ?? "interactive", signal);
    if ("handled" in input) {
      s.emit({ type: "notice", level: "info", source: input.handled, text: "the prompt was handled by the extension" });
      return { ...notAdmitted("completed", ""), error: null };
    }
    prompt = input.text;
  }
  if (s.host) {
    const hook = await s.host.runHook("before_prompt", { prompt }, { signal });
    for (const n of hook.notifications) s.emit(noticeOf(n));
    if (hook.denied) {
      s.emit({ type: "prompt_denied", extension: hook.denied.extension, reason: hook.denied.reason });
      return notAdmitted(
        "denied",
        `the prompt was denied by extension ${hook.denied.extension}: ${hook.denied.reason}`,
      );
    }
    runContext.add(hook.context);
  }
  // pi's before_agent_start: the system prompt of this run, and messages placed after the prompt.
  const start = s.pi?.takes("before_agent_start")
    ? await s.pi.beforeAgentStart(prompt, s.systemPrompt, signal)
    : { systemPrompt: s.systemPrompt, messages: [] };
  if (start.systemPrompt !== s.systemPrompt) s = { ...s, systemPrompt: start.systemPrompt };
  // Cancelled while the hooks ran (a cancelled hook reads as continue, HOOK-10): nothing is saved,
  // since a later extension that would have denied the prompt was never asked.
  if (signal.aborted) return notAdmitted("cancelled", "cancelled before the prompt was admitted");
  let userEntry;
  try {
    // pi's message_start / message_end of the user message: a message_end replacement is what is saved.
    const asked: UserMessage = { role: "user", content: prompt, timestamp: Date.now() };
    await piMessageStart(s.pi, asked, signal);
    userEntry = await s.session.append({ type: "message", message: await piMessageEnd(s.pi, asked, s.emit, signal) });
  } catch (err) {
    return notAdmitted("failed", `the prompt could not be saved: ${err instanceof Error ? err.message : String(err)}`);
  }
  const run_id = `run:${userEntry.id}`;
  const ids = { session_id: s.session.id, run_id, turn_id: `turn:${userEntry.id}` };
  const started = Date.now();
  s.emit({ type: "run_start", run_id, session_id: s.session.id, entry_id: userEntry.id, prompt });
  s.lifecycle("turn/started", ids);
  const piRun = new PiRun(s.pi, s.session, userEntry.id);
  let outcome: RunOutcome = "limit_reached";
  let error: string | null = null;
  let text = "";
  let turns = 0;
  try {
    await piRun.start(start.messages, signal);
    const warned = new Set<string>();
    for (let turnIndex = 0; turnIndex < s.maxTurns; turnIndex++) {
      if (signal.aborted) {
        outcome = "cancelled";
        break;
      }
      await s.turnHooks?.start({ run_id, turn_index: turnIndex }, signal);
      await piRun.turnStart(turnIndex, signal);
      await s.compactIfNeeded(signal);
      // Here no tool call waits for its result, so an injected message cannot split a call from it.
      await s.commitInjected?.();
      const catalog = s.host ? s.host.catalog() : null;
      const turn = turnBuiltins(s.builtins, catalog, s.replaceBuiltins === true);
      for (const r of turn.replaced) if (!warned.has(r.name)) warnReplaced(s, r, warned);
      const ts = turn.replaced.length > 0 ? { ...s, builtins: turn.builtins } : s;
      const collected = s.host
        ? await s.host.collectContext({ prompt: turnIndex === 0 ? prompt : null }, { signal })
        : [];
      const unsolicited = s.host ? s.host.contributions().context : [];
      const context = [...unsolicited, ...runContext.list(), ...collected];
      // Cancelled during compaction, context collection or a hook: no request, no empty answer.
      if (signal.aborted) {
        outcome = "cancelled";
        break;
      }
      turns++;
      // The active set this request offers is the one its calls are judged by (set_active may
      // change it meanwhile; that applies from the next request).
      const active = s.activeTools?.() ?? null;
      const message = await modelRequest(ts, catalog, context, active, { run_id, turnIndex, pi: piRun }, signal);
      addUsage(usage, message.usage);
      const assistantEntry = await s.session.append({ type: "message", message });
      const failure = message.stopReason === "error" ? describeProviderError(message, s.model) : null;
      s.emit({
        type: "turn_end",
        run_id,
        turn_index: turnIndex,
        entry_id: assistantEntry.id,
        stop_reason: message.stopReason,
        usage: message.usage,
        error: failure,
      });
      const said = textOf(message.content.filter((c) => c.type === "text"));
      if (said !== "") text = said;
      if (message.stopReason === "aborted" || signal.aborted) {
        outcome = "cancelled";
        break;
      }
      if (failure !== null) {
        outcome = "failed";
        error = failure;
        break;
      }
      const calls = message.content.filter((c): c is ToolCall => c.type === "toolCall");
      if (message.stopReason === "length") {
        // Cut off at the output limit: not a complete answer (no after_response, HOOK-07), and its
        // tool calls may carry truncated arguments (half a file for write), so none of them runs.
        error = `the answer was cut off at the model's output limit (${s.model.model.maxTokens} tokens)`;
        const cut = `not run: the answer was cut off at the output limit, so the arguments may be incomplete`;
        const results = await commitResults(calls, s, { ...ids, turnIndex }, () => cut);
        await s.turnHooks?.end({ run_id, turn_index: turnIndex }, assistantEntry, results, signal);
        await piRun.turnEnd(turnIndex, message, results, signal);
        outcome = "limit_reached";
        break;
      }
      if (calls.length === 0) {
        await s.turnHooks?.end({ run_id, turn_index: turnIndex }, assistantEntry, [], signal);
        await piRun.turnEnd(turnIndex, message, [], signal);
        outcome = "completed";
        break;
      }
      const results = await runCalls(calls, ts, catalog, active, { ...ids, turnIndex }, runContext, signal);
      if (signal.aborted) {
        outcome = "cancelled";
        break;
      }
      await s.turnHooks?.end({ run_id, turn_index: turnIndex }, assistantEntry, results, signal);
      await piRun.turnEnd(turnIndex, message, results, signal);
    }
    if (outcome === "limit_reached" && error === null)
      error = `the run stopped after ${s.maxTurns} model requests (the turn limit)`;
    if (outcome === "completed" && s.host) {
      // Observed only after a successful, complete answer (HOOK-07); it cannot change it.
      try {
        const hook = await s.host.runHook("after_response", { response: text }, { signal });
        for (const n of hook.notifications) s.emit(noticeOf(n));
      } catch {
        // A failing hook is diagnosed by the host (HOOK-10).
      }
    }
  } catch (err) {
    outcome = signal.aborted ? "cancelled" : "failed";
    error = err instanceof Error ? err.message : String(err);
  } finally {
    await piRun.end();
    s.lifecycle("turn/settled", {
      ...ids,
      outcome,
      duration_ms: Date.now() - started,
      reason: error === null ? null : error.slice(0, 1024),
    });
  }
  if (outcome === "cancelled" && error === null) error = "cancelled";
  s.emit({ type: "run_end", run_id, outcome, text, turns, usage, error });
  return { outcome, run_id, text, turns, usage, error };
}

/** Said once per run for each replaced built-in, as pi warns when an extension overrides one. */
function warnReplaced(s: RunScope, r: { name: string; extension: string }, warned: Set<string>): void {
  warned.add(r.name);
  s.emit({
    type: "notice",
    level: "warning",
    source: "agent",
    text: `the built-in tool "${r.name}" is replaced by extension ${r.extension}'s tool of that name`,
  });
}

/** Streams one model request; pi-ai never throws for a provider failure, it answers stopReason "error". */
async function modelRequest(
  s: RunScope,
  catalog: CatalogSnapshot | null,
  context: readonly PlacedContext[],
  active: ReadonlySet<string> | null,
  at: { run_id: string; turnIndex: number; pi: PiRun },
  signal: AbortSignal,
): Promise<AssistantMessage> {
  const messages = await at.pi.context(buildContext(s.session.pathToLeaf()).messages, signal);
  const built = buildRequest({
    systemPrompt: s.systemPrompt,
    messages,
    context,
    builtins: s.builtins,
    catalog,
    active,
  });
  for (const name of built.shadowed)
    s.emit({
      type: "notice",
      level: "warning",
      source: "agent",
      text: `extension tool "${name}" is hidden from the model: a built-in tool has that name`,
    });
  const { model } = s.model;
  s.emit({ type: "turn_start", run_id: at.run_id, turn_index: at.turnIndex, model: `${model.provider}/${model.id}` });
  const options = {
    signal,
    sessionId: s.session.id,
    ...requestOptions(s.model),
    ...(s.maxRetries !== undefined ? { maxRetries: s.maxRetries } : {}),
    ...at.pi.providerHooks(signal),
  };
  // A thinking level goes through pi-ai's simple options, which map it per provider (pi does the same).
  const reasoning = s.reasoning?.(s.model);
  const events = reasoning
    ? streamSimple(model, built.context, { ...options, reasoning })
    : stream(model, built.context, options);
  let started = false;
  for await (const e of events) {
    if (e.type === "start" && !started) {
      started = true;
      await piMessageStart(s.pi, e.partial, signal);
    } else if (e.type === "text_delta")
      s.emit({ type: "text_delta", run_id: at.run_id, turn_index: at.turnIndex, delta: e.delta });
    else if (e.type === "thinking_delta")
      s.emit({ type: "thinking_delta", run_id: at.run_id, turn_index: at.turnIndex, delta: e.delta });
  }
  const streamed = await events.result();
  if (!started) await piMessageStart(s.pi, streamed, signal);
  // message_end may replace the finalized message (pi-messages.ts): the replacement is the answer.
  const answer = await piMessageEnd(s.pi, streamed, s.emit, signal);
  s.onAnswer?.(built.context, answer);
  return answer;
}

/**
 * The calls of one answer, one after another (approvals are asked one at a time, and a later call
 * may depend on an earlier one's effect). After a cancellation the calls not yet run still get a
 * result, "cancelled", so every call in the session is paired with its result.
 */
async function runCalls(
  calls: readonly ToolCall[],
  s: RunScope,
  catalog: CatalogSnapshot | null,
  active: ReadonlySet<string> | null,
  at: { session_id: string; run_id: string; turn_id: string; turnIndex: number },
  runContext: RunContext,
  signal: AbortSignal,
): Promise<SessionEntry[]> {
  const builtins = new Map(s.builtins.map((t) => [t.name, t]));
  const { turnIndex, ...ids } = at;
  const entries: SessionEntry[] = [];
  for (const call of calls) {
    const message = signal.aborted
      ? errorResult(call, "cancelled before it ran")
      : active && !active.has(call.name)
        ? // Not offered in this request (tools/set_active): the model named it anyway, from history.
          errorResult(call, `not run: ${call.name} is not in the active tool set`)
        : await runToolCall(call, {
            host: s.host,
            catalog,
            builtins,
            approval: s.approval,
            workspace: s.session.workspace,
            signal,
            images: s.model.model.input.includes("image"),
            ids,
            turnIndex,
            emit: s.emit,
            addContext: (c) => runContext.add(c),
            lifecycle: (method, p) => s.lifecycle(method, p),
            pi: s.pi ?? null,
          });
    entries.push(await commitResult(message, s, at));
  }
  return entries;
}

/** Error results for calls that are not run, committed in order. */
async function commitResults(
  calls: readonly ToolCall[],
  s: RunScope,
  at: { run_id: string; turnIndex: number },
  why: (call: ToolCall) => string,
): Promise<SessionEntry[]> {
  const entries: SessionEntry[] = [];
  for (const call of calls) entries.push(await commitResult(errorResult(call, why(call)), s, at));
  return entries;
}

/**
 * Commits one result and reports it. A result the session refuses (a line over its limit) is
 * replaced by an error result saying so, so the call still has its result; if even that cannot
 * be written the session is broken and the run fails.
 */
async function commitResult(
  message: ToolResultMessage,
  s: RunScope,
  at: { run_id: string; turnIndex: number },
): Promise<SessionEntry> {
  await piMessageStart(s.pi, message);
  message = await piMessageEnd(s.pi, message, s.emit);
  let saved = message;
  let entry: SessionEntry;
  try {
    entry = await s.session.append({ type: "message", message });
  } catch (err) {
    saved = errorResult(
      { id: message.toolCallId, name: message.toolName },
      `the result could not be saved (${err instanceof Error ? err.message : String(err)}), so it is not shown`,
    );
    entry = await s.session.append({ type: "message", message: saved });
  }
  s.emit({
    type: "tool_result",
    run_id: at.run_id,
    turn_index: at.turnIndex,
    tool_call_id: saved.toolCallId,
    name: saved.toolName,
    is_error: saved.isError,
    text: textOf(saved.content),
    entry_id: entry.id,
  });
  return entry;
}

function errorResult(call: Pick<ToolCall, "id" | "name">, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: true,
    timestamp: Date.now(),
  };
}

/**
 * The context hooks gave this run: the latest per extension and label (as unsolicited
 * contributions are kept, CTX-07), so a hook that answers the same reminder on every call does
 * not put one copy per call into the request.
 */
class RunContext {
  readonly #byKey = new Map<string, PlacedContext>();

  add(items: readonly PlacedContext[]): void {
    for (const c of items) {
      const key = JSON.stringify([c.extension, c.label]);
      this.#byKey.delete(key);
      this.#byKey.set(key, c);
    }
  }

  list(): PlacedContext[] {
    return [...this.#byKey.values()];
  }
}
