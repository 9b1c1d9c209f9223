/**
 * Wire shapes the API 0.2/0.4 runtime adds: $/progress, input/request, menu/collect,
 * $/cancelRequest and the six lifecycle notifications. The shapes are those of the reference's
 * examples (FRAME-15), with the GAP defaults of REQUIREMENTS.md where the text gives none.
 * Validators are in api/validate-*.ts; this file has no code.
 */
import type { JsonRpcId } from "../jsonrpc.js";
import type { ToolResultV02 } from "./types.js";

/** $/progress params (PROG-02): progress of one active host request, in strictly rising sequence. */
export interface ProgressParams {
  request_id: number;
  sequence: number;
  event: ProgressEvent;
}

export type ProgressEvent =
  | StatusProgressEvent
  | OutputProgressEvent
  | DecorationProgressEvent
  | PartialResultProgressEvent;
export type ProgressEventType = ProgressEvent["type"];

/** PROG-05. current and total are non-negative numbers; nothing ties one to the other. */
export interface StatusProgressEvent {
  type: "status";
  message: string;
  current?: number;
  total?: number;
  unit?: string;
}

export type ProgressStream = "stdout" | "stderr";
export type ProgressEncoding = "utf8" | "base64";

/** PROG-06: a piece of a process's output; base64 data is valid RFC 4648 base64. */
export interface OutputProgressEvent {
  type: "output";
  stream: ProgressStream;
  encoding: ProgressEncoding;
  data: string;
}

/** PROG-09: an ephemeral annotation, only with progress_decoration negotiated. */
export interface DecorationProgressEvent {
  type: "decoration";
  label: string;
  detail?: string;
}

/** PROG-11 (API 0.4): a snapshot of a tool/call's result so far, checked like a final result. */
export interface PartialResultProgressEvent {
  type: "partial_result";
  result: ToolResultV02;
}

/** input/request params (INPUT-01). */
export interface InputRequestParams {
  parent_request_id: number;
  prompt: string;
  secret: boolean;
}

/** The input/request answer (INPUT-02): null means cancelled or unanswerable. */
export interface InputResult {
  value: string | null;
}

/** menu/collect result (MENU-04). */
export interface ExtensionMenu {
  title: string;
  status?: MenuStatus;
  detail?: string;
  items: MenuItem[];
}

export interface MenuStatus {
  state: string;
  label: string;
}

export type MenuItem = MenuAction | MenuSubmenu;

/** An item that runs command/execute with `command` and the literal `arguments` (MENU-05, MENU-11). */
export interface MenuAction {
  id: string;
  label: string;
  command: string;
  arguments: string[];
  recommended?: boolean;
  description?: string;
  destructive?: boolean;
}

/** An item that opens a level of its own (MENU-05). */
export interface MenuSubmenu {
  id: string;
  label: string;
  items: MenuItem[];
}

/** The reasons the host itself sends (CANCEL-11); on the wire a reason is any short string. */
export type CancelReason = "user" | "timeout" | "parent_settled" | "shutdown" | "reload";

/** $/cancelRequest params (CANCEL-01, CANCEL-11); an absent reason reads as null. */
export interface CancelRequestParams {
  id: JsonRpcId;
  reason: string | null;
}

/** How a session, turn or tool call ended (LIFE-08). */
export type LifecycleOutcome =
  | "completed"
  | "failed"
  | "cancelled"
  | "interrupted"
  | "frontend_disconnected"
  | "shutdown"
  | "limit_reached";

/** session/started (LIFE-09). */
export interface SessionEventParams {
  session_id: string;
}

/** turn/started (LIFE-06, LIFE-09). */
export interface TurnEventParams extends SessionEventParams {
  run_id: string;
  turn_id: string;
}

/** tool/started (LIFE-06, LIFE-09). */
export interface ToolEventParams extends TurnEventParams {
  tool_call_id: string;
  tool_name: string;
}

/** What every settled event adds (LIFE-07). */
export interface SettledFields {
  outcome: LifecycleOutcome;
  duration_ms: number;
  reason: string | null;
}

export type SessionSettledParams = SessionEventParams & SettledFields;
export type TurnSettledParams = TurnEventParams & SettledFields;
export type ToolSettledParams = ToolEventParams & SettledFields;

/** One lifecycle notification, method and params together (LIFE-05). */
export type LifecycleNotification =
  | { method: "session/started"; params: SessionEventParams }
  | { method: "session/settled"; params: SessionSettledParams }
  | { method: "turn/started"; params: TurnEventParams }
  | { method: "turn/settled"; params: TurnSettledParams }
  | { method: "tool/started"; params: ToolEventParams }
  | { method: "tool/settled"; params: ToolSettledParams };
