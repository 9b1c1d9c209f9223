/**
 * What the host tells its embedder, as it happens. Every event names the extension; text in
 * events is bounded (diagnostics 4 KiB) and never carries secret values.
 */
import type { ContextContribution, ExtensionNotification, StatusContribution } from "@octet/protocol";
import type { SupervisorEvent } from "./supervision/supervisor.js";
import type { PresentationRecord } from "./modules/presentation/record.js";

export type GenerationState = "starting" | "initializing" | "ready" | "draining" | "stopped" | "degraded" | "crashed";

export type DiagnosticLevel = "info" | "warning" | "error";

export type HostEvent =
  | { type: "state"; extension: string; generation: number; state: GenerationState; reason?: string }
  | { type: "diagnostic"; extension: string; generation: number; level: DiagnosticLevel; message: string }
  | { type: "stderr"; extension: string; generation: number; line: string }
  | { type: "notification"; extension: string; generation: number; notification: ExtensionNotification }
  | { type: "context"; extension: string; generation: number; contribution: ContextContribution }
  | { type: "status"; extension: string; generation: number; contribution: StatusContribution }
  /** An accepted presentation snapshot (PRES-22); null when the generation that published it ended. */
  | { type: "presentation"; extension: string; generation: number; presentation: PresentationRecord | null }
  /** The supervisor's decisions: a restart scheduled (with its delay), started, done or failed; parked; revived. */
  | ({ type: "supervision"; extension: string; generation: number } & SupervisorEvent);

export type HostEventListener = (event: HostEvent) => void;
