/**
 * The agent's session as pi extensions read it (the host's ForeignSessionLayer.state): pi's
 * SessionEntry shapes (camelCase, ISO timestamps, `parentId`), the leaf, the name, idle or not,
 * the context's size against the model's window and the system prompt. The rpi runtime sends it
 * to each pi extension as deltas (its session mirror); the converted entries are kept, so a
 * state read costs only the entries appended since the last one.
 */
import type { ForeignSessionState } from "@octet/host";
import type { SessionFile } from "../session/index.js";
import type { ResolvedModel } from "../models/index.js";
import { pathTokens } from "./compaction.js";
import { piEntry } from "./pi-entries.js";

export { piEntry } from "./pi-entries.js";

export class PiSessionView {
  #session: SessionFile | null = null;
  #entries: Record<string, unknown>[] = [];
  /** The context size of the last state, by leaf and entry count (it is recounted only when they change). */
  #tokens: { key: string; tokens: number } | null = null;

  /** The state of `session` now; `entries` is the same array while no entry was appended. */
  state(o: {
    session: SessionFile;
    model: ResolvedModel;
    idle: boolean;
    pendingMessages: boolean;
    systemPrompt: string;
  }): ForeignSessionState {
    const all = o.session.entries();
    if (this.#session !== o.session || this.#entries.length > all.length) {
      this.#session = o.session;
      this.#entries = [];
    }
    if (this.#entries.length < all.length) {
      // A new array when it grows: a reader holding the old one (a delta being built) keeps it.
      this.#entries = [...this.#entries, ...all.slice(this.#entries.length).map(piEntry)];
    }
    const m = o.model.model;
    const key = `${o.session.id}:${o.session.leafId()}:${all.length}`;
    if (this.#tokens?.key !== key) this.#tokens = { key, tokens: pathTokens(o.session.pathToLeaf()) };
    const tokens = this.#tokens.tokens;
    return {
      id: o.session.id,
      file: o.session.path,
      name: o.session.name(),
      leafId: o.session.leafId(),
      idle: o.idle,
      pendingMessages: o.pendingMessages,
      systemPrompt: o.systemPrompt,
      contextUsage:
        m.contextWindow > 0
          ? { tokens, contextWindow: m.contextWindow, percent: Math.round((tokens / m.contextWindow) * 1000) / 10 }
          : null,
      model: { provider: m.provider, id: m.id, name: m.name, contextWindow: m.contextWindow, reasoning: m.reasoning },
      entries: this.#entries,
    };
  }
}
