/**
 * The child a generation talks to, as the generation sees it: three streams, an exit, and a way
 * to kill it with everything it started. The generation never spawns or signals anything itself:
 * a launcher (launch-child.ts for real processes and foreign runtimes, an in-memory fake in the
 * tests) hands it one of these, so connection, handshake and stop ladder run over any streams.
 */
import type { Readable, Writable } from "node:stream";
import type { ContainmentTier } from "../process/containment.js";
import type { ForeignSessionEvents, LaunchedChild } from "../foreign-runtime.js";
import type { ForeignMessages } from "@octet/protocol";
import { groupMembers, signalGroup } from "../process/process-group.js";
import { registerGroup, unregisterGroup } from "../process/registry.js";
import { errorExcerpt } from "../transport/stderr-excerpt.js";
import { truncateBytes } from "../transport/stderr-sink.js";

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface GenerationChild {
  /** The process group leader (> 1), or null for an in-process instance with no process. */
  readonly pgid: number | null;
  /** The pid the launch reported (behind a namespace launcher, the launcher's). */
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** An in-process stand-in's messages as objects, when it offers them (LaunchedChild.messages). */
  readonly messages?: ForeignMessages | undefined;
  /** Settles once, when the child has exited; never rejects. */
  readonly exited: Promise<ChildExit>;
  /** SIGKILLs the whole group; a no-op without a process. Throws when the signal cannot be sent. */
  kill(): void;
  /** Live processes still in its group (empty without a process). */
  liveMembers(): number[];
  /** The generation is done with it: the host's exit hook no longer needs to kill its group. */
  release(): void;
  /**
   * Where EOF on stdout cannot be seen (behind a PID-namespace launcher, transport/stdout-watch.ts),
   * calls `onEnded` once the extension no longer holds its stdout, until `until` aborts.
   */
  watchStdout?(onEnded: () => void, until: AbortSignal): void;
}

/** What the generation gives a launcher. */
export interface LaunchRequest {
  /** The private scratch directory created for this generation. */
  scratch: string;
  /** Aborted when a stop begins: a launch in progress gives up. */
  signal: AbortSignal;
  diagnose(level: "info" | "warning" | "error", message: string): void;
  /** A process group exists before the launch returns (a foreign runtime spawned it): for status. */
  onGroup?(pgid: number): void;
}

export interface Launched {
  child: GenerationChild;
  tier: ContainmentTier;
  /** A foreign instance's registrations: the catalog names initialize must answer and its hooks. */
  declared?: { tools: readonly string[]; commands: readonly string[] };
  hooks?: readonly string[];
  /** The tools a foreign instance renders (its manifest's tool_renderers, known only at launch). */
  toolRenderers?: readonly string[];
  /** Hooks of a foreign instance this host never delivers (ForeignLaunched.unsupportedHooks). */
  unsupportedHooks?: readonly string[];
  /** The events a foreign instance takes from the embedder's session layer (ForeignLaunched.sessionEvents). */
  sessionEvents?: ForeignSessionEvents;
}

/** The injected factory: spec-bound, it starts one child for a generation. */
export type ChildLauncher = (request: LaunchRequest) => Promise<Launched>;

/**
 * Adopts a launched child (a spawned process or a foreign runtime's stand-in, which emits "exit"
 * like a ChildProcess). A pid > 1 is the leader of its own group: it is registered at once so a
 * host that exits unexpectedly still kills it (process/registry.ts).
 */
export function adoptChild(launched: LaunchedChild): GenerationChild {
  const pgid = (launched.pid ?? 0) > 1 ? launched.pid! : null;
  if (pgid !== null) registerGroup(pgid);
  let hasExited = false;
  const exited = new Promise<ChildExit>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null): void => {
      hasExited = true;
      resolve({ code, signal });
    };
    // A first launch that was its own containment trial may have ended before it is adopted.
    if (launched.exitCode != null || launched.signalCode != null)
      done(launched.exitCode ?? null, launched.signalCode ?? null);
    else launched.once("exit", done);
  });
  return {
    pgid,
    pid: launched.pid,
    stdin: launched.stdin,
    stdout: launched.stdout,
    stderr: launched.stderr,
    messages: launched.messages,
    exited,
    kill: () => {
      if (pgid !== null) signalGroup(pgid, "SIGKILL");
    },
    liveMembers: () => (pgid !== null ? groupMembers(pgid) : []),
    // A group is unregistered only once its leader is reaped: until then an exiting host kills it.
    release: () => {
      if (pgid !== null && hasExited) unregisterGroup(pgid);
    },
  };
}

/**
 * How long after its exit a child's stderr may still bring its last bytes: the exit can be seen
 * before them, and they usually say why it exited (issue 13.4).
 */
export const EXIT_STDERR_GRACE_MS = 100;

/** A child given up on before the generation used it (stopped during its launch). */
export function discardChild(child: GenerationChild): void {
  try {
    child.kill();
  } catch {
    // Gone already, or not ours to signal: nothing more to do.
  }
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
  void child.exited.then(() => child.release());
}

/**
 * Why a child that exited on its own ended: its exit status, and the head of the uncaught error
 * its stderr shows, not the bottom of a stack trace (issue 13.4). An in-process instance (a
 * foreign runtime's, e.g. QuickJS) has no process to speak of.
 */
export function exitMessage(exit: ChildExit, isProcess: boolean, stderrTail: string): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const cause = errorExcerpt(stderrTail);
  return `${isProcess ? `process ${how}` : "instance ended"}${cause ? `; stderr: ${truncateBytes(cause, 700)}` : ""}`;
}
