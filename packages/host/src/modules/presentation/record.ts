/**
 * An accepted presentation snapshot as the embedder sees it (PRES-22). Its own file: the host
 * events carry it, and the presentation module emits those events, so neither imports the other.
 */
import type { PresentationScope, PresentationSnapshot, ResourceOwner } from "@octet/protocol";

/** One accepted snapshot with the identity the host attaches to it (PRES-22). */
export interface PresentationRecord {
  /** Manifest identity. */
  extension: string;
  version: string;
  /** A fence that never repeats across processes: a fresh id per generation's process. */
  instance: string;
  generation: number;
  /** The owner the host derived or verified; null for process-scoped state (PRES-05). */
  owner: ResourceOwner | null;
  scope: PresentationScope;
  revision: number;
  snapshot: PresentationSnapshot;
}
