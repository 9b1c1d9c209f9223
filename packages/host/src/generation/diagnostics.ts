/**
 * One generation's diagnostics to the embedder: each bounded in size (MAX_DIAGNOSTIC_BYTES) and
 * at most DIAGNOSTICS_PER_SECOND of them, the rest counted and said once, so an extension cannot
 * flood the embedder through the host.
 */
import { bounds } from "@octet/protocol";
import type { DiagnosticLevel, HostEvent } from "../events.js";
import { truncateBytes } from "../transport/stderr-sink.js";
import { RateWindow } from "../util/rate-window.js";

/** Diagnostics one generation may cause per second; the rest are counted in one summary. */
export const DIAGNOSTICS_PER_SECOND = 20;

export class GenerationDiagnostics {
  readonly #window: RateWindow;
  readonly #base: { type: "diagnostic"; extension: string; generation: number };
  readonly #emit: (event: HostEvent) => void;

  constructor(extension: string, generation: number, emit: (event: HostEvent) => void, now?: () => number) {
    this.#window = new RateWindow(DIAGNOSTICS_PER_SECOND, now);
    this.#base = { type: "diagnostic", extension, generation };
    this.#emit = emit;
  }

  diagnose(level: DiagnosticLevel, message: string): void {
    const { admitted, droppedBefore } = this.#window.admit();
    if (droppedBefore > 0) this.#emit({ ...this.#base, level: "warning", message: suppressed(droppedBefore) });
    if (admitted) this.#emit({ ...this.#base, level, message: truncateBytes(message, bounds.MAX_DIAGNOSTIC_BYTES) });
  }

  /** The generation ended: what the current window dropped is said now. */
  summarize(): void {
    const dropped = this.#window.dropped;
    if (dropped > 0) this.#emit({ ...this.#base, level: "warning", message: suppressed(dropped) });
  }
}

function suppressed(count: number): string {
  return `(${count} more diagnostics suppressed; over ${DIAGNOSTICS_PER_SECOND} per second)`;
}
