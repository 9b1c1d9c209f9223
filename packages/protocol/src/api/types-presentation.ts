/**
 * presentation/update (W 2.5, PRES-01..25): one complete semantic state snapshot an API 0.2+
 * extension publishes, as the host accepts it after validation (defaults applied, null optional
 * members dropped). The shapes are those of the reference's example; every object is closed
 * (docs/decisions.md, "Presentation"). Validators are in api/validate-presentation.ts; this file
 * has no code.
 */
import type { ResourceOwner } from "./types.js";

/** The generic states (PRES-12); nothing else is a state. */
export type PresentationState =
  | "empty"
  | "loading"
  | "pending"
  | "active"
  | "running"
  | "succeeded"
  | "failed"
  | "cancelled"
  | "degraded"
  | "stopped"
  | "unavailable";

/** presentation/update params (PRES-01). At most one of the two owner members (PRES-04). */
export interface PresentationUpdateParams {
  /** A handler-time snapshot: the host derives the owner from this active request (PRES-02). */
  parent_request_id?: number;
  /** A background publisher's host-issued owner triple (PRES-03). */
  resource_owner?: ResourceOwner;
  snapshot: PresentationSnapshot;
}

/** How a snapshot is owned, read from which member it carried (PRES-02, PRES-03, PRES-05). */
export type PresentationScope = "request" | "owner" | "process";

export interface PresentationSnapshot {
  /** Monotonic per process generation; 0 is valid (PRES-07). */
  revision: number;
  status?: PresentationStatus;
  activities: PresentationActivity[];
  collection?: PresentationCollection;
  actions: PresentationAction[];
}

export interface PresentationStatus {
  state: PresentationState;
  label?: string;
}

export interface PresentationActivity {
  id: string;
  kind: string;
  state: PresentationState;
  summary?: string;
  provenance?: string;
  started_at_ms?: number;
  finished_at_ms?: number;
  metrics?: PresentationMetrics;
  references: PresentationReference[];
}

/** Counters of one activity (PRES-11): input, cache read and cache write are disjoint; reasoning is part of output. */
export interface PresentationMetrics {
  tool_calls?: number;
  input_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  output_tokens?: number;
  reasoning_tokens?: number;
  cost_microdollars?: number;
}

export type PresentationReferenceKind = "session" | "artifact" | "resource" | "url";

/** A lookup key, never authority (PRES-13, PRES-24); a url id is a sanitized http(s) URL (PRES-14). */
export interface PresentationReference {
  kind: PresentationReferenceKind;
  id: string;
  label?: string;
}

export interface PresentationCollection {
  kind: "list" | "tree";
  title?: string;
  nodes: PresentationNode[];
  selected_node_id?: string;
  detail?: PresentationDetail;
}

export interface PresentationNode {
  id: string;
  /** Only in a tree (PRES-09). */
  parent_id?: string;
  state?: PresentationState;
  label: string;
  secondary?: string;
  /** Ids of this snapshot's actions that apply to the node. */
  action_ids: string[];
  references: PresentationReference[];
}

/** The selected node's detail: node_id equals the collection's selected_node_id (PRES-10). */
export interface PresentationDetail {
  node_id: string;
  title?: string;
  body?: string;
  references: PresentationReference[];
}

/** A command the person may run: routed only to a command this manifest declares (PRES-15, PRES-23). */
export interface PresentationAction {
  id: string;
  label: string;
  command: string;
  arguments: string[];
  destructive: boolean;
}
