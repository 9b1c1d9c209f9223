/**
 * The session layer's control for foreign runtimes (the host option sessionLayer.control): pi's
 * ctx.newSession, ctx.fork and ctx.navigateTree on the agent the embedder holds now. Each waits
 * until the agent is idle, then runs the Agent operation (session-tree.ts); a replacement hands the
 * new agent to the embedder (`replace`), as session/switch does. A cancel from an extension's
 * before-hook resolves `{cancelled: true}`; anything else that stops it rejects with why.
 */
import type { ForeignSessionControl } from "@octet/host";
import type { Agent } from "./agent.js";
import { entriesFromPi } from "./pi-entries.js";

export interface PiSessionControlOptions {
  /** The agent the embedder runs now, or null before it opened one. */
  agent(): Agent | null;
  /** Takes the agent over the new session in place of the closed one. */
  replace(next: Agent): void;
}

/** What the extension gets back besides `cancelled`: pi's fork and navigateTree restore a prompt. */
export type PiControlResult = { cancelled: boolean; selectedText?: string; editorText?: string };

export function piSessionControl(o: PiSessionControlOptions): ForeignSessionControl {
  const idleAgent = async (api: string): Promise<Agent> => {
    for (;;) {
      const agent = o.agent();
      if (!agent || agent.closed) throw new Error(`${api}: no agent session is open yet (the first prompt opens one)`);
      await agent.whenIdle();
      if (agent.isIdle() && o.agent() === agent) return agent;
    }
  };
  // The embedder holds the new agent first (its session_start reads it), and the caller goes on
  // (pi's withSession) only once session_start was delivered, as in pi.
  const adopt = async (next: Agent): Promise<void> => {
    o.replace(next);
    await next.whenStarted();
  };
  return {
    async newSession(r): Promise<PiControlResult> {
      const agent = await idleAgent("ctx.newSession");
      const entries = entriesFromPi(r.entries ?? [], Date.now());
      const done = await agent.newSession({
        ...(r.parentSession !== undefined ? { parentSession: r.parentSession } : {}),
        entries,
      });
      if (done.cancelled) return { cancelled: true };
      await adopt(done.agent);
      return { cancelled: false };
    },
    async fork(r): Promise<PiControlResult> {
      const agent = await idleAgent("ctx.fork");
      const done = await agent.fork(r.entryId, r.position);
      if (done.cancelled) return { cancelled: true };
      await adopt(done.agent);
      return { cancelled: false, ...(done.selectedText !== undefined ? { selectedText: done.selectedText } : {}) };
    },
    async navigateTree(r): Promise<PiControlResult> {
      const agent = await idleAgent("ctx.navigateTree");
      const { extension: _extension, targetId, ...options } = r;
      const done = await agent.navigateTree(targetId, options);
      return { cancelled: done.cancelled, ...(done.editorText !== undefined ? { editorText: done.editorText } : {}) };
    },
  };
}
