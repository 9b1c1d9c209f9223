/**
 * Unsolicited contributions an extension pushed (context/contribution, status/contribution):
 * the latest per (extension, label) for context and per (extension, surface) for status, kept
 * until the generation that sent them ends, and cleared on reload (CTX-07, GAP default). They are
 * process-scoped: no resource owner is attached (CTX-05).
 */
import type { ContextContribution, StatusContribution } from "@octet/protocol";
import type { HostEvent } from "../../events.js";

export interface Contributions {
  context: (ContextContribution & { extension: string; generation: number })[];
  status: (StatusContribution & { extension: string; generation: number })[];
}

export class ContributionStore {
  readonly #context = new Map<string, ContextContribution & { extension: string; generation: number }>();
  readonly #status = new Map<string, StatusContribution & { extension: string; generation: number }>();

  /** Follows the host's events: records contributions, drops a generation's when it ends. */
  observe(event: HostEvent): void {
    if (event.type === "context") {
      this.#context.set(JSON.stringify([event.extension, event.contribution.label]), {
        ...event.contribution,
        extension: event.extension,
        generation: event.generation,
      });
    } else if (event.type === "status") {
      this.#status.set(JSON.stringify([event.extension, event.contribution.surface]), {
        ...event.contribution,
        extension: event.extension,
        generation: event.generation,
      });
    } else if (event.type === "state" && (event.state === "stopped" || event.state === "crashed")) {
      for (const map of [this.#context, this.#status] as Map<string, { extension: string; generation: number }>[]) {
        for (const [key, value] of map)
          if (value.extension === event.extension && value.generation === event.generation) map.delete(key);
      }
    }
  }

  snapshot(): Contributions {
    return { context: [...this.#context.values()], status: [...this.#status.values()] };
  }
}
