/**
 * How one generation ends, and that it ends once: a stop by the host (the stop ladder, then the
 * teardown), or a failure seen while it runs: the child exited on its own, a cancelled request was
 * never settled (CANCEL-07), the transport ended, a protocol violation. The first end to begin
 * takes it over; the others see it and let go. The teardown that every end reaches releases what
 * the generation holds (its own release()) and then sets the final state.
 */
import { OctetError, bounds } from "@octet/protocol";
import type { DiagnosticLevel, GenerationState } from "../events.js";
import { STDERR_CAUSE_BYTES } from "../transport/stderr-excerpt.js";
import { deadline } from "../util/deadline.js";
import { EXIT_STDERR_GRACE_MS, exitMessage, type ChildExit } from "./child.js";

type ErrorCodeName = "request_cancelled" | "transport_closed" | "protocol_violation";

/** What the ending needs of its generation (generation.ts). */
export interface EndingSubject {
  readonly name: string;
  state(): GenerationState;
  setState(state: GenerationState, reason?: string): void;
  /** The stop ladder up to (not including) the kill (stop-ladder.ts). */
  ladder(budgetMs: number): Promise<void>;
  /** Closes the peer and the requests with `closed`, reaps the child, frees the scratch dir. */
  release(closed: OctetError): Promise<void>;
  /** Resolves once the child exited (never rejects). */
  exited(): Promise<void>;
  hasExited(): boolean;
  /** Resolves once the child's stderr ended. */
  stderrEnded(): Promise<void>;
  stderrTail(maxBytes: number): string;
  pgid(): number;
  /** No new host request is admitted from here on. */
  stopAdmitting(reason: string): void;
  recordError(message: string): void;
  diagnose(level: DiagnosticLevel, message: string): void;
  /** The supervisor hears of an end it did not ask for. */
  unexpectedEnd(error: OctetError): void;
}

export class GenerationEnding {
  readonly #s: EndingSubject;
  #stopping: Promise<void> | null = null;
  #terminating: Promise<void> | null = null;
  #ended = false;
  /** Aborted when a stop begins (start included): a foreign launch in progress gives up. */
  readonly #stopRequested = new AbortController();

  constructor(subject: EndingSubject) {
    this.#s = subject;
  }

  get stopSignal(): AbortSignal {
    return this.#stopRequested.signal;
  }
  /** A stop (the host's, or a failure's) has begun. */
  get stopping(): boolean {
    return this.#stopping !== null;
  }
  /** A stop or a teardown has begun: the generation is ending. */
  get ending(): boolean {
    return this.#stopping !== null || this.#terminating !== null;
  }

  /** The stop ladder, then the teardown; `budgetMs` caps the whole sequence (SHUT-06/07). */
  stop(budgetMs: number): Promise<void> {
    this.#stopRequested.abort();
    this.#stopping ??= this.#stopLadder(budgetMs);
    return this.#stopping;
  }

  /** Kills the group, destroys the pipes, waits (bounded) for the exit, removes the scratch dir. */
  terminate(finalState: GenerationState, reason: string): Promise<void> {
    this.#stopRequested.abort();
    this.#terminating ??= this.#teardown(finalState, reason);
    return this.#terminating;
  }

  async #stopLadder(budgetMs: number): Promise<void> {
    await this.#s.ladder(budgetMs);
    await this.terminate("stopped", "stopped by the host");
  }

  async #teardown(finalState: GenerationState, reason: string): Promise<void> {
    const how = finalState === "stopped" ? "was stopped" : "ended";
    await this.#s.release(new OctetError("transport_closed", `extension "${this.#s.name}" ${how}: ${reason}`));
    this.#ended = true;
    if (this.#s.state() !== "crashed" || finalState === "crashed") this.#s.setState(finalState, reason);
  }

  /**
   * The child exited on its own. The exit can be seen before the last of its stderr is read, and
   * that is where it says why: the cause is composed once stderr has ended, at most
   * EXIT_STDERR_GRACE_MS later (issue 13.4). The generation is ending from here on: nothing else
   * (a violation, a stop) takes the end over while it waits.
   */
  exited(exit: ChildExit): void {
    if (this.#stopping || this.#terminating) return;
    this.#stopRequested.abort();
    const s = this.#s;
    let message = "";
    this.#terminating = deadline(s.stderrEnded(), EXIT_STDERR_GRACE_MS).then(() => {
      message = exitMessage(exit, s.pgid() > 1, s.stderrTail(STDERR_CAUSE_BYTES));
      s.recordError(message);
      return this.#teardown("crashed", message);
    });
    void this.#terminating.then(() => {
      s.unexpectedEnd(new OctetError("transport_closed", `extension "${s.name}" ${message}`));
    });
  }

  /**
   * A cancelled request was not settled within the grace period (CANCEL-07): the generation is
   * degraded and terminated; restarting it is the supervisor's decision.
   */
  unsettledCancel(id: number, method: string): void {
    if (this.#terminating || this.#stopping) return;
    const message = `did not settle cancelled ${method} request ${id} within ${bounds.CANCEL_GRACE_MS} ms`;
    const said = `extension "${this.#s.name}" ${message}`;
    this.#fail(message, `${message}; terminating the extension`, "request_cancelled", said);
  }

  /**
   * Either end of the pipe pair closed (stdout EOF, or EPIPE writing stdin): no request can be
   * answered any more, so none is admitted and the stop ladder starts at once, without its
   * shutdown stage (an acknowledgement could never arrive): the bounded wait for the exit, so a
   * process that is exiting anyway is reported by its exit status, then the group is killed.
   */
  transportEnded(which: "stdout" | "stdin", detail: string | null): void {
    if (this.#ended || this.#stopping || this.#terminating) return;
    const s = this.#s;
    const closed = `${which}${detail ? ` (${detail})` : ""}`;
    const message = `transport ended: the extension closed its ${closed} but kept running`;
    s.stopAdmitting(`extension "${s.name}" closed its ${which}`);
    void deadline(s.exited(), bounds.SHUTDOWN_STAGE_TIMEOUT_MS).then(() => {
      if (s.hasExited() || this.#terminating || this.#stopping) return;
      this.#fail(message, `${message}; terminating it`, "transport_closed", `extension "${s.name}": ${message}`);
    });
  }

  /** A protocol violation: diagnosed once, then the generation is terminated (never skipped). */
  violation(message: string): void {
    if (this.#terminating || this.#stopping) return;
    const full = `protocol violation: ${message}`;
    const rule = "Extensions must write only JSON-RPC frames to stdout and log to stderr";
    const said = `extension "${this.#s.name}": ${full}`;
    this.#fail(full, `${full}. ${rule}; terminating it`, "protocol_violation", said);
  }

  /** A running generation failed: degraded, then terminated; the supervisor hears `said`. */
  #fail(message: string, diagnosis: string, code: ErrorCodeName, said: string): void {
    const s = this.#s;
    s.recordError(message);
    s.diagnose("error", diagnosis);
    s.setState("degraded", message);
    this.#stopping = this.terminate("crashed", message).then(() => {
      s.unexpectedEnd(new OctetError(code, said));
    });
  }
}
