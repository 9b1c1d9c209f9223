/**
 * The reload/replacement queue (SUP-08, SUP-14..18, SUP-22, SUP-23): replaces an extension's
 * process with a new generation, candidate first. The candidate is started and fully negotiated
 * while the current one keeps serving; only when it is ready are new calls routed to it, and the
 * old generation then drains (bounded) and stops. A candidate that fails, or whose catalog differs
 * ("re-registration required"), leaves the current one active. Manual reloads and automatic
 * restarts of one extension run one after another, never at once (the reload lock). The
 * supervisors live here too: an automatic restart is one more replacement in the queue.
 */
import { OctetError, bounds } from "@octet/protocol";
import type { HostEvent } from "../events.js";
import type { Generation } from "../generation/generation.js";
import { catalogOf, statusOf, type Entry, type ExtensionStatus } from "./extension-status.js";
import { Supervisor, isPermanentRestartError, type SupervisorClock } from "../supervision/supervisor.js";
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from "../supervision/restart-policy.js";
import type { ToolNameLedger } from "./tool-ledger.js";

export type ReplaceMode = "manual" | "restart";

export interface ReplacementOptions {
  ledger: ToolNameLedger;
  /** A new generation of `e`, not started, already tracked for shutdown. */
  newGeneration: (e: Entry) => Generation;
  isShuttingDown: () => boolean;
  /** Automatic restarts (SUP-01..11); `enabled: false` creates no supervisor. */
  supervision: { enabled?: boolean; clock?: SupervisorClock; policy?: Partial<RestartPolicy> } | undefined;
  emit: (event: HostEvent) => void;
}

export class ReplacementQueue {
  readonly #o: ReplacementOptions;

  constructor(options: ReplacementOptions) {
    this.#o = options;
  }

  /** Whether an extension gets a supervisor after its first successful start. */
  get supervising(): boolean {
    return this.#o.supervision?.enabled !== false;
  }

  /** Runs a replacement of `e` after any in progress (the reload lock, SUP-08). */
  enqueue(e: Entry, mode: ReplaceMode): Promise<ExtensionStatus> {
    const run = (): Promise<ExtensionStatus> => this.#replace(e, mode);
    const next = (e.reloading ?? Promise.resolve()).then(run, run);
    e.reloading = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Gives `e` its supervisor, watching from now (SUP-01: after a successful initialization). */
  supervise(e: Entry): void {
    e.supervisor = this.#newSupervisor(e);
    e.supervisor.ready();
  }

  #newSupervisor(e: Entry): Supervisor {
    const name = e.discovered.name;
    const supervision = this.#o.supervision;
    return new Supervisor({
      ...(supervision?.clock ? { clock: supervision.clock } : {}),
      policy: { ...DEFAULT_RESTART_POLICY, ...supervision?.policy },
      restart: () => this.enqueue(e, "restart").then(() => undefined),
      isPermanent: isPermanentRestartError,
      emit: (event) => {
        if (event.action === "parked") e.parkedError = event.reason;
        if (event.action === "revived") e.parkedError = null;
        const generation = e.generation?.number ?? 0;
        this.#o.emit({ type: "supervision", extension: name, generation, ...event });
        if (event.action === "restart_scheduled" || event.action === "parked") {
          const parked = event.action === "parked";
          this.#o.emit({
            type: "diagnostic",
            extension: name,
            generation,
            level: parked ? "error" : "warning",
            message: parked
              ? `parked, no more automatic restarts: ${event.reason}; reload it to try again`
              : `ended unexpectedly (${event.reason}); restart ${event.attempt + 1} in ${event.delayMs} ms`,
          });
        }
      },
    });
  }

  async #replace(e: Entry, mode: ReplaceMode): Promise<ExtensionStatus> {
    const name = e.discovered.name;
    if (this.#o.isShuttingDown()) throw new OctetError("shutdown", "the host is shutting down");
    const old = e.generation;
    const oldServing = old !== null && old.state === "ready";
    // A restart queued behind a reload that already brought a ready generation has nothing to do.
    if (mode === "restart" && oldServing) {
      e.supervisor?.ready();
      return statusOf(e);
    }
    const stays = oldServing ? `generation ${old!.number} stays active` : "the extension stays down";
    // The tool names must still be free: a reload never brings back an extension that was
    // refused for a conflict, nor lets two extensions publish one name.
    const conflict = this.#o.ledger.conflict(e);
    if (conflict) {
      // Another holds one of its names: while it does not run, it holds none (tool-ledger.ts).
      if (!oldServing) e.nameConflict = true;
      const error = new OctetError("tool_conflict", `reload of "${name}" refused: ${conflict}`);
      throw replaceFailed(e, mode, oldServing, error);
    }
    const candidate = this.#o.newGeneration(e);
    try {
      await candidate.start();
    } catch (err) {
      const what = mode === "restart" ? "restart" : "reload";
      const cause = err instanceof Error ? err.message : String(err);
      const error = new OctetError("initialize_failed", `${what} of "${name}" failed; ${stays}: ${cause}`);
      throw replaceFailed(e, mode, oldServing, error);
    }
    if (this.#o.isShuttingDown()) {
      await candidate.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
      throw new OctetError("shutdown", `reload of "${name}" abandoned: the host is shutting down`);
    }
    // A foreign extension's names are known only now (its manifest declares none): they must be
    // free, as at its first start, or a reload would give one name to two extensions.
    const taken = e.discovered.foreign ? this.#o.ledger.taken(name, candidate.tools) : null;
    if (taken) {
      await candidate.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
      if (!oldServing) e.nameConflict = true;
      const message =
        `reload of "${name}" refused: tool "${taken.name}" is already provided by ` + `${taken.holder}; ${stays}`;
      throw replaceFailed(e, mode, oldServing, new OctetError("tool_conflict", message));
    }
    // The product boundary was built with the first catalog: without dynamic tools a changed
    // one needs a full rebuild (SUP-15, SUP-16), whether the old generation still runs or not.
    if (e.catalog !== null && catalogOf(candidate) !== e.catalog) {
      await candidate.stop();
      const why = "re-registration required (its tools or commands changed; restart the host to accept them)";
      const message = `reload of "${name}" refused: ${why}; ${stays}`;
      throw replaceFailed(e, mode, oldServing, new OctetError("reregistration_required", message));
    }
    // The swap: from here new calls route to the candidate (SUP-17's last step, made first so
    // no call waits for the old generation's drain).
    e.generation = candidate;
    e.parkedError = null;
    e.nameConflict = false;
    e.catalog ??= catalogOf(candidate);
    if (mode === "manual") e.supervisor?.revived();
    else e.supervisor?.ready();
    if (!e.supervisor && this.supervising) this.supervise(e);
    if (old) await old.drainAndStop(bounds.SHUTDOWN_STAGE_TIMEOUT_MS);
    return statusOf(e);
  }
}

/** A failed manual reload of an extension that is not running parks it (it said why). */
function replaceFailed(e: Entry, mode: ReplaceMode, oldServing: boolean, error: OctetError): OctetError {
  if (mode === "manual" && !oldServing) {
    if (e.supervisor) e.supervisor.park(error.message);
    else e.parkedError = error.message;
  }
  return error;
}
