/**
 * Prelude part 1 of 6 (see ../pi-prelude.ts): capture the built-ins the prelude uses, capture and
 * remove `__octet_host`, read the environment, hold the runtime's state, and encode frames.
 *
 * Runs inside QuickJS as the start of one function body whose parameters are KNOWN_EVENTS (the
 * hookable event names), EVENT_ALIASES (older name -> current name) and the intrinsics
 * (Object, Array, Map, ... as they were before any extension code ran). Plain script code: no
 * imports, no template literals (the text lives in a String.raw template), no host APIs.
 *
 * Contract for every part: call built-in methods only through the names captured here (mapGet(m,
 * k), not m.get(k)); iterate arrays by index and Maps with mapForEach or the *Of helpers, never
 * with for-of or spread; add to arrays with append(); copy arrays with copy(), not slice/map/
 * filter (those construct through the replaceable Array.prototype.constructor). Extension values
 * (its results, options, errors) may be used as they come: they are the extension's own.
 */
export const CORE_JS = String.raw`
"use strict";
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const apply = Reflect.apply;
const defineProperty = Object.defineProperty;
const defineProperties = Object.defineProperties;
const objectKeys = Object.keys;
const objectAssign = Object.assign;
const freeze = Object.freeze;
const isFrozen = Object.isFrozen;
const hasOwnProperty = uncurry(Object.prototype.hasOwnProperty);
const isArray = Array.isArray;
const arrayFrom = Array.from;
const arrayIndexOf = uncurry(Array.prototype.indexOf);
const arrayIncludes = uncurry(Array.prototype.includes);
const arrayJoin = uncurry(Array.prototype.join);
const arrayEvery = uncurry(Array.prototype.every);
const mapGet = uncurry(Map.prototype.get);
const mapSet = uncurry(Map.prototype.set);
const mapHas = uncurry(Map.prototype.has);
const mapDelete = uncurry(Map.prototype.delete);
const mapClear = uncurry(Map.prototype.clear);
const mapForEach = uncurry(Map.prototype.forEach);
const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, "size").get);
const setHas = uncurry(Set.prototype.has);
const setAdd = uncurry(Set.prototype.add);
const weakMapGet = uncurry(WeakMap.prototype.get);
const weakMapSet = uncurry(WeakMap.prototype.set);
const stringify = JSON.stringify;
const parse = JSON.parse;
const stringSlice = uncurry(String.prototype.slice);
const stringStartsWith = uncurry(String.prototype.startsWith);
const PromiseResolve = Promise.resolve;
const promiseResolve = (value) => apply(PromiseResolve, Promise, [value]);
const PromiseReject = Promise.reject;
const promiseReject = (reason) => apply(PromiseReject, Promise, [reason]);
const promiseThen = uncurry(Promise.prototype.then);
const mathMin = Math.min;
const mathMax = Math.max;
const mathFloor = Math.floor;
const numberIsFinite = Number.isFinite;

// A property defined, not assigned: a setter the extension put on a prototype cannot take it.
function put(object, key, value) {
  defineProperty(object, key, { __proto__: null, value: value, writable: true, enumerable: true, configurable: true });
  return object;
}
function append(list, value) {
  put(list, list.length, value);
}
function copy(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) append(out, list[i]);
  return out;
}
// The list without the element at index i (a new array).
function without(list, index) {
  const out = [];
  for (let i = 0; i < list.length; i++) if (i !== index) append(out, list[i]);
  return out;
}
function keysOf(map) {
  const out = [];
  mapForEach(map, (_value, key) => append(out, key));
  return out;
}
function valuesOf(map) {
  const out = [];
  mapForEach(map, (value) => append(out, value));
  return out;
}

const host = globalThis.__octet_host;
if (host === null || typeof host !== "object" || typeof host.send !== "function" ||
    typeof host.setTimer !== "function" || typeof host.clearTimer !== "function") {
  throw new TypeError("pi prelude: the engine must define __octet_host {send, setTimer, clearTimer, env} first");
}
delete globalThis.__octet_host;
if (hasOwnProperty(globalThis, "__octet_host")) {
  throw new TypeError("pi prelude: __octet_host must be configurable so that the prelude can remove it");
}

const env = host.env !== null && typeof host.env === "object" ? host.env : {};
// The engine's name in refusals ("... is not available to QuickJS extensions").
const RUNTIME = typeof host.runtimeName === "string" && host.runtimeName !== "" ? host.runtimeName : "QuickJS";
function envList(name) {
  try {
    const value = parse(typeof env[name] === "string" ? env[name] : "[]");
    const out = [];
    if (isArray(value)) for (let i = 0; i < value.length; i++) if (typeof value[i] === "string") append(out, value[i]);
    return out;
  } catch (_) {
    return [];
  }
}
const EXTENSION_ID =
  typeof env.PI_EXTENSION_ID === "string" && env.PI_EXTENSION_ID !== "" ? env.PI_EXTENSION_ID : "extension";
const CAPABILITIES = envList("PI_EXTENSION_CAPABILITIES");
const UI_CAPABILITIES = envList("PI_EXTENSION_UI_CAPABILITIES");
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
const inflight = new Map();     // host request id -> invocation
const pending = new Map();      // extension request id -> {owner, settle}
const warned = new Set();
let nextRequest = 1;

const hasOwn = (o, k) => hasOwnProperty(o, k);
const isObject = (v) => v !== null && typeof v === "object" && !isArray(v);
// Built-in error names worth keeping in a message: "TypeError: x" says more than "x" (an Error's
// own name adds nothing, and an extension's custom names are its own business).
const KEPT_NAMES = new Set(["TypeError", "RangeError", "ReferenceError", "SyntaxError", "InternalError", "URIError",
    "EvalError"]);
// QuickJS says only "not a function": the engine can name the callee from the stack (callee.ts).
const callee = typeof host.callee === "function" ? host.callee : () => undefined;
// The message of a thrown value (never throws: a getter that throws is the extension's problem).
function messageOf(e) {
  try {
    if (e !== null && typeof e === "object" && typeof e.message === "string") {
      let message = e.message;
      if ((message === "not a function" || message === "not a constructor") && typeof e.stack === "string") {
        const what = callee(e.stack);
        if (typeof what === "string" && what !== "") message = what + " is " + message;
      }
      return message !== "" ? message : String(e.name || "Error");
    }
    return String(e);
  } catch (_) {
    return "an unprintable value";
  }
}
// What the extension's code threw, as a user reads it: "TypeError: x is not a function".
function describe(e) {
  const message = messageOf(e);
  try {
    const name = e !== null && typeof e === "object" && typeof e.name === "string" ? e.name : "";
    return setHas(KEPT_NAMES, name) && message !== name ? name + ": " + message : message;
  } catch (_) {
    return message;
  }
}
function kindOf(v) {
  if (v === undefined || v === null) return String(v);
  if (isArray(v)) return "an array";
  const t = typeof v;
  // The other typeof names (string, number, boolean, function, symbol, bigint) take "a".
  return t === "object" ? "an object" : "a " + t;
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

// Sends one frame. Returns null, or a sentence saying why "what" could not be sent, with the
// engine's own message (over the frame limit or the outbound rate: it names the size and the limit).
function trySend(frame, what) {
  if (phase === "closed") return "the extension has shut down";
  let text;
  try {
    text = stringify(frame);
  } catch (e) {
    return what + " cannot be encoded as JSON: " + messageOf(e);
  }
  try {
    host.send(text);
    return null;
  } catch (e) {
    // The engine's own message names the size or rate and the limit.
    return what + " could not be sent: " + messageOf(e);
  }
}

// The log frame (docs/rpi-protocol.md): pi reports handler errors and warnings to the host's
// diagnostics; there is no console here.
function log(level, message) {
  let text = String(message);
  if (text.length > 4096) text = stringSlice(text, 0, 4093) + "...";
  trySend({ type: "log", level: level, message: text }, "a log message");
}
function warnOnce(key, message) {
  if (setHas(warned, key)) return;
  setAdd(warned, key);
  log("warning", message);
}
`;
