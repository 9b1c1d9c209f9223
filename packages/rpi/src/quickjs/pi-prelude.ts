/**
 * The pi prelude: JavaScript that runs inside an extension's QuickJS context before the
 * extension, and implements pi's ExtensionAPI (`export default function (pi) {...}`) by
 * exchanging rpi frames (docs/rpi-protocol.md) with the host as JSON strings.
 *
 * This module owns the prelude's source text and its contract with the engine; the engine
 * (worker thread, runtime limits, module loading) owns everything around it.
 *
 * Contract with the engine:
 * - Before the prelude runs, the global `__octet_host` (see OctetHostGlobal) exists and is
 *   configurable. The prelude captures it and deletes it from globalThis.
 * - PI_PRELUDE is evaluated as a global script; its completion value is the PiPreludeBridge.
 *   The engine calls setFactory(defaultExport) once after evaluating the entry module,
 *   receive(text) for every host frame, fireTimer(id) when a timer set with setTimer fires, and
 *   drains the job queue after every call. No bridge method throws.
 * - The prelude defines setTimeout/clearTimeout/setInterval/clearInterval, AbortController and
 *   AbortSignal (a documented shim, prelude/globals.ts), and structuredClone and queueMicrotask
 *   when QuickJS lacks them, unless `nativeGlobals` says the realm has its own. It defines nothing
 *   host-like (no console, process, require, fetch); the extension's console is parked on a
 *   non-enumerable `__octet_console` for its bundle until setFactory removes it (prelude/console.ts).
 * - Runtime-specific API comes through optional members of `__octet_host` (`exec`), so the one
 *   prelude text serves QuickJS and the Node runner (src/node/).
 * - Besides the catalog's frames it sends `{type:"log", level, message}` (handler errors, alias
 *   warnings), which the host must accept.
 *
 * The source is written as six String.raw parts (prelude/*.ts, one concern each) joined into
 * one function body. The event names come from protocol/events.ts, so the prelude and the host
 * cannot disagree on them.
 *
 * Extension code shares the realm, so it can replace any global or built-in method. The prelude
 * uses only built-ins captured before the extension ran (INTRINSICS below, and the call-bound
 * methods at the top of prelude/core.ts), never iterates with for-of or spread (the iterator
 * methods are replaceable too), and appends to arrays by definition rather than assignment.
 */
import { PI_EVENTS_33, PI_EVENTS_NEWER, PI_EVENT_ALIASES } from "../protocol/events.js";
import { CORE_JS } from "./prelude/core.js";
import { GLOBALS_JS } from "./prelude/globals.js";
import { CONSOLE_JS } from "./prelude/console.js";
import { RENDER_JS } from "./prelude/render.js";
import { HOST_CALLS_JS } from "./prelude/host-calls.js";
import { API_JS } from "./prelude/api.js";
import { CTX_JS } from "./prelude/ctx.js";
import { DISPATCH_JS } from "./prelude/dispatch.js";
import { SESSION_JS } from "./prelude/session.js";
import { USER_BASH_JS } from "./prelude/user-bash.js";

/** The global the engine defines before evaluating PI_PRELUDE. */
export interface OctetHostGlobal {
  /**
   * Sends one frame (a JSON text). Throws a RangeError over the frame limit or the outbound rate;
   * its message names the size and the limit, and the prelude passes it on.
   */
  send(text: string): void;
  /** Arms timer `id`; when it fires, the engine calls bridge.fireTimer(id). Re-arming replaces. */
  setTimer(id: number, delayMs: number): void;
  clearTimer(id: number): void;
  env: {
    PI_EXTENSION_ID: string;
    PI_EXTENSION_PACKAGE_ID: string;
    PI_EXTENSION_ENTRY: string;
    /** JSON array of strings. */
    PI_EXTENSION_CAPABILITIES: string;
    /** JSON array of strings. */
    PI_EXTENSION_UI_CAPABILITIES: string;
    PI_EXTENSION_MAX_FRAME_BYTES: string;
    PI_EXTENSION_PROTOCOL_VERSION: string;
  };
  /**
   * Optional (the Node runner sets it; QuickJS does not): the realm already has the web globals.
   * The prelude then defines none of its own (timers, AbortController, AbortSignal) and gives
   * each invocation a native AbortController, so ctx.signal works with the engine's own APIs
   * (fetch, child_process). Its own timers still go through setTimer.
   */
  nativeGlobals?: boolean;
  /** Optional: the engine's name in the prelude's refusals ("not available to Node extensions"); default "QuickJS". */
  runtimeName?: string;
  /**
   * Optional: pi.exec for an engine that can run processes (the Node runner). Called with pi's
   * three arguments as the extension passed them, plus the working directory of the session (the
   * invocation's cwd, else the hello's), which is pi's default. Absent: pi.exec rejects with code
   * "unsupported".
   */
  exec?(command: unknown, args: unknown, options: unknown, cwd: string | undefined): Promise<PiExecResult>;
}

/** pi's ExecResult (pi-coding-agent core/exec.ts). */
export interface PiExecResult {
  stdout: string;
  stderr: string;
  code: number;
  killed: boolean;
}

/** The completion value of PI_PRELUDE, as the engine sees it inside QuickJS. */
export interface PiPreludeBridge {
  receive(text: string): void;
  setFactory(value: unknown): void;
  fireTimer(id: number): void;
}

const KNOWN_EVENTS: readonly string[] = [...PI_EVENTS_33, ...PI_EVENTS_NEWER];

/**
 * The built-in constructors and namespaces the prelude uses, passed to its function as
 * parameters of the same names: evaluated once, before any extension code runs, so that an
 * extension that replaces a global (globalThis.Map = ...) does not change the prelude's. Their
 * methods are captured at the top of prelude/core.ts.
 */
const INTRINSICS = [
  "Object",
  "Array",
  "Map",
  "Set",
  "WeakMap",
  "Promise",
  "JSON",
  "String",
  "Number",
  "Math",
  "Error",
  "TypeError",
  "Reflect",
  "Function",
];

export const PI_PRELUDE: string = [
  `(function (KNOWN_EVENTS, EVENT_ALIASES, ${INTRINSICS.join(", ")}) {`,
  CORE_JS,
  GLOBALS_JS,
  CONSOLE_JS,
  HOST_CALLS_JS,
  SESSION_JS,
  RENDER_JS,
  API_JS,
  CTX_JS,
  USER_BASH_JS,
  DISPATCH_JS,
  `})(${JSON.stringify(KNOWN_EVENTS)}, ${JSON.stringify(PI_EVENT_ALIASES)}, ${INTRINSICS.join(", ")});`,
  "",
].join("\n");
