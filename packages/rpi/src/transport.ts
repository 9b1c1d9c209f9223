/**
 * The channel between the host-side rpi connection and one running extension instance: a child
 * process's pipes (process/process-transport.ts) or a QuickJS worker's message port (quickjs/).
 * Both carry the same frame texts, so one connection runs handshake, load, invocation,
 * cancellation and shutdown for both (RPI-01, QJS-02).
 *
 * Contract: frames are whole JSON texts without the newline, in both directions; events are
 * delivered in the order the extension produced them; `exited` resolves exactly once, after the
 * instance is gone (thread joined or process reaped), whatever ended it.
 */

/**
 * A frame text from the extension (`value`: already parsed, when the transport decoded it), a
 * stderr line, or a framing violation the transport saw (blank line, CRLF, oversize, bad JSON).
 */
export type RpiTransportEvent =
  | { kind: "frame"; text: string; value?: unknown }
  | { kind: "stderr"; line: string }
  | { kind: "violation"; message: string }
  /** The runtime refused something of the extension's and keeps serving (e.g. frames past a rate): said to the user. */
  | { kind: "diagnostic"; message: string };

/**
 * Why an instance ended.
 * - exited: it ended on its own without a failure;
 * - fatal: an uncaught error in the engine or the runtime (an emscripten abort, a worker error);
 * - runaway: a VM entry ran past its bytecode budget and was interrupted;
 * - memory: the extension's heap reached its ceiling;
 * - watchdog: a VM entry did not return within budget + grace (a builtin that never polls the
 *   interrupt handler) and the thread was killed;
 * - terminated: terminate() was called.
 */
export interface RpiExit {
  reason: string;
  code: "exited" | "fatal" | "runaway" | "memory" | "watchdog" | "terminated";
  /** The process's exit code or signal, when a process ended. */
  exitCode?: number | null;
  signal?: string | null;
}

export interface RpiTransport {
  /**
   * Sends one host frame text (a JSON string without newline) to the extension. `budgetMs` is
   * the time the extension may compute on this frame (the timeout that applies to it, QJS-16):
   * a QuickJS transport makes it the interrupt budget and watchdog deadline of the VM entry that
   * delivers the frame and drains its promise jobs (a positive number; otherwise it throws a
   * RangeError); a process transport ignores it.
   */
  send(text: string, budgetMs?: number): void;
  /** Frames are delivered in order; register the listener right after launch, before any await. */
  onEvent(listener: (event: RpiTransportEvent) => void): void;
  /** Resolves once, when the instance is gone. */
  readonly exited: Promise<RpiExit>;
  /** Idempotent; resolves when the process group is dead or the thread has exited. */
  terminate(reason: string): Promise<void>;
  /** The child's pid (its process group id); null for QuickJS, which runs on a thread of the host process. */
  readonly pid: number | null;
  /** Resource figures of the instance (the last ones after it exited); null when the transport has none. */
  stats(): { wasmMemoryBytes: number } | null;
}
