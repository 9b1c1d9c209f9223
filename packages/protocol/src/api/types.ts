/**
 * Wire shapes of the host<->extension methods, API 0.1 with the members API 0.2/0.4 add marked
 * optional. The example shapes of the reference are normative (FRAME-15). Validators are in
 * api/validate-*.ts; this file has no code.
 */
import type { ApiVersion } from "../version.js";

export type ManifestSource = "project" | "global" | "explicit";
export type FilesystemCapability = "none" | "read" | "write";
export type HookName = "before_prompt" | "after_response" | "before_tool_call" | "after_tool_call";
export type UiSurface = "status" | "header" | "footer";
export type Placement = "system_prefix" | "system_suffix" | "prompt_prefix" | "prompt_suffix";
export type NotificationLevel = "info" | "success" | "warning" | "error";

export interface HostState {
  session_id: string | null;
  session_name: string | null;
  model: string | null;
  reasoning: string | null;
  active_skills: unknown[];
}

export interface InitializeCapabilities {
  filesystem: FilesystemCapability;
  process: boolean;
  network: boolean;
  secrets?: string[];
  provider_credentials?: true;
}

export interface InitializeContributes {
  tools: string[];
  commands: string[];
  hooks: string[];
  ui: string[];
  context: boolean;
  tool_renderers: string[];
  notifications: boolean;
  confirmations: boolean;
  presentation?: boolean;
  menu?: boolean;
}

export interface ProtocolOffer {
  version: ApiVersion;
  required_features: string[];
  optional_features: string[];
  limits: { max_concurrent_requests: number };
}

export interface InitializeParams {
  api_version: ApiVersion;
  octet_version: string;
  extension: { name: string; version: string; manifest_path: string; source: ManifestSource };
  workspace: string;
  capabilities: InitializeCapabilities;
  contributes: InitializeContributes;
  host: HostState;
  protocol?: ProtocolOffer;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  output_schema?: Record<string, unknown> | null;
  prompt_snippet?: string;
  prompt_guidelines?: string[];
}

export interface CommandDefinition {
  name: string;
  description: string;
  usage: string;
}

export interface ProtocolSelection {
  version: ApiVersion;
  features: string[];
  limits: { max_concurrent_requests: number };
  lifecycle_events?: string[];
}

export interface InitializeResult {
  api_version: ApiVersion;
  tools: ToolDefinition[];
  commands: CommandDefinition[];
  protocol?: ProtocolSelection;
}

export interface ResourceOwner {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}

export interface ExecutionContext {
  workspace: string;
  execution_scope: null;
  host: HostState | Record<string, never>;
  resource_owner?: ResourceOwner;
}

export interface ToolCallParams {
  name: string;
  arguments: Record<string, unknown>;
  catalog_revision?: number;
  context: ExecutionContext;
}

/** API 0.1 result. */
export interface ToolResultV01 {
  content: string;
  is_error: boolean;
  metadata?: unknown;
}

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; artifact_id: string; mime_type: string; alt?: string }
  | { type: "audio"; artifact_id: string; mime_type: string; transcript?: string };

/** API 0.2+ result. */
export interface ToolResultV02 {
  content: ContentPart[];
  structured_content?: unknown;
  is_error: boolean;
  metadata?: unknown;
}

export interface ExtensionNotification {
  level: NotificationLevel;
  title: string;
  message: string;
}

export interface ContextContribution {
  label: string;
  content: string;
  placement: Placement;
}

export interface CommandExecuteParams {
  name: string;
  arguments: string[];
  context: ExecutionContext;
}

export interface CommandResult {
  text: string;
  notifications: ExtensionNotification[];
  context: ContextContribution[];
}

export type HookPayload =
  | { prompt: string }
  | { response: string }
  | { name: string; arguments: Record<string, unknown> }
  | { name: string; arguments: Record<string, unknown>; output: string; is_error: boolean };

export interface HookRunParams {
  hook: HookName;
  payload: HookPayload;
  context: ExecutionContext;
}

export type HookDisposition = { action: "continue" } | { action: "deny"; reason: string };

export interface HookResult {
  disposition: HookDisposition;
  context: ContextContribution[];
  notifications: ExtensionNotification[];
}

export interface ContextCollectParams {
  prompt: string | null;
  context: ExecutionContext;
}

export interface StatusCollectParams {
  surface: UiSurface;
  context: ExecutionContext;
}

export interface StatusContribution {
  surface: UiSurface;
  text: string;
  style_role: string | null;
  priority: number;
}

export interface ToolRenderParams {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  is_error: boolean;
  context: ExecutionContext;
}

export interface RenderSegment {
  text: string;
  style_role: string | null;
}

export interface ToolRenderResult {
  segments: RenderSegment[];
}

export interface ConfirmationRequestParams {
  parent_request_id?: number;
  prompt: string;
  detail?: string;
  destructive: boolean;
  default: boolean;
}

export interface ConfirmationResult {
  confirmed: boolean;
}
