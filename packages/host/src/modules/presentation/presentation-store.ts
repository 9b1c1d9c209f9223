/**
 * The latest accepted presentation snapshot per extension and owner (PRES-22), for explicit views
 * and headless fallbacks: it follows the host's `presentation` events, and forgets a
 * generation's snapshots when that generation ends (the event with a null presentation), so
 * stale state never outlives its process (PRES-25). Admission is presentation-service.ts's.
 */
import type { HostEvent } from "../../events.js";
import type { PresentationRecord } from "./record.js";

export class PresentationStore {
  /** extension -> owner key -> record. One generation holds at most its issued owner and process scope. */
  readonly #byExtension = new Map<string, Map<string, PresentationRecord>>();

  observe(event: HostEvent): void {
    if (event.type !== "presentation") return;
    const records = this.#byExtension.get(event.extension) ?? new Map<string, PresentationRecord>();
    if (event.presentation === null) {
      for (const [key, r] of records) if (r.generation === event.generation) records.delete(key);
    } else {
      const r = event.presentation;
      // A newer generation replaces every snapshot of older ones (a reload's candidate may publish first).
      for (const [key, old] of records) if (old.generation < r.generation) records.delete(key);
      if ([...records.values()].some((old) => old.generation > r.generation)) return;
      records.set(ownerKey(r), r);
    }
    if (records.size === 0) this.#byExtension.delete(event.extension);
    else this.#byExtension.set(event.extension, records);
  }

  /** The newest snapshot of `extension` (highest revision of its current generation), or null. */
  latest(extension: string): PresentationRecord | null {
    let best: PresentationRecord | null = null;
    for (const r of this.#byExtension.get(extension)?.values() ?? [])
      if (best === null || r.revision > best.revision) best = r;
    return best;
  }

  /** Every retained snapshot of `extension`, one per owner, newest first. */
  all(extension: string): PresentationRecord[] {
    return [...(this.#byExtension.get(extension)?.values() ?? [])].sort((a, b) => b.revision - a.revision);
  }
}

function ownerKey(r: PresentationRecord): string {
  return r.owner === null
    ? "process"
    : JSON.stringify([r.owner.session_id, r.owner.extension_instance_id, r.owner.process_generation]);
}
