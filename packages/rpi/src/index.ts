export { PROTOCOL_VERSION, DEFAULT_MAX_FRAME_BYTES, parseExtensionFrame } from "./protocol/frames.js";
export type {
  ExtensionMode,
  InstanceId,
  InvocationContext,
  Invocation,
  RenderInvocation,
  HostRequest,
  ProtocolResult,
  HostFrame,
  ToolDescriptor,
  Registration,
  RegistrationKind,
  HelloManifest,
  ExtensionRequest,
  ExtensionFrame,
  LogLevel,
  Parsed,
} from "./protocol/frames.js";
export { PI_EVENTS_33, PI_EVENTS_NEWER, PI_EVENT_ALIASES, resolveEventName } from "./protocol/events.js";
export {
  RPI_MANIFEST_FILE,
  RPI_MANIFEST_SCHEMA_VERSION,
  RPI_CAPABILITIES,
  RPI_UI_CAPABILITIES,
  RPI_RUNTIMES,
  RPI_QUICKJS_EXCLUDED_CAPABILITIES,
  RPI_NODE_EXCLUDED_CAPABILITIES,
  RPI_ID_PATTERN,
  RPI_MAX_ID_CHARS,
  RPI_MAX_MANIFEST_ERRORS,
  parseRpiManifest,
} from "./manifest/rpi-manifest.js";
export type {
  RpiManifest,
  RpiManifestError,
  RpiManifestResult,
  RpiCapability,
  RpiUiCapability,
  RpiRuntime,
} from "./manifest/rpi-manifest.js";
export { RPI_SCRIPT_EXTENSIONS } from "./manifest/relative-path.js";
export { resolveRpiLaunch } from "./manifest/resolve-launch.js";
export type { RpiLaunch, RpiLaunchOptions, RpiLaunchResult, RpiManifestSource } from "./manifest/resolve-launch.js";
export { rpiEnvironment, NODE_DEFAULT_PATH } from "./manifest/environment.js";
export type { RpiEnvironmentOptions } from "./manifest/environment.js";
export { RPI_MAX_MANIFEST_BYTES, loadRpiManifest, readRpiManifestFile } from "./manifest/load-manifest.js";
export type { RpiLoadResult } from "./manifest/load-manifest.js";
export { rpiRuntime, PI_EXTENSION_RUNTIMES } from "./rpi-runtime.js";
export type {
  RpiRuntimeOptions,
  RpiQuickJsLimits,
  RpiForeignRuntime,
  RpiForeignExtension,
  PiExtensionRuntime,
} from "./rpi-runtime.js";
export { RpiConnection, DEFAULT_RPI_TIMEOUTS, LARGE_CONTEXT_BYTES } from "./host/rpi-connection.js";
export type {
  RpiConnectionOptions,
  RpiHostServices,
  RpiTimeouts,
  InvokeOptions,
  RpiState,
} from "./host/rpi-connection.js";
export { UI_REQUEST_GRANTS, SESSION_ACTIONS } from "./host/grants.js";
export type { RpiGrants } from "./host/grants.js";
export { launchProcess } from "./process/process-transport.js";
export type { ProcessSpec, Spawner, ProcessTransportOptions } from "./process/process-transport.js";
export type { RpiTransport, RpiTransportEvent, RpiExit } from "./transport.js";
export { launchQuickJs, DEFAULT_MEMORY_LIMIT_BYTES, MAX_STACK_BYTES } from "./quickjs/launch-quickjs.js";
export type { QuickJsOptions } from "./quickjs/launch-quickjs.js";
export { PI_PRELUDE } from "./quickjs/pi-prelude.js";
export type { OctetHostGlobal, PiPreludeBridge, PiExecResult } from "./quickjs/pi-prelude.js";
export { NODE_RUNNER_PATH } from "./node/launch-node.js";
export { bundlePiExtension, piBundleBuilds, PiBundleError, PI_IMPORT_REFUSED } from "./load/bundle.js";
export type { PiBundle, PiBundleOptions, PiBundleProblem, PiBundleTarget } from "./load/bundle.js";
export { resolvePiExtensionPath, piExtensionId, synthesizedPiManifest } from "./load/pi-source.js";
export type { PiExtensionSource, PiSourceResult } from "./load/pi-source.js";
