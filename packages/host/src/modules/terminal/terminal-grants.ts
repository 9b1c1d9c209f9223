/**
 * The one terminal grant of a host (W 2.24, TERM-01..07): who holds the foreground tty, and the
 * only ways it changes hands. The state is host-wide (one grant across every extension), so it
 * lives in the module's binding, not in a generation.
 *
 *   free --acquire--> ceding --frontend ceded--> held --release / revoke--> resuming --> free
 *
 * A grant is live from the moment acquire is admitted until the frontend has taken the terminal
 * back: a second acquire meanwhile is refused (TERM-03), whoever asks. A revocation while the
 * frontend is still ceding is remembered and carried out as soon as it has ceded, so the
 * frontend never stays ceded to a holder that is gone.
 */
import { MAX_TERMINAL_REASON_BYTES, truncateUtf8, validateTerminalGrant, type TerminalGrant } from "@octet/protocol";

/** Who asks for the terminal, as the host derives it (never from the extension's JSON). */
export interface TerminalRequester {
  extension: string;
  generation: number;
}

/**
 * What the embedder binds as `services.terminal`: the frontend that owns the foreground tty.
 * cede() resolves only once the frontend has stopped reading and drawing (its line editor
 * paused, raw mode off, its live line cleared), with a grant id it mints and the size;
 * resume() resolves once it has re-entered its own input loop (raw mode, prompt and line
 * redrawn). `reason` says why it resumes: "released", or the revocation's reason.
 */
export interface TerminalService {
  /** False when no interactive frontend owns a terminal now (a pipe, a headless run): refused. */
  available(): boolean;
  cede(who: TerminalRequester): Promise<TerminalGrant>;
  resume(reason: string): Promise<void>;
  /**
   * Called once when a host binds the service: `revoke` takes a live grant back without being
   * asked (a session switch, shutting down), telling the holder, and resolves once resumed.
   */
  attach?(control: { revoke(reason: string): Promise<void> }): void;
}

interface Grant {
  who: TerminalRequester;
  phase: "ceding" | "held" | "resuming";
  grant?: TerminalGrant;
  /** Set when a revocation arrived while ceding. */
  revokedWith?: string;
  /** Tells the holder its grant was taken back (terminal/grant-lost); best effort. */
  lost: (grant: TerminalGrant, reason: string) => void;
  /** Resolves when the frontend has the terminal again. */
  resumed?: Promise<void>;
}

/** Why an acquire or release was refused; the module turns it into the wire error. */
export class TerminalRefusal extends Error {}

export class TerminalGrants {
  readonly #service: TerminalService;
  #grant: Grant | null = null;

  constructor(service: TerminalService) {
    for (const m of ["available", "cede", "resume"] as const)
      if (typeof service[m] !== "function") throw new TypeError(`services.terminal.${m} must be a function`);
    this.#service = service;
  }

  /** The holder and grant id of the live grant, if any. */
  current(): { who: TerminalRequester; grant_id: string | null } | null {
    const g = this.#grant;
    return g === null ? null : { who: g.who, grant_id: g.grant?.grant_id ?? null };
  }

  /**
   * Cedes the terminal to `who`; resolves with the grant once the frontend has ceded. Throws
   * TerminalRefusal when a grant is live or no frontend is available.
   */
  async acquire(who: TerminalRequester, lost: Grant["lost"]): Promise<TerminalGrant> {
    const live = this.#grant;
    if (live !== null) {
      const same = live.who.extension === who.extension && live.who.generation === who.generation;
      throw new TerminalRefusal(
        same
          ? "this extension already holds the terminal grant (one grant per process)"
          : "another extension holds the terminal grant (one grant at a time)",
      );
    }
    if (!this.#service.available()) throw new TerminalRefusal("no interactive frontend owns a terminal");
    const entry: Grant = { who, phase: "ceding", lost };
    this.#grant = entry;
    let grant: TerminalGrant;
    try {
      const raw = await this.#service.cede(who);
      const checked = validateTerminalGrant(raw);
      if (!checked.ok) {
        await this.#finish(entry, "the frontend's grant was invalid");
        throw new Error(`the frontend's terminal grant is invalid: ${checked.problems.join("; ")}`);
      }
      grant = checked.value;
    } catch (err) {
      if (this.#grant === entry && entry.phase === "ceding") this.#grant = null;
      throw err;
    }
    entry.grant = grant;
    entry.phase = "held";
    if (entry.revokedWith !== undefined) {
      // The holder went away while the frontend ceded: take it straight back, answer nothing.
      await this.#finish(entry, entry.revokedWith);
      throw new TerminalRefusal(`the grant was revoked while the terminal was being ceded: ${entry.revokedWith}`);
    }
    return grant;
  }

  /** Gives the terminal back on the holder's request; throws TerminalRefusal for anyone else. */
  async release(who: TerminalRequester): Promise<void> {
    const g = this.#grant;
    if (g === null || g.who.extension !== who.extension || g.who.generation !== who.generation)
      throw new TerminalRefusal("the caller does not hold the current terminal grant");
    if (g.phase !== "held") throw new TerminalRefusal(`the terminal grant is ${g.phase}, not held`);
    await this.#finish(g, "released");
  }

  /**
   * Takes the grant back without being asked (TERM-07): tells the holder (terminal/grant-lost)
   * and resolves once the frontend has recovered its screen. `holder` limits it to that
   * generation's grant; without it any grant is revoked.
   */
  async revoke(reason: string, holder?: TerminalRequester): Promise<void> {
    const g = this.#grant;
    if (g === null) return;
    if (holder !== undefined && (g.who.extension !== holder.extension || g.who.generation !== holder.generation))
      return;
    const bounded = truncateUtf8(reason, MAX_TERMINAL_REASON_BYTES);
    if (g.phase === "ceding") {
      g.revokedWith ??= bounded;
      return;
    }
    if (g.phase === "resuming") return g.resumed;
    if (g.grant !== undefined) {
      try {
        g.lost(g.grant, bounded);
      } catch {
        // Best effort: a holder that cannot be told (its process is gone) loses the grant anyway.
      }
    }
    await this.#finish(g, bounded);
  }

  async #finish(g: Grant, reason: string): Promise<void> {
    g.phase = "resuming";
    g.resumed = this.#service.resume(reason).finally(() => {
      if (this.#grant === g) this.#grant = null;
    });
    return g.resumed;
  }
}
