export { OCTET_VERSION, API_VERSIONS, isApiVersion, isNegotiated } from "./version.js";
export type { ApiVersion } from "./version.js";
export { MAX_FRAME_BYTES } from "./bounds.js";
export * as bounds from "./bounds.js";
export {
  ErrorCode,
  WireError,
  OctetError,
  toWireError,
  isServerErrorCode,
  SERVER_ERROR_MIN,
  SERVER_ERROR_MAX,
} from "./errors.js";
export type { ErrorCodeValue, WireErrorObject, OctetErrorCode } from "./errors.js";
export { parseEnvelope, checkId, isErrorResponse } from "./jsonrpc.js";
export type {
  JsonRpcId,
  Message,
  RequestMessage,
  NotificationMessage,
  ResponseMessage,
  SuccessResponse,
  ErrorResponse,
  Envelope,
  EnvelopeResult,
} from "./jsonrpc.js";
export { JsonlDecoder, decodeLine, quoteBytes } from "./jsonl/decoder.js";
export type { DecodedFrame, FrameError, FrameErrorCode } from "./jsonl/decoder.js";
export { encodeFrame } from "./jsonl/encode.js";
export { decodeUtf8, encodeUtf8 } from "./jsonl/utf8.js";
export { RpcPeer, isThenable } from "./rpc/peer.js";
export { IdTable } from "./rpc/id-table.js";
export { standInChannel, type StandInChannel } from "./rpc/stand-in.js";
export type {
  PeerTransport,
  SendTicket,
  PeerDiagnostic,
  PeerOptions,
  RequestOptions,
  OutgoingRequest,
} from "./rpc/peer.js";
export { EnvelopeReader } from "./rpc/envelope-reader.js";
export type { ReadEvent } from "./rpc/envelope-reader.js";
export { utf8ByteLength, isPlainObject } from "./validate/kit.js";
export type { Checked } from "./validate/kit.js";
export type {
  ManifestSource,
  FilesystemCapability,
  HookName,
  UiSurface,
  Placement,
  NotificationLevel,
  HostState,
  InitializeCapabilities,
  InitializeContributes,
  ProtocolOffer,
  InitializeParams,
  ToolDefinition,
  CommandDefinition,
  ProtocolSelection,
  InitializeResult,
  ResourceOwner,
  ExecutionContext,
  ToolCallParams,
  ToolResultV01,
  ContentPart,
  ToolResultV02,
  ExtensionNotification,
  ContextContribution,
  CommandExecuteParams,
  CommandResult,
  HookPayload,
  HookRunParams,
  HookDisposition,
  HookResult,
  ContextCollectParams,
  StatusCollectParams,
  StatusContribution,
  ToolRenderParams,
  RenderSegment,
  ToolRenderResult,
  ConfirmationRequestParams,
  ConfirmationResult,
} from "./api/types.js";
export {
  REQUIRED_FEATURES,
  BASE_OPTIONAL_FEATURES,
  KNOWN_FEATURES,
  FEATURE_DEPENDENCIES,
  LIFECYCLE_EVENTS,
  isKnownFeature,
} from "./features.js";
export type { FeatureName, LifecycleEvent } from "./features.js";
export { measureJson, stringTokenBytes } from "./validate/json-bounds.js";
export type { JsonLimits, JsonMeasure, JsonMeasureResult, JsonRule } from "./validate/json-bounds.js";
export { OUTPUT_SCHEMA_KEYWORDS } from "./api/validate-schema.js";
export {
  TOOL_NAME_PATTERN,
  isValidToolName,
  validateToolDefinition,
  validateCommandDefinition,
} from "./api/validate-tool.js";
export { validateInitializeResult } from "./api/validate-initialize.js";
export type { InitializeExpectation, AcceptedInitialize } from "./api/validate-initialize.js";
export {
  VETO_HOOKS,
  validateToolResult,
  validateCommandResult,
  validateHookResult,
  validateRenderResult,
} from "./api/validate-results.js";
export type { NormalizedToolResult } from "./api/validate-results.js";
export {
  DIAGNOSTICS_METADATA_KEY,
  DIAGNOSTIC_SEVERITIES,
  DIAGNOSTIC_CODE_PATTERN,
  validateDiagnostics,
  diagnosticsProjection,
} from "./api/validate-diagnostics.js";
export type {
  DiagnosticSeverity,
  WireDiagnostic,
  WireDiagnosticLocation,
  WireDiagnosticSource,
  WireBlobRef,
} from "./api/validate-diagnostics.js";
export {
  PLACEMENTS,
  UI_SURFACES,
  NOTIFICATION_LEVELS,
  validateContextContributions,
  validateContextContribution,
  validateStatusResult,
  validateStatusContribution,
  validateNotification,
  validateConfirmationParams,
} from "./api/validate-contributions.js";
export {
  HOOK_NAMES,
  validateToolCallParams,
  validateCommandExecuteParams,
  validateHookRunParams,
  validateContextCollectParams,
  validateStatusCollectParams,
  validateToolRenderParams,
} from "./api/validate-params.js";
export { FrameQueue } from "./rpc/frame-queue.js";
export type { FrameSink } from "./rpc/frame-queue.js";
export { PROMPT_METADATA_FEATURE } from "./api/validate-tool.js";
export type {
  ProgressParams,
  ProgressEvent,
  ProgressEventType,
  StatusProgressEvent,
  ProgressStream,
  ProgressEncoding,
  OutputProgressEvent,
  DecorationProgressEvent,
  PartialResultProgressEvent,
  InputRequestParams,
  InputResult,
  ExtensionMenu,
  MenuStatus,
  MenuItem,
  MenuAction,
  MenuSubmenu,
  CancelReason,
  CancelRequestParams,
  LifecycleOutcome,
  SessionEventParams,
  TurnEventParams,
  ToolEventParams,
  SettledFields,
  SessionSettledParams,
  TurnSettledParams,
  ToolSettledParams,
  LifecycleNotification,
} from "./api/types-v02.js";
export {
  PROGRESS_EVENT_TYPES,
  PROGRESS_STREAMS,
  PROGRESS_ENCODINGS,
  validateProgressParams,
  base64Problem,
} from "./api/validate-progress.js";
export type { ProgressOptions } from "./api/validate-progress.js";
export { validateInputParams, validateInputResult } from "./api/validate-input.js";
export { validateMenu, generatedMenu } from "./api/validate-menu.js";
export { CANCEL_REASONS, validateCancelParams } from "./api/validate-cancel.js";
export { LIFECYCLE_OUTCOMES, validateLifecycleEvent } from "./api/validate-lifecycle.js";
export {
  validateToolsRegisterParams,
  validateToolsUnregisterParams,
  validateCatalogMutationResult,
} from "./api/validate-catalog.js";
export type { ToolsRegisterParams, ToolsUnregisterParams, CatalogMutationResult } from "./api/validate-catalog.js";
export type {
  PresentationState,
  PresentationUpdateParams,
  PresentationScope,
  PresentationSnapshot,
  PresentationStatus,
  PresentationActivity,
  PresentationMetrics,
  PresentationReferenceKind,
  PresentationReference,
  PresentationCollection,
  PresentationNode,
  PresentationDetail,
  PresentationAction,
} from "./api/types-presentation.js";
export {
  PRESENTATION_STATES,
  PRESENTATION_REFERENCE_KINDS,
  PRESENTATION_METRICS,
  validatePresentationUpdate,
  validatePresentationSnapshot,
} from "./api/validate-presentation.js";
export type { PresentationContext, CheckedPresentationUpdate } from "./api/validate-presentation.js";
export { urlProblem as presentationUrlProblem } from "./api/presentation-url.js";
export {
  ARTIFACT_MIME_TYPES,
  artifactKind,
  validateArtifactPublishParams,
  validateArtifactPublishResult,
} from "./api/validate-artifact.js";
export type {
  ArtifactMimeType,
  ArtifactKind,
  ArtifactSource,
  ArtifactPublishParams,
  ArtifactPublishResult,
} from "./api/validate-artifact.js";
export {
  POLICY_DECISIONS,
  POLICY_INTENT_KINDS,
  POLICY_OPERATION_PATTERN,
  POLICY_DATA_CLASS_PATTERN,
  APPROVAL_TOKEN_PATTERN,
  validatePolicyParams,
  validatePolicyResult,
  canonicalIntent,
} from "./api/validate-policy.js";
export type {
  PolicyDecision,
  PolicyIntentKind,
  PolicyIntent,
  PolicyEvaluateParams,
  PolicyEvaluateResult,
} from "./api/validate-policy.js";
export {
  SECRET_NAME_PATTERN,
  validateSecretParams,
  validateSecretResult,
  validateProviderCredentialsParams,
  validateProviderCredentialsResult,
} from "./api/validate-secret.js";
export type {
  SecretGetParams,
  SecretGetResult,
  ProviderCredentialsParams,
  ProviderCredentialsResult,
} from "./api/validate-secret.js";
export {
  ADVISORY_HOOKS,
  isAdvisoryHook,
  validateAdvisoryHookParams,
  validateCacheWarmingResult,
  validateCompactionResult,
} from "./api/advisory-hooks.js";
export type {
  AdvisoryHook,
  AdvisoryHookParams,
  CacheWarmingAction,
  CacheWarmingDecision,
  CacheWarmingPayload,
  CompactionPayload,
} from "./api/advisory-hooks.js";
export {
  COMPACTION_HOOKS,
  isCompactionHook,
  validateCompactionHookParams,
  validateCompactionHookResult,
} from "./api/compaction-hooks.js";
export type {
  AfterCompactPayload,
  BeforeCompactPayload,
  CompactionHook,
  CompactionHookParams,
  CompactionHookPayload,
  CompactionHookResult,
} from "./api/compaction-hooks.js";
export {
  TURN_HOOKS,
  isTurnHook,
  validateTurnHookParams,
  validateTurnHookResult,
} from "./api/turn-hooks.js";
export type {
  NativeEntry,
  TurnHook,
  TurnHookParams,
  TurnHookResult,
  TurnPayload,
  TurnStartPayload,
  TurnEndPayload,
} from "./api/turn-hooks.js";
export {
  sessionEntriesRefusal,
  checkPlainJson,
  validateAppendEntryParams,
  validateAppendEntryResult,
  validateEmptyResult,
  validateSetLabelParams,
  validateSetNameParams,
} from "./api/validate-session-entries.js";
export type {
  SessionAppendEntryParams,
  SessionAppendEntryResult,
  SessionSetLabelParams,
  SessionSetNameParams,
} from "./api/validate-session-entries.js";
export * from "./api/validate-frontend.js";
export { parseShortcutKey } from "./api/shortcut-keys.js";
export type { ParsedShortcutKey, ShortcutKey } from "./api/shortcut-keys.js";
export { applyAutocompleteEdit } from "./api/autocomplete-edit.js";
export type { AppliedEdit, EditorSnapshot } from "./api/autocomplete-edit.js";
export {
  MAX_TERMINAL_GRANT_ID_BYTES,
  MAX_TERMINAL_REASON_BYTES,
  terminalRefusal,
  validateTerminalGrant,
  validateTerminalGrantLost,
  validateTerminalParams,
} from "./api/validate-terminal.js";
export type { TerminalGrant, TerminalGrantLost, TerminalParams } from "./api/validate-terminal.js";
export { TERMINAL_ACQUIRE, TERMINAL_GRANT_LOST, TERMINAL_RELEASE } from "./methods/terminal.js";
export {
  METHODS,
  methodSpec,
  methodsFor,
  legalMethod,
  buildMethodTable,
  ALL_VERSIONS,
  NEGOTIATED_VERSIONS,
  INITIALIZE,
  SHUTDOWN,
  CANCEL_REQUEST,
  TOOL_CALL,
  COMMAND_EXECUTE,
  HOOK_RUN,
  CONTEXT_COLLECT,
  STATUS_COLLECT,
  TOOL_RENDER,
  NOTIFICATION,
  CONTEXT_CONTRIBUTION,
  STATUS_CONTRIBUTION,
  CONFIRMATION_REQUEST,
  INPUT_REQUEST,
  PROGRESS,
  MENU_COLLECT,
  ARTIFACT_PUBLISH,
  POLICY_EVALUATE,
  SECRET_GET,
  PROVIDER_CREDENTIALS,
  SESSION_APPEND_ENTRY,
  SESSION_SET_NAME,
  SESSION_SET_LABEL,
  SESSION_WAIT_FOR_IDLE,
  SESSION_SWITCH,
  SESSION_COMPACT,
  COMPOSER_GET,
  COMPOSER_SET,
  COMPOSER_INSERT,
  SHORTCUT_REGISTER,
  SHORTCUT_TRIGGER,
  AUTOCOMPLETE_REGISTER,
  AUTOCOMPLETE_COMPLETE,
  PRESENTATION_UPDATE,
  TOOLS_REGISTER,
  TOOLS_UNREGISTER,
  SESSION_SEND_MESSAGE,
  SESSION_SEND_USER_MESSAGE,
  MESSAGE_UPDATED,
  MESSAGE_SETTLED,
  TOOLS_SET_ACTIVE,
} from "./methods/index.js";
export {
  INJECTED_ROLES,
  MAX_ACTIVE_TOOL_NAMES,
  MAX_ACTIVE_TOOL_NAME_BYTES,
  MAX_INJECTED_TEXT_BYTES,
  MAX_MESSAGE_DELTA_ARRAY,
  MAX_MESSAGE_ID_BYTES,
  MESSAGE_BATCH_BYTES,
  MESSAGE_BATCH_DELTAS,
  MESSAGE_BATCH_MS,
  validateMessageSettled,
  validateMessageUpdated,
  validateSendMessageParams,
  validateSendUserMessageParams,
  validateSetActiveToolsParams,
} from "./api/validate-message-injection.js";
export type {
  InjectedRole,
  MessageSettledParams,
  MessageUpdatedParams,
  SendMessageParams,
  SendUserMessageParams,
  SetActiveToolsParams,
} from "./api/validate-message-injection.js";
export type { MethodDirection, MethodKind, MethodSpec, MethodValidator, MethodFilter } from "./methods/index.js";
export type {
  ForeignRuntime,
  ForeignExtension,
  ForeignLaunchContext,
  ForeignLaunched,
  ForeignLoadResult,
  ForeignSpawnSpec,
  ForeignCatalog,
  ForeignStopSignal,
  ForeignSessionEvents,
  ForeignSessionLayer,
  ForeignSessionControl,
  ForeignSessionDialogs,
  ForeignSessionState,
  ForeignMessages,
} from "./foreign/foreign-runtime.js";
export { signalProcessGroup, killProcessGroup } from "./os/process-group.js";
export type { SignalPlatform } from "./os/process-group.js";
export { truncateUtf8 } from "./text/utf8-truncate.js";
export { duplicateTopLevelKeys } from "./text/json-members.js";
export {
  validateWaitForIdleParams,
  validateSwitchParams,
  validateCompactParams,
  validateCompactResult,
} from "./api/validate-session-control.js";
export type {
  SessionControlParams,
  SessionSwitchParams,
  SessionCompactParams,
  SessionCompactResult,
} from "./api/validate-session-control.js";
