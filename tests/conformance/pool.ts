/**
 * Started, initialized conformance extensions kept for the next transcript, per API version: an
 * extension costs a process start (a Python one, most of a transcript's time) and most
 * transcripts only need one that answered the standard initialize. A transcript runs on a kept
 * extension only when shareable() says it allows it, and an extension is kept only when its
 * transcript passed and it is quiescent (ExtensionProcess.quiescent): every request either side
 * sent is answered, so every frame its transcript caused has arrived and can be dropped. Anything
 * else is killed, as without a pool. README.md ("Shared extensions") has the rules.
 */
import type { ApiVersion } from "./contract.js";
import type { ExtensionProcess } from "./extension-process.js";
import type { Step, Transcript } from "./transcript.js";

/** A kept extension and where its transcript left the id sequence. */
export interface Lease {
  proc: ExtensionProcess;
  /** The id of its initialize request, for "$id:initialize". */
  initializeId: number;
  nextId: number;
}

/** Verbs that end the extension, write what no request caused, or need a fresh start. */
const FRESH_ONLY = ["initialize", "close_stdin", "expect_exit", "send", "send_raw"];

/**
 * A transcript allows a kept extension when its first step is the standard initialize (no
 * overrides, the default result) and no later step ends or reconfigures the extension: no
 * shutdown or second initialize, no crafted frame (send, send_raw), no EOF, and no notification
 * but $/cancelRequest (a lifecycle event makes the extension write frames no request waits for).
 */
export function shareable(transcript: Transcript): boolean {
  const [first, ...rest] = transcript.steps;
  if (!first || Object.keys(first).some((k) => k !== "initialize" && k !== "note")) return false;
  const init = first["initialize"];
  if (typeof init !== "object" || init === null || Object.keys(init).length > 0) return false;
  return rest.every((step: Step) => {
    if (FRESH_ONLY.some((verb) => verb in step)) return false;
    const method = (step["notify"] ?? step["request"]) as { method?: unknown } | undefined;
    if ("notify" in step) return method?.method === "$/cancelRequest";
    if ("request" in step) return method?.method !== "shutdown" && method?.method !== "initialize";
    return true;
  });
}

export class ExtensionPool {
  readonly #idle = new Map<ApiVersion, Lease[]>();
  /** Kept extensions found dead or broken at take(), being reaped; close() waits for them. */
  readonly #reaping = new Set<Promise<void>>();

  /**
   * A kept extension ready for the next transcript, or undefined (the caller starts a fresh one).
   * One that exited or broke the protocol while it waited is reaped instead, and the next is
   * tried. Frames that arrived while it waited (a late notification) are dropped, and its stderr
   * starts anew, so the next transcript's expects and its failure report see only its own.
   */
  take(api: ApiVersion): Lease | undefined {
    const list = this.#idle.get(api);
    for (let lease = list?.pop(); lease !== undefined; lease = list?.pop()) {
      if (lease.proc.ended || lease.proc.violations.length > 0) {
        const reaped = lease.proc.kill().catch(() => undefined);
        this.#reaping.add(reaped);
        void reaped.then(() => this.#reaping.delete(reaped));
        continue;
      }
      lease.proc.queue.length = 0;
      lease.proc.markStderr();
      return lease;
    }
    return undefined;
  }

  /** Keeps a quiescent extension; frames its transcript left unconsumed are dropped. */
  give(api: ApiVersion, lease: Lease): void {
    lease.proc.queue.length = 0;
    const list = this.#idle.get(api) ?? [];
    list.push(lease);
    this.#idle.set(api, list);
  }

  /** Kills every kept extension (the end of a suite). */
  async close(): Promise<void> {
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    await Promise.all([...all.map((l) => l.proc.kill()), ...this.#reaping]);
  }
}
