/**
 * The channel between the host's rpi connection and one extension instance: a child process's
 * pipes (process/process-transport.ts) or a QuickJS worker's message port (quickjs/). Both carry
 * the same frame texts, so handshake, load, invocation, cancellation and shutdown are one code
 * path (RPI-01, QJS-02).
 */

/** A frame text from the extension (value: already parsed, when the transport decoded it), a stderr line, or a framing violation. */
export type RpiTransportEvent =
  | { kind: "frame"; text: string; value?: unknown }
  | { kind: "stderr"; line: string }
  | { kind: "violation"; message: string };

export interface RpiExit {
  reason: string;
  code: "exited" | "fatal" | "runaway" | "memory" | "watchdog" | "terminated";
  /** The process's exit code or signal, when a process ended. */
  exitCode?: number | null;
  signal?: string | null;
}

export interface RpiTransport {
  /** Sends one host frame text (a JSON string without newline) to the extension. */
  send(text: string): void;
  /** Frames are delivered in order; register before the first frame can arrive (right after launch). */
  onEvent(listener: (event: RpiTransportEvent) => void): void;
  /** Resolves once, when the instance is gone. */
  readonly exited: Promise<RpiExit>;
  /** Idempotent; resolves when the process group is dead or the thread has exited. */
  terminate(reason: string): Promise<void>;
  /** The child's pid (its process group id); null for QuickJS. */
  readonly pid: number | null;
  stats(): { wasmMemoryBytes: number } | null;
}
