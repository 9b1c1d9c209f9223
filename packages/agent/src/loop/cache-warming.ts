/**
 * Keeping the provider's prompt cache warm while the person thinks (opt-in): a cached prefix
 * expires after the provider's TTL (Anthropic: 5 minutes), and the next prompt then pays to
 * write it again. Before it expires, the agent weighs a refresh (one request of the same prefix
 * with a one-token answer, billed at the cache-read price) against the expected miss, and asks
 * the cache_warming_decision hooks (Python SDK "Cache-warming decision advice"): the last valid
 * advice wins, and advice never enables warming by itself (it is consulted only when warming is
 * on). A refresh is not a fact of the conversation: nothing is written to the session.
 */
import { complete, type AssistantMessage, type Context } from "@mariozechner/pi-ai";
import type { ExtensionHost } from "@octet/host";
import type { CacheWarmingDecision } from "@octet/protocol";
import { requestOptions, type ResolvedModel } from "../models/index.js";
import type { AgentEvent } from "./events.js";

export interface CacheWarmingSettings {
  /** Off by default: a refresh costs money, so the person turns it on. */
  enabled: boolean;
  /** How long the provider keeps a cached prefix. */
  ttlMs: number;
  /** How long before expiry a refresh is sent. */
  marginMs: number;
  /** Refreshes after one answer before the agent lets the cache go. */
  maxRefreshes: number;
}

export const DEFAULT_CACHE_WARMING: CacheWarmingSettings = {
  enabled: false,
  ttlMs: 300_000,
  marginMs: 30_000,
  maxRefreshes: 3,
};

/** Each hook's wait is capped at 200 ms by the host; the whole advice at this. */
const ADVICE_DEADLINE_MS = 1_000;

interface Armed {
  context: Context;
  answer: AssistantMessage;
  refreshes: number;
  timer: NodeJS.Timeout;
  controller: AbortController;
}

export interface CacheWarmerOptions {
  settings: CacheWarmingSettings;
  host: () => ExtensionHost | null;
  model: () => ResolvedModel;
  sessionId: string;
  emit: (e: AgentEvent) => void;
}

export class CacheWarmer {
  readonly #o: CacheWarmerOptions;
  #armed: Armed | null = null;

  constructor(o: CacheWarmerOptions) {
    this.#o = o;
  }

  /** After a completed run: `context` is its last request, `answer` that request's answer. */
  arm(context: Context, answer: AssistantMessage): void {
    this.disarm();
    if (!this.#o.settings.enabled || !cacheable(answer)) return;
    this.#schedule({ context, answer, refreshes: 0, controller: new AbortController() });
  }

  /** A prompt starts, the model changes or the agent closes: nothing more to warm. */
  disarm(): void {
    if (!this.#armed) return;
    clearTimeout(this.#armed.timer);
    this.#armed.controller.abort(new Error("the cache is no longer warmed"));
    this.#armed = null;
  }

  /** The decision for the next refresh, from the model's prices (per million tokens = microdollars a token). */
  decision(answer: AssistantMessage, refreshes: number): CacheWarmingDecision {
    const cost = this.#o.model().model.cost;
    const u = answer.usage;
    const prefix = u.input + u.cacheRead + u.cacheWrite;
    const warm = prefix * cost.cacheRead + cost.output;
    const miss = prefix * Math.max(0, (cost.cacheWrite > 0 ? cost.cacheWrite : cost.input) - cost.cacheRead);
    // A person is most likely to come back soon after an answer; less so with every refresh.
    const p = 0.6 * 0.7 ** refreshes;
    const savings = p * miss - warm;
    const economics = cost.cacheRead > 0 || cost.cacheWrite > 0;
    return {
      phase: "idle",
      warm_cost_microdollars: Math.round(warm),
      miss_cost_microdollars: Math.round(miss),
      continuation_probability: p,
      expected_savings_microdollars: Math.round(savings),
      economics_available: economics,
      host_action: economics && savings > 0 ? "warm" : "stop",
    };
  }

  #schedule(state: Omit<Armed, "timer">): void {
    const { ttlMs, marginMs } = this.#o.settings;
    const timer = setTimeout(() => void this.#refresh(), Math.max(0, ttlMs - marginMs));
    timer.unref();
    this.#armed = { ...state, timer };
  }

  async #refresh(): Promise<void> {
    const state = this.#armed;
    if (!state) return;
    const model = this.#o.model();
    const decision = this.decision(state.answer, state.refreshes);
    let action = decision.host_action;
    let decidedBy: string | null = null;
    const host = this.#o.host();
    if (host) {
      const advice = await host.adviseCacheWarming(
        { decision, model: `${model.model.provider}/${model.model.id}` },
        { signal: state.controller.signal, deadlineMs: ADVICE_DEADLINE_MS },
      );
      ({ action, decidedBy } = advice);
    }
    if (this.#armed !== state) return;
    const who = decidedBy !== null ? ` (advised by ${decidedBy})` : "";
    if (action === "stop") {
      this.#armed = null;
      this.#o.emit({ type: "notice", level: "info", source: "agent", text: `cache warming stopped${who}` });
      return;
    }
    const answer = await complete(model.model, state.context, {
      ...requestOptions(model),
      signal: state.controller.signal,
      sessionId: this.#o.sessionId,
      maxTokens: 1,
    });
    if (this.#armed !== state) return;
    this.#o.emit({
      type: "notice",
      level: "info",
      source: "agent",
      text:
        answer.stopReason === "error" || answer.stopReason === "aborted"
          ? `cache warming request failed: ${answer.errorMessage ?? answer.stopReason}`
          : `kept the prompt cache warm${who}: ${answer.usage.cacheRead} tokens read from the cache`,
    });
    if (state.refreshes + 1 >= this.#o.settings.maxRefreshes || answer.stopReason === "error") {
      this.#armed = null;
      return;
    }
    this.#schedule({ ...state, refreshes: state.refreshes + 1 });
  }
}

/** Only a complete answer with a known context size is worth keeping warm. */
function cacheable(answer: AssistantMessage): boolean {
  return answer.stopReason === "stop" && answer.usage.input + answer.usage.cacheRead + answer.usage.cacheWrite > 0;
}
