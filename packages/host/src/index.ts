export { ExtensionHost } from "./host/extension-host.js";
export type {
  ExtensionHostOptions,
  CallOptions,
  HostTool,
  HostCommand,
  ToolCallOutcome,
  HookOutcome,
  ConfirmService,
  InputService,
  MenuOutcome,
  RenderInput,
  Contributions,
} from "./host/extension-host.js";
export type { ExtensionStatus, ExtensionState, Health } from "./host/extension-status.js";
export { notReadyReasons } from "./host/extension-status.js";
export type { HostEvent, HostEventListener, GenerationState, DiagnosticLevel } from "./events.js";
export type { HostServiceOptions } from "./modules/registry.js";
export type {
  PresentationRecord,
  PresentationClock,
  PresentationServiceOptions,
} from "./modules/presentation/presentation-service.js";
export { parseManifest } from "./manifest/manifest.js";
export type { ExtensionManifest, ManifestError } from "./manifest/manifest.js";
export { discoverExtensions, resolveOctetHome } from "./manifest/discovery.js";
export type { DiscoveredExtension } from "./manifest/discovery.js";
export type { LifecycleMethod } from "./generation/lifecycle.js";
export type { SupervisionState, SupervisorClock, SupervisorEvent } from "./supervision/supervisor.js";
export { decideRestart, backoffCeiling, DEFAULT_RESTART_POLICY } from "./supervision/restart-policy.js";
export type { RestartPolicy, RestartDecision, RestartBudget } from "./supervision/restart-policy.js";
export { CatalogSnapshot } from "./host/catalog-snapshot.js";
export type { CatalogEntry } from "./host/catalog-snapshot.js";
export type { DynamicToolsOptions } from "./modules/dynamic-tools/dynamic-tools.js";
export type { Artifact, ResolvedMedia, ArtifactLimits } from "./modules/artifacts/artifact-store.js";
export type { ArtifactServiceOption } from "./modules/artifacts/artifacts-service.js";
export type {
  PolicyOptions,
  PolicyClassifyRequest,
  PolicyApproveRequest,
  ClassifiedIntent,
} from "./modules/policy/policy-service.js";
export type {
  SecretBroker,
  SecretRequest,
  SecretValue,
  ProviderCredentialsOptions,
  ProviderCredentialRequest,
} from "./modules/secrets/secret-service.js";
export {
  parsePolicyRules,
  policyFormatOf,
  decideOperation,
  rulesClassifier,
  MAX_POLICY_FILE_BYTES,
} from "./modules/policy/policy-rules.js";
export type { PolicyRules } from "./modules/policy/policy-rules.js";
export type { CacheWarmingAdvice } from "./modules/advisory-hooks/advisory-hooks.js";
export type {
  SessionEntriesService,
  SessionEntryRequester,
} from "./modules/session-entries/session-entries-service.js";
export { TurnHookError, TURN_HOOK_DEFAULT_TIMEOUT_MS } from "./modules/session-entries/turn-hooks.js";
export { CompactionHookError } from "./modules/session-control/compaction-hooks.js";
export type { CompactionHookOptions, CompactionHookOutcome } from "./modules/session-control/compaction-hooks.js";
export type { CompactionHookApi } from "./modules/session-control/module.js";
export type { MessageInjectionService } from "./modules/message-injection/module.js";
export type { ActiveToolsService } from "./modules/active-tools/module.js";
export type { Wave1Requester } from "./modules/wave1-owner.js";
export type {
  SessionControlRequester,
  SessionControlService,
} from "./modules/session-control/session-control-service.js";
export type { FrontendService, LiveShortcut } from "./modules/frontend/frontend-service.js";
export type { FrontendApi } from "./modules/frontend/module.js";
export type { ForeignEventTarget, ForeignEventsApi } from "./modules/foreign-events/module.js";
export { AUTOCOMPLETE_DEADLINE_MS } from "./modules/frontend/autocomplete-chain.js";
export type { CompleteOptions, DraftCompletion } from "./modules/frontend/autocomplete-chain.js";
export type { TurnHookOptions, TurnHookOutcome } from "./modules/session-entries/turn-hooks.js";
export type { TerminalRequester, TerminalService } from "./modules/terminal/module.js";
export type {
  ForeignRuntime,
  ForeignExtension,
  ForeignLaunchContext,
  ForeignLaunched,
  ForeignSessionEvents,
  ForeignSessionLayer,
  ForeignSessionControl,
  ForeignSessionDialogs,
  ForeignSessionState,
  LaunchedChild,
} from "./foreign-runtime.js";
export { FrameTrace, REDACTED } from "./transport/frame-trace.js";
export type { TraceRecord, TraceDirection } from "./transport/frame-trace.js";
export { checkExtension } from "./check/check-extension.js";
export type { CheckOptions, CheckReport, CheckResult } from "./check/check-extension.js";
export { StrictLines } from "./check/strict-lines.js";
export { envelopeProblem } from "./check/envelope.js";
