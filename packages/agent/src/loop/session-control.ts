/**
 * The agent's side of session_control_v1 and session_compaction_v1 (W 2.21b, 2.21c): the
 * lifecycle service the embedder binds as `services.sessionControl`. The host queues and orders
 * the operations; this runs each on the agent the embedder holds now.
 *
 * - wait_for_idle resolves when the agent runs nothing (Agent.whenIdle).
 * - switch waits for idle, closes the current session properly (session/settled, lock released)
 *   and opens the named session of the same workspace in its place; `replace` hands the new agent
 *   to the embedder. Only an exact id of a session of this workspace is taken (no prefix).
 * - compact waits for idle and runs the real compaction (Agent.compact); the answer is the new
 *   compaction entry's. Nothing to compact is a refusal (-32602 invalid_request), never a success.
 *   Once started it runs to settlement even when the caller goes away (SCOMP-16).
 *
 * Before the embedder opened an agent there is no active session: -32603 saying so (SCTL-10).
 */
import type { SessionControlService } from "@octet/host";
import { ErrorCode, WireError } from "@octet/protocol";
import { AgentError } from "../agent-error.js";
import { listSessions, SessionFile } from "../session/index.js";
import type { Agent } from "./agent.js";

export interface SessionControlOptions {
  /** The agent the embedder runs now, or null before it opened one. */
  agent(): Agent | null;
  /** Takes the agent over the switched-to session in place of the closed one. */
  replace(next: Agent): void;
  /** The octet home whose sessions/ holds the workspace's sessions. */
  home: string;
}

/** The service, and when the operations it has taken have settled (`octet run` waits before it closes). */
export type AgentSessionControl = SessionControlService & { settled(): Promise<void> };

export function sessionControlService(o: SessionControlOptions): AgentSessionControl {
  // Operations taken and not yet settled: a compaction an extension asked for in the middle of a
  // run (pi's ctx.compact from turn_end) runs once the run is idle, and `octet run` must not close
  // the session under it.
  const inFlight = new Set<Promise<unknown>>();
  const tracked = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.then(
      () => inFlight.delete(p),
      () => inFlight.delete(p),
    );
    return p;
  };
  const agentFor = (method: string): Agent => {
    const agent = o.agent();
    if (!agent || agent.closed)
      throw new WireError(
        ErrorCode.InternalError,
        `internal_error ${method} failed: ${
          agent ? "the agent's session is closed" : "no agent session is open yet (the first prompt opens one)"
        }`,
      );
    return agent;
  };
  /** The agent once idle; a prompt typed meanwhile may start first, so it is asked again. */
  const idleAgent = async (method: string, signal: AbortSignal): Promise<Agent> => {
    for (;;) {
      const agent = agentFor(method);
      await agent.whenIdle(signal);
      if (agent.isIdle() && o.agent() === agent) return agent;
    }
  };
  return {
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    idle: () => o.agent()?.isIdle() ?? true,
    epoch: () => o.agent()?.session.id ?? null,
    async waitForIdle(r) {
      await idleAgent("session/wait_for_idle", r.signal);
    },
    async switchTo(r) {
      const agent = await idleAgent("session/switch", r.signal);
      if (agent.session.id === r.session_id) return;
      const found = (await listSessions(o.home, agent.session.workspace)).find((s) => s.id === r.session_id);
      if (!found)
        throw new WireError(
          ErrorCode.InvalidParams,
          `invalid_request session/switch: session_id ${JSON.stringify(r.session_id.slice(0, 64))} is no session ` +
            `of workspace ${agent.session.workspace}`,
        );
      // Opened (and locked) before the current one is closed: a session that cannot be opened
      // leaves the current one running.
      const session = await SessionFile.open(found.path);
      if (!agent.isIdle() || o.agent() !== agent) {
        await session.close();
        throw new WireError(ErrorCode.InternalError, "internal_error session/switch failed: a prompt started first");
      }
      try {
        o.replace(await agent.switchTo(session));
      } catch (err) {
        if (err instanceof AgentError && err.code === "cancelled_by_extension")
          throw new WireError(ErrorCode.InvalidParams, `invalid_request session/switch refused: ${err.message}`);
        throw err;
      }
    },
    compact: (r) => tracked(compact(r)),
  };

  async function compact(r: Parameters<NonNullable<SessionControlService["compact"]>>[0]) {
    const agent = await idleAgent("session/compact", r.signal);
    try {
      // Cooperative cancellation (SCOMP-16): the caller's signal fences the wait above, but once
      // the compaction started it is driven to settlement (the summarizer's answer read to its
      // usage, the entry committed) rather than abandoned mid-request when the caller goes away.
      // The user's abort and the agent's close still stop it (Agent.abort).
      if (r.signal.aborted) throw new WireError(ErrorCode.RequestCancelled, "session/compact was cancelled");
      const done = await agent.compact(r.custom_instructions);
      return { entry_id: done.entry.id, summary: done.summary, first_kept: done.first_kept };
    } catch (err) {
      // Nothing to compact and a session_before_compact veto are refusals; an after-hook failure
      // (compaction_hook_failed) is -32603 naming the kept entry (SCOMP-14), via the host.
      if (err instanceof AgentError && (err.code === "nothing_to_compact" || err.code === "compaction_vetoed"))
        throw new WireError(ErrorCode.InvalidParams, `invalid_request session/compact refused: ${err.message}`);
      throw err;
    }
  }
}
