export { Extension } from "./extension.js";
export { cacheWarmingDecision } from "./advisory.js";
export type { Presentation, PresentationInput, PresentationUpdateOptions } from "./presentation.js";
export { WireError, ErrorCode, LIFECYCLE_EVENTS } from "@octet/protocol";
export type {
  LifecycleEvent,
  CacheWarmingAction,
  CacheWarmingPayload,
  ExtensionMenu,
  MenuItem,
  MenuAction,
  MenuSubmenu,
  MenuStatus,
} from "@octet/protocol";
export type {
  ExtensionOptions,
  ToolSpec,
  ToolResultObject,
  ToolReturn,
  CommandSpec,
  CommandResultObject,
  CommandReturn,
  NotificationInput,
  ContextInput,
  StatusInput,
  HookReturnObject,
  HookReturn,
  StatusReturn,
  RenderReturn,
  ConfirmOptions,
  InputOptions,
  HandlerContext,
  ToolHandler,
  CommandHandler,
  HookHandler,
  ContextHandler,
  StatusHandler,
  RenderInput,
  RenderHandler,
  MenuHandler,
  Progress,
  ProgressStatusOptions,
  ProgressOutputOptions,
  Cancellation,
  LifecycleParams,
  LifecycleHandler,
  DynamicTool,
  CatalogChange,
} from "./types.js";
export type { ArtifactSourceInput, PublishArtifactOptions, PublishedArtifact } from "./types.js";
export type { PolicyApi, PolicyAnswer, IntentInput, SecretsApi } from "./host-services.js";
export type { SessionApi } from "./types.js";
export type { ActiveToolsApi, MessageEvent, MessageHandler, MessageInjectionApi, MessageParams } from "./types.js";
export type {
  QueuedCompactOptions,
  RetainedOwner,
  SessionCompactResult,
  SessionControlApi,
} from "./session-control.js";
export { openTerminal } from "./terminal.js";
export type { HeldTerminal, OpenTerminal, TerminalApi, TerminalGrantLostHandler } from "./terminal.js";
export type {
  AutocompleteAnswer,
  AutocompleteChoice,
  AutocompleteHandler,
  AutocompleteQuery,
  ComposerApi,
  ShortcutHandler,
} from "./frontend.js";
export { TypedResult, INVALID_OUTPUT_CODE } from "./typed-tool.js";
export type { TypedResultOptions, TypedToolSpec, TypedToolHandler, TypedToolReturn } from "./typed-tool.js";
export { withDiagnostics, DIAGNOSTICS_METADATA_KEY } from "./diagnostics.js";
export type {
  Diagnostic,
  DiagnosticSeverity,
  DiagnosticLocation,
  DiagnosticSpan,
  DiagnosticSource,
  WorkspaceSource,
  BlobSource,
  ArtifactSource,
  DiagnosticRelated,
  DiagnosticFix,
  DiagnosticEdit,
  DiagnosticAttachment,
} from "./diagnostics.js";
