/**
 * Prelude part 1 of 5 (see ../pi-prelude.ts): capture and remove `__octet_host`, read the
 * environment, hold the runtime's state, and encode frames.
 *
 * Runs inside QuickJS as the start of one function body whose parameters are KNOWN_EVENTS (the
 * hookable event names) and EVENT_ALIASES (older name -> current name). Plain script code: no
 * imports, no template literals (the text lives in a String.raw template), no host APIs.
 */
export const CORE_JS = String.raw`
"use strict";
const host = globalThis.__octet_host;
if (host === null || typeof host !== "object" || typeof host.send !== "function" ||
    typeof host.setTimer !== "function" || typeof host.clearTimer !== "function") {
  throw new TypeError("pi prelude: the engine must define __octet_host {send, setTimer, clearTimer, env} first");
}
delete globalThis.__octet_host;
if (Object.prototype.hasOwnProperty.call(globalThis, "__octet_host")) {
  throw new TypeError("pi prelude: __octet_host must be configurable so that the prelude can remove it");
}

const env = host.env !== null && typeof host.env === "object" ? host.env : {};
function envList(name) {
  try {
    const value = JSON.parse(typeof env[name] === "string" ? env[name] : "[]");
    return Array.isArray(value) ? value.filter((x) => typeof x === "string") : [];
  } catch (_) {
    return [];
  }
}
const EXTENSION_ID = typeof env.PI_EXTENSION_ID === "string" && env.PI_EXTENSION_ID !== "" ? env.PI_EXTENSION_ID : "extension";
const CAPABILITIES = envList("PI_EXTENSION_CAPABILITIES");
const UI_CAPABILITIES = envList("PI_EXTENSION_UI_CAPABILITIES");
const MAX_FRAME_BYTES = Number(env.PI_EXTENSION_MAX_FRAME_BYTES) > 0 ? Number(env.PI_EXTENSION_MAX_FRAME_BYTES) : 1048576;
const PROTOCOL_VERSION = 1;
const KNOWN = new Set(KNOWN_EVENTS);

// "new" (before initialize) -> "loading" (the factory runs) -> "ready" | "failed"; any -> "closed".
let phase = "new";
let factory;
let session = null;     // the host hello: {instance, cwd, mode, projectTrusted}
let snapshot = {};      // the latest invocation context the host sent
const tools = new Map();        // name -> {name, run, definition}
const commands = new Map();     // name -> {name, handler, options}
const hooks = new Map();        // event -> [{fn, registeredAs}] in registration order
const queued = new Map();       // registrations made during the load: key -> registration
const registered = new Set();   // registration keys the host knows
const inflight = new Map();     // host request id -> invocation
const pending = new Map();      // extension request id -> {owner, settle}
const warned = new Set();
let nextRequest = 1;

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
function describe(e) {
  if (e !== null && typeof e === "object" && typeof e.message === "string") {
    return e.message !== "" ? e.message : String(e.name || "Error");
  }
  try { return String(e); } catch (_) { return "an unprintable value"; }
}
function kindOf(v) {
  if (v === undefined || v === null) return String(v);
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  return t === "object" ? "an object" : (/^[aeiou]/.test(t) ? "an " : "a ") + t;
}
function fail(message, code) {
  const error = new Error(message);
  if (code !== undefined) error.code = code;
  return error;
}
function abortError(message, name) {
  const error = new Error(message);
  error.name = name === undefined ? "AbortError" : name;
  return error;
}
const success = (value) => ({ status: "success", value: value === undefined ? null : value });
const failure = (message) => ({ status: "error", error: { message: String(message) } });

// Sends one frame. Returns null, or a sentence saying why "what" could not be sent: the engine's
// send throws a RangeError (by name: host errors arrive as plain Errors) over the frame limit.
function trySend(frame, what) {
  if (phase === "closed") return "the extension has shut down";
  let text;
  try {
    text = JSON.stringify(frame);
  } catch (e) {
    return what + " cannot be encoded as JSON: " + describe(e);
  }
  try {
    host.send(text);
    return null;
  } catch (e) {
    if (e !== null && typeof e === "object" && e.name === "RangeError") {
      return what + " is over the frame limit of " + MAX_FRAME_BYTES + " bytes";
    }
    return what + " could not be sent: " + describe(e);
  }
}

// The log frame (docs/rpi-protocol.md): pi reports handler errors and warnings to the host's
// diagnostics; there is no console here.
function log(level, message) {
  let text = String(message);
  if (text.length > 4096) text = text.slice(0, 4093) + "...";
  trySend({ type: "log", level: level, message: text }, "a log message");
}
function warnOnce(key, message) {
  if (warned.has(key)) return;
  warned.add(key);
  log("warning", message);
}
`;
