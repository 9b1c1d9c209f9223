/**
 * The stop ladder of one generation (SHUT-01..09): API 0.2+ drains first (no new work, a bounded
 * wait for what runs, the rest cancelled); then the shutdown request, a bounded wait for its
 * acknowledgement, a bounded wait for the exit, and last the group is SIGKILLed and the pipes
 * destroyed (reap()). Every wait is bounded; a budget caps the whole sequence (the aggregate
 * deadlines of SHUT-06/07 cut a stage short). The ladder has no SIGTERM rung: the spec's step
 * after the exit wait is terminating the group (SHUT-05).
 */
import { bounds, isNegotiated, type ApiVersion, type RpcPeer } from "@octet/protocol";
import type { DiagnosticLevel, GenerationState } from "../events.js";
import { deadline } from "../util/deadline.js";
import type { GenerationChild } from "./child.js";

/** The host's requests as the ladder drains them (host-requests.ts). */
export interface DrainableRequests {
  stopAdmitting(reason: string): void;
  idle(ms: number): Promise<void>;
  cancelAll(reason: "shutdown" | "reload"): void;
}

export interface LadderSubject {
  readonly name: string;
  readonly api: ApiVersion;
  state(): GenerationState;
  readonly peer: RpcPeer | null;
  readonly requests: DrainableRequests | null;
  readonly exited: Promise<unknown>;
  hasExited(): boolean;
  setState(state: GenerationState): void;
  /** After the drain, before the shutdown request: the remaining lifecycle terminal events (LIFE-12). */
  drained(): void;
  diagnose(level: DiagnosticLevel, message: string): void;
}

/**
 * Runs the ladder up to (not including) the kill. `stageMs` is each stage's own bound (the
 * per-stage shutdown_timeout, SHUT-03/04).
 */
export async function runStopLadder(
  s: LadderSubject,
  budgetMs: number,
  stageMs: number = bounds.SHUTDOWN_STAGE_TIMEOUT_MS,
): Promise<void> {
  const until = Date.now() + budgetMs;
  const left = (): number => Math.max(0, until - Date.now());
  const peer = s.peer;
  const state = s.state();
  const live = state === "ready" || state === "initializing" || state === "draining";
  if (!peer || peer.closed || s.hasExited() || !live) return;
  // API 0.2+ drains first: no new work, a bounded wait for what runs, then the rest is cancelled
  // (SHUT-08). API 0.1 keeps the legacy resident behaviour: no draining phase (SHUT-09);
  // admission stops anyway because the generation refuses requests once its stop began.
  s.requests?.stopAdmitting(`extension "${s.name}" is shutting down`);
  if (isNegotiated(s.api) && s.state() === "ready") {
    s.setState("draining");
    await s.requests?.idle(Math.min(stageMs, left() / 2));
    s.requests?.cancelAll("shutdown");
  }
  try {
    s.drained();
  } catch {
    // Best effort: terminal observations never hold up the stop.
  }
  const ack = peer.request("shutdown", {}, { timeoutMs: Math.min(stageMs, left()) }).result;
  await ack.then(
    () => undefined,
    (err: unknown) => s.diagnose("warning", `no shutdown acknowledgement: ${messageOf(err)}`),
  );
  const exitWait = Math.min(stageMs, left());
  await deadline(s.exited, exitWait);
  if (!s.hasExited()) {
    s.diagnose("warning", `did not exit within ${exitWait} ms of the shutdown request; killing its process group`);
  }
}

/**
 * The last rung: SIGKILL to the whole group, stdin destroyed, a bounded wait for the exit and for
 * the group to empty, then stdout and stderr destroyed. Never waits without a bound: a grandchild
 * may hold the pipes open (P14), a launcher may be reaped before the rest of its group died.
 */
export async function reap(
  child: GenerationChild,
  diagnose: (level: DiagnosticLevel, message: string) => void,
  reapMs: number = bounds.KILL_REAP_TIMEOUT_MS,
): Promise<void> {
  try {
    child.kill();
  } catch (err) {
    diagnose("error", `could not kill process group ${child.pgid}: ${messageOf(err)}`);
  }
  child.stdin.destroy();
  const until = Date.now() + reapMs;
  await deadline(child.exited, reapMs);
  // A stop is over when the group is empty, read from /proc, within the same bound. Killed
  // processes do not come back, so polling is enough.
  while (child.liveMembers().length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.stdout.destroy();
  child.stderr.destroy();
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
