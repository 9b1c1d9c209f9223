/**
 * The presentation host service (W 2.5, PRES-01..23): admits one generation's presentation/update
 * notifications and emits the accepted snapshots as `presentation` host events. Owns, per
 * generation: the manifest gate, atomic validation, the owner rules (a live parent request, or
 * the exact issued triple, or process scope), revision order, the 32-per-second window with
 * last-wins coalescing and one diagnostic per window, and clearing at the generation's end.
 * Keeping the latest snapshot per extension and owner for the embedder is presentation-store.ts;
 * running an action is the host's (ExtensionHost.runPresentationAction), never this notification's.
 *
 * Presentation has no protocol feature string (INIT-47 lists none): it is gated by the manifest's
 * contributes.presentation on API 0.2+ (PRES-01), and by the embedder binding this service. An
 * unbound host leaves the notification to the inbox, which diagnoses it as unknown.
 */
import { randomUUID } from "node:crypto";
import { bounds, validatePresentationUpdate, type ResourceOwner } from "@octet/protocol";
import type { GenerationService, ServiceFactory, ServiceGeneration } from "../module.js";
import type { PresentationRecord } from "./record.js";

export type { PresentationRecord } from "./record.js";

/** The clock of the rate window; tests inject one they advance by hand. */
export interface PresentationClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface PresentationServiceOptions {
  clock?: PresentationClock;
}

const REAL_CLOCK: PresentationClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending coalesced snapshot must not keep the embedder's process alive.
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

const WINDOW_MS = 1_000;
const METHOD = "presentation/update";

export function presentationService(options: PresentationServiceOptions = {}): ServiceFactory {
  const clock = options.clock ?? REAL_CLOCK;
  return (g) => new GenerationPresentation(g, clock).service();
}

/** One generation's admission of presentation snapshots. */
class GenerationPresentation {
  readonly #g: ServiceGeneration;
  readonly #clock: PresentationClock;
  readonly #instance = randomUUID();
  /** The newest revision admitted (delivered or pending); -1 before the first. */
  #revision = -1;
  #windowStart = Number.NEGATIVE_INFINITY;
  #sent = 0;
  #diagnosed = false;
  #pending: PresentationRecord | null = null;
  #timer: unknown = null;
  #delivered = false;
  #ended = false;

  constructor(g: ServiceGeneration, clock: PresentationClock) {
    this.#g = g;
    this.#clock = clock;
  }

  service(): GenerationService {
    return {
      features: [],
      notifications: { [METHOD]: (params) => this.#update(params) },
      dispose: () => this.#end(),
    };
  }

  #update(params: unknown): void {
    const g = this.#g;
    if (this.#ended) return;
    if (!g.manifest.contributes.presentation)
      return g.diagnose("warning", `dropped ${METHOD}: the manifest does not declare contributes.presentation = true`);
    const checked = validatePresentationUpdate(params, { declaredCommands: g.manifest.contributes.commands });
    // Atomic (PRES-21): nothing of an invalid snapshot is kept; the last accepted one stays.
    if (!checked.ok)
      return g.diagnose(
        "warning",
        `dropped an invalid ${METHOD}; the last accepted snapshot stays: ${checked.problems.join("; ")}`,
      );
    const { params: update, scope } = checked.value;
    const owner = this.#owner(update.parent_request_id, update.resource_owner);
    if (owner === undefined) return;
    const revision = update.snapshot.revision;
    if (revision <= this.#revision) {
      return g.diagnose(
        "warning",
        `ignored a stale ${METHOD}: revision ${revision} is not newer than revision ${this.#revision} of this ` +
          `generation`,
      );
    }
    this.#revision = revision;
    this.#admit({
      extension: g.name,
      version: g.manifest.version,
      instance: this.#instance,
      generation: g.number,
      owner,
      scope,
      revision,
      snapshot: update.snapshot,
    });
  }

  /** The owner to attach, null for process scope, or undefined when the update is dropped (PRES-02, 03, 06). */
  #owner(parentId: number | undefined, claimed: ResourceOwner | undefined): ResourceOwner | null | undefined {
    const g = this.#g;
    if (parentId !== undefined) {
      // The owner is derived from the live request, never taken from the extension (PRES-02).
      if (!g.activeRequest(parentId)) {
        g.diagnose(
          "warning",
          `dropped a ${METHOD}: parent_request_id ${parentId} is not an active host request of this generation`,
        );
        return undefined;
      }
      return g.owner();
    }
    if (claimed !== undefined) {
      const issued = g.owner();
      const exact =
        claimed.session_id === issued.session_id &&
        claimed.extension_instance_id === issued.extension_instance_id &&
        claimed.process_generation === issued.process_generation;
      if (!exact) {
        g.diagnose(
          "warning",
          `dropped a ${METHOD}: resource_owner (session ${JSON.stringify(claimed.session_id.slice(0, 64))}, ` +
            `generation ${claimed.process_generation}) is not the triple issued to this process generation`,
        );
        return undefined;
      }
      return issued;
    }
    return null;
  }

  /** PRES-19, PRES-20: 32 per window pass at once; the rest coalesce last-wins into the next window's first. */
  #admit(record: PresentationRecord): void {
    const now = this.#clock.now();
    if (now - this.#windowStart >= WINDOW_MS) {
      if (this.#timer !== null) this.#flush();
      else this.#open(now);
    }
    if (this.#sent < bounds.MAX_PRESENTATIONS_PER_SECOND) {
      this.#sent++;
      this.#deliver(record);
      return;
    }
    this.#pending = record;
    if (!this.#diagnosed) {
      this.#diagnosed = true;
      this.#g.diagnose(
        "warning",
        `${METHOD} over ${bounds.MAX_PRESENTATIONS_PER_SECOND} snapshots per second; coalescing the rest of ` +
          `this second to the newest, shown when the next window opens`,
      );
    }
    this.#timer ??= this.#clock.setTimeout(() => this.#flush(), Math.max(0, this.#windowStart + WINDOW_MS - now));
  }

  #open(now: number): void {
    this.#windowStart = now;
    this.#sent = 0;
    this.#diagnosed = false;
  }

  /** The window closed: a new one opens with the newest coalesced snapshot as its first. */
  #flush(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#open(this.#clock.now());
    const pending = this.#pending;
    this.#pending = null;
    if (pending !== null && !this.#ended) {
      this.#sent = 1;
      this.#deliver(pending);
    }
  }

  #deliver(record: PresentationRecord): void {
    this.#delivered = true;
    this.#g.emit({
      type: "presentation",
      extension: record.extension,
      generation: record.generation,
      presentation: record,
    });
  }

  /** Nothing crosses the generation boundary (SUP-19, PRES-25): a pending snapshot is dropped, shown state cleared. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = null;
    if (this.#delivered)
      this.#g.emit({ type: "presentation", extension: this.#g.name, generation: this.#g.number, presentation: null });
  }
}
