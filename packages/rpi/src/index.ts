export { PROTOCOL_VERSION, DEFAULT_MAX_FRAME_BYTES, parseExtensionFrame } from "./protocol/frames.js";
export type {
  ExtensionMode, InstanceId, InvocationContext, Invocation, HostRequest, ProtocolResult, HostFrame, ToolDescriptor,
  Registration, RegistrationKind, HelloManifest, ExtensionRequest, ExtensionFrame, Parsed,
} from "./protocol/frames.js";
export { PI_EVENTS_33, PI_EVENTS_NEWER, PI_EVENT_ALIASES, resolveEventName } from "./protocol/events.js";
