/**
 * Prelude part 2 of 6: the web-style globals extensions expect, and nothing host-like.
 *
 * - setTimeout/clearTimeout/setInterval/clearInterval on the engine's setTimer/clearTimer.
 *   String callbacks are refused (no eval of strings). Delays are clamped to 0..2^31-1 ms and an
 *   interval to at least 1 ms. The id is a number.
 * - AbortController/AbortSignal: signal.aborted, signal.reason, addEventListener("abort", fn)
 *   (functions or {handleEvent}), removeEventListener, onabort, throwIfAborted, and the static
 *   AbortSignal.abort, AbortSignal.timeout and AbortSignal.any. Missing: EventTarget and
 *   dispatchEvent, DOMException (the default reason is an Error named "AbortError"), the
 *   listener options (once is implied since abort fires once; {signal} is ignored), and
 *   event.preventDefault. onabort runs before the listeners.
 * - structuredClone, only when QuickJS lacks it: a JSON round trip. It drops undefined members
 *   and functions, turns Dates into strings, Maps and Sets into {}, and throws on cycles and
 *   BigInts. queueMicrotask, only when QuickJS lacks it.
 */
export const GLOBALS_JS = String.raw`
// host.nativeGlobals (the Node runner): the realm's own web globals stay, and invocations get
// native controllers, so that ctx.signal can go to fetch or child_process.
const NativeAbortController = host.nativeGlobals === true && typeof globalThis.AbortController === "function" ?
  globalThis.AbortController : null;
const nativeControllers = new WeakMap();   // native AbortSignal -> its controller
const timers = new Map();   // id -> {callback, args, every (ms, or -1 for a one-shot)}
let nextTimer = 1;
function delayOf(ms) {
  const n = Number(ms);
  return n > 0 ? mathMin(mathFloor(n), 2147483647) : 0;
}
function arm(callback, ms, args, repeat) {
  if (typeof callback !== "function") {
    throw new TypeError("the timer callback must be a function (string callbacks are not supported)");
  }
  const id = nextTimer++;
  const delay = repeat ? mathMax(delayOf(ms), 1) : delayOf(ms);
  mapSet(timers, id, { callback: callback, args: args, every: repeat ? delay : -1 });
  if (phase !== "closed") host.setTimer(id, delay);
  return id;
}
function disarm(id) {
  const key = Number(id);
  if (mapDelete(timers, key) && phase !== "closed") host.clearTimer(key);
}
function fireTimer(id) {
  const key = Number(id);
  const timer = mapGet(timers, key);
  if (timer === undefined || phase === "closed") return;
  if (timer.every >= 0) host.setTimer(key, timer.every);
  else mapDelete(timers, key);
  try {
    apply(timer.callback, undefined, timer.args);
  } catch (e) {
    log("error", "a timer callback threw: " + describe(e));
  }
}

const CONSTRUCT = {};
// A signal's state is a private field, made on its first change: every invocation gets a signal,
// and few are listened to or aborted. Until then it reads as this frozen state (a WeakMap entry,
// a state object and a listener array per signal were about 3 us of a QuickJS call).
const UNTOUCHED = freeze({ aborted: false, reason: undefined, listeners: freeze([]) });
let stateOf = null;
// The state of a signal, made when create and there is none yet; a TypeError for anything else.
function signalState(signal, create) {
  return stateOf(signal, create);
}
class AbortSignal {
  #state = null;
  constructor(key) {
    if (key !== CONSTRUCT) throw new TypeError("Illegal constructor: use new AbortController().signal");
    this.onabort = null;
  }
  static {
    // The prelude's own reach into a signal; extension code can neither read nor change it.
    stateOf = (signal, create) => {
      if (signal === null || typeof signal !== "object" || !(#state in signal)) {
        throw new TypeError("not an AbortSignal");
      }
      if (signal.#state === null) {
        if (!create) return UNTOUCHED;
        signal.#state = { aborted: false, reason: undefined, listeners: [] };
      }
      return signal.#state;
    };
  }
  get aborted() { return signalState(this, false).aborted; }
  get reason() { return signalState(this, false).reason; }
  throwIfAborted() {
    const state = signalState(this, false);
    if (state.aborted) throw state.reason;
  }
  addEventListener(type, listener) {
    const state = signalState(this, true);
    const usable = typeof listener === "function" ||
      (listener !== null && typeof listener === "object" && typeof listener.handleEvent === "function");
    if (type !== "abort" || !usable || state.aborted || arrayIncludes(state.listeners, listener)) return;
    append(state.listeners, listener);
  }
  removeEventListener(type, listener) {
    const state = signalState(this, false);
    const i = type === "abort" ? arrayIndexOf(state.listeners, listener) : -1;
    if (i >= 0) state.listeners = without(state.listeners, i);
  }
  static abort(reason) {
    const controller = new AbortController();
    controller.abort(reason);
    return controller.signal;
  }
  static timeout(ms) {
    const controller = new AbortController();
    arm(() => controller.abort(abortError("The operation timed out", "TimeoutError")), ms, [], false);
    return controller.signal;
  }
  static any(list) {
    const controller = new AbortController();
    const inputs = arrayFrom(list);
    for (let i = 0; i < inputs.length; i++) {
      const signal = inputs[i];
      if (signal.aborted) {
        controller.abort(signal.reason);
        break;
      }
      signal.addEventListener("abort", () => controller.abort(signal.reason));
    }
    return controller.signal;
  }
}
function abortSignal(signal, reason) {
  const native = weakMapGet(nativeControllers, signal);
  if (native !== undefined) {
    return native.abort(reason === undefined ? abortError("This operation was aborted") : reason);
  }
  const state = signalState(signal, true);
  if (state.aborted) return;
  state.aborted = true;
  state.reason = reason === undefined ? abortError("This operation was aborted") : reason;
  const event = { type: "abort", target: signal, currentTarget: signal };
  const listeners = state.listeners;
  state.listeners = [];
  const run = (listener) => {
    try {
      if (typeof listener === "function") apply(listener, signal, [event]);
      else listener.handleEvent(event);
    } catch (e) {
      log("error", "an abort listener threw: " + describe(e));
    }
  };
  if (typeof signal.onabort === "function") run(signal.onabort);
  for (let i = 0; i < listeners.length; i++) run(listeners[i]);
}
class AbortController {
  constructor() {
    defineProperty(this, "signal", { __proto__: null, value: new AbortSignal(CONSTRUCT), enumerable: true });
  }
  abort(reason) { abortSignal(this.signal, reason); }
}

// The controller of an invocation's ctx.signal; abortSignal aborts either kind.
function newController() {
  if (NativeAbortController === null) return new AbortController();
  const controller = new NativeAbortController();
  weakMapSet(nativeControllers, controller.signal, controller);
  return controller;
}

function defineGlobal(name, value) {
  if (NativeAbortController !== null) return;
  defineProperty(globalThis, name, { __proto__: null, value: value, writable: true, configurable: true,
      enumerable: false });
}
defineGlobal("setTimeout", function setTimeout(callback, ms, ...args) { return arm(callback, ms, args, false); });
defineGlobal("clearTimeout", function clearTimeout(id) { disarm(id); });
defineGlobal("setInterval", function setInterval(callback, ms, ...args) { return arm(callback, ms, args, true); });
defineGlobal("clearInterval", function clearInterval(id) { disarm(id); });
defineGlobal("AbortController", AbortController);
defineGlobal("AbortSignal", AbortSignal);
if (typeof globalThis.structuredClone !== "function") {
  defineGlobal("structuredClone", function structuredClone(value) {
    if (value === undefined) return undefined;
    const text = stringify(value);
    return text === undefined ? undefined : parse(text);
  });
}
if (typeof globalThis.queueMicrotask !== "function") {
  defineGlobal("queueMicrotask", function queueMicrotask(callback) {
    if (typeof callback !== "function") throw new TypeError("queueMicrotask needs a function");
    promiseThen(promiseResolve(undefined), () => {
      try { callback(); } catch (e) { log("error", "a microtask threw: " + describe(e)); }
    });
  });
}
`;
