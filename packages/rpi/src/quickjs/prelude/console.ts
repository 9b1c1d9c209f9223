/**
 * Prelude part: the console a pi extension's own code logs with, as `log` frames (the
 * extension's diagnostics in the host). Runs after core.ts (log, describe, the captured built-ins).
 *
 * QuickJS keeps no `console` global (QJS-17): the prelude parks this console on the
 * non-enumerable global `__octet_console`, the bundler binds a module-local `console` to it in
 * the bundle's first line (load/bundle.ts, CONSOLE_BANNER), and setFactory removes the global
 * once the entry module has run, so extension code reaches it only through its own `console`.
 * The Node runner has its own console (node/console.ts): there nothing is parked.
 *
 * Levels: log, info, debug, dir, table, trace -> "info" (trace and a failed assert go to "error");
 * warn -> "warning"; error -> "error". Arguments are joined by spaces: strings as they are, Errors
 * by describe() with their stack, other objects as JSON (String() when not encodable), with the
 * format directives %s %d %i %f %j %o %O %% of the first argument. group, time, count and the
 * other bookkeeping methods are accepted and log nothing. Every frame goes through trySend, so a
 * console loop is bounded by the outbound rate like every other frame (past it, lines are dropped).
 */
export const CONSOLE_JS = String.raw`
const stringIndexOf = uncurry(String.prototype.indexOf);
function consoleArg(v) {
  if (typeof v === "string") return v;
  if (v === undefined) return "undefined";
  if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
  if (v !== null && typeof v === "object") {
    if (v instanceof Error) {
      const stack = typeof v.stack === "string" && v.stack !== "" ? "\n" + v.stack : "";
      return describe(v) + stack;
    }
    try {
      const text = stringify(v);
      if (typeof text === "string") return text;
    } catch (_) {
      // A cycle or a BigInt: String() below.
    }
  }
  try { return String(v); } catch (_) { return "an unprintable value"; }
}
function consoleText(args) {
  const parts = [];
  let start = 0;
  if (typeof args[0] === "string" && args.length > 1) {
    let next = 1;
    let out = "";
    const first = args[0];
    for (let i = 0; i < first.length; i++) {
      const c = first[i];
      const d = first[i + 1];
      if (c !== "%" || d === undefined) { out += c; continue; }
      if (d === "%") { out += "%"; i++; continue; }
      if (stringIndexOf("sdifjoO", d) < 0) { out += c; continue; }
      i++;
      if (next >= args.length) { out += "%" + d; continue; }
      const a = args[next++];
      out += d === "d" || d === "i" ? String(mathFloor(Number(a))) : d === "f" ? String(Number(a)) : consoleArg(a);
    }
    append(parts, out);
    start = next;
  }
  for (let i = start; i < args.length; i++) append(parts, consoleArg(args[i]));
  return arrayJoin(parts, " ");
}
function consoleAt(level) {
  return function () {
    log(level, consoleText(arguments));
  };
}
const quietly = () => undefined;
const extensionConsole = freeze({
  log: consoleAt("info"),
  info: consoleAt("info"),
  debug: consoleAt("info"),
  dir: consoleAt("info"),
  table: consoleAt("info"),
  warn: consoleAt("warning"),
  error: consoleAt("error"),
  trace: consoleAt("error"),
  assert(condition) {
    if (condition) return;
    const rest = [];
    for (let i = 1; i < arguments.length; i++) append(rest, arguments[i]);
    log("error", "Assertion failed" + (rest.length > 0 ? ": " + consoleText(rest) : ""));
  },
  group: quietly, groupCollapsed: quietly, groupEnd: quietly, time: quietly, timeEnd: quietly, timeLog: quietly,
  count: quietly, countReset: quietly, clear: quietly,
});
if (host.nativeGlobals !== true) {
  defineProperty(globalThis, "__octet_console", { __proto__: null, value: extensionConsole, writable: false,
      enumerable: false, configurable: true });
}
// After the entry module ran (setFactory): the bundle's own console has it, nothing else may.
function dropConsoleGlobal() {
  if (hasOwnProperty(globalThis, "__octet_console")) delete globalThis.__octet_console;
}
`;
