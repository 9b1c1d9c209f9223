/**
 * The modules a pi extension imports from pi's own packages, as bundled into a QuickJS extension
 * (bundle.ts): the values that make sense without a terminal or Node are small real
 * implementations, every other name is an export that throws a clean refusal naming it when it is
 * used (called, constructed, or a property of it read). Type-only imports are erased by the
 * TypeScript transform and never reach these modules.
 *
 * Why CommonJS text: an ES module must list its export names, and a pi extension may import any
 * of the hundreds pi exports. esbuild turns a named import from a CommonJS module into a
 * property read at the place of use, and its interop object inherits the prototype of
 * `module.exports`, so a Proxy there answers every name this file does not define. An unknown
 * name costs nothing until the extension really uses it (`class X extends CustomEditor` loads;
 * `new X()` throws the refusal).
 *
 * `typebox` and `@sinclair/typebox` are not here: the real @sinclair/typebox runs in QuickJS and
 * is bundled in (bundle.ts); `typebox` 1.x needs TextEncoder, which QuickJS lacks.
 */
import { PI_TUI_TEXT } from "./tui-text.js";

/**
 * What a QuickJS bundle's free `process` references become (bundle.ts defines them to it): any
 * property read is a clean refusal naming it, not a ReferenceError. QuickJS has no Node globals.
 */
export const NO_PROCESS_BANNER = String.raw`const __octet_no_process = new Proxy({}, { get(_, key) {
  if (typeof key === "symbol") return undefined;
  throw new Error('octet cannot provide the Node global "process" (process.' + String(key) + ') in QuickJS: ' +
    "it needs Node; run it as a process extension");
} });`;

/**
 * The bundle's module-local `console` (QJS-17 keeps the global away): the prelude's console, which
 * it parks on `__octet_console` until the entry has run (quickjs/prelude/console.ts); a realm
 * without it (the bundle evaluated elsewhere) gets its own console, or one that prints nothing.
 */
export const CONSOLE_BANNER = String.raw`const console = globalThis.__octet_console !== undefined ?
  globalThis.__octet_console : typeof globalThis.console === "object" && globalThis.console !== null ?
  globalThis.console : new Proxy({}, { get: () => () => undefined });`;

/** Bumped with any change to the shims or the bundler's output shape: part of every cache key. */
export const PI_LOADER_VERSION = "octet-pi-loader-5";

/** The pi version the shims stand in for (VERSION of @mariozechner/pi-coding-agent). */
export const PI_SHIM_VERSION = "0.73.1";

/** Packages served by a shim in QuickJS, and the refusal reason for the names they do not implement. */
export const PI_SHIMMED_PACKAGES: Readonly<Record<string, string>> = {
  "@mariozechner/pi-coding-agent": "it needs Node or the terminal UI, which the QuickJS sandbox does not have",
  "@mariozechner/pi-ai": "there is no model API inside the QuickJS sandbox",
  "@mariozechner/pi-agent-core": "there is no agent core inside the QuickJS sandbox",
  "@mariozechner/pi-tui": "no terminal UI component API",
};

/**
 * The shared part of every shim: `refused(pkg, name, why)` builds the stand-in for a name the shim
 * does not implement, `fallback(pkg, why)` the prototype that produces them.
 */
const BASE = String.raw`
function refusal(pkg, name, why) {
  return pkg === "@mariozechner/pi-tui"
    ? 'octet cannot render the pi-tui component "' + name + '" (' + why + ')'
    : 'octet cannot provide "' + name + '" from ' + pkg + ' in QuickJS: ' + why;
}
function refused(pkg, name, why) {
  const fail = function () { throw new Error(refusal(pkg, name, why)); };
  const Refused = function () { fail(); };
  return new Proxy(Refused, {
    get(target, key) {
      if (key === "prototype") return target.prototype;
      if (key === "name") return name;
      if (typeof key === "symbol") return undefined;
      fail();
    },
    apply: fail,
    construct: fail,
  });
}
function fallback(pkg, why) {
  const made = new Map();
  return new Proxy({}, {
    get(_, key) {
      if (typeof key !== "string" || key === "then" || key === "__esModule") return undefined;
      if (!made.has(key)) made.set(key, refused(pkg, key, why));
      return made.get(key);
    },
  });
}
function exportsOf(pkg, why, known) {
  return Object.setPrototypeOf(Object.assign({ __esModule: true }, known), fallback(pkg, why));
}
`;

const CODING_AGENT = String.raw`
const queues = new Map();
function withFileMutationQueue(path, fn) {
  const before = queues.get(path) || Promise.resolve();
  const run = before.then(() => fn());
  const settled = run.then(() => undefined, () => undefined);
  queues.set(path, settled);
  settled.then(() => { if (queues.get(path) === settled) queues.delete(path); });
  return run;
}
function parseFrontmatter(content) {
  const text = String(content).replace(/\r\n/g, "\n");
  if (!text.startsWith("---\n")) return { frontmatter: {}, body: text };
  const end = text.indexOf("\n---", 4);
  if (end < 0) return { frontmatter: {}, body: text };
  const frontmatter = {};
  for (const line of text.slice(4, end).split("\n")) {
    const m = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    frontmatter[m[1]] = v === "true" ? true : v === "false" ? false : v;
  }
  const after = text.indexOf("\n", end + 4);
  return { frontmatter, body: after < 0 ? "" : text.slice(after + 1) };
}
const toolIs = (name) => (e) => e != null && e.toolName === name;
module.exports = exportsOf("@mariozechner/pi-coding-agent", WHY, {
  VERSION: PI_VERSION,
  defineTool: (tool) => tool,
  getAgentDir: () => "~/.pi/agent",
  withFileMutationQueue,
  parseFrontmatter,
  stripFrontmatter: (content) => parseFrontmatter(content).body,
  isToolCallEventType: (toolName, event) => event != null && event.toolName === toolName,
  isBashToolResult: toolIs("bash"),
  isReadToolResult: toolIs("read"),
  isEditToolResult: toolIs("edit"),
  isWriteToolResult: toolIs("write"),
  isGrepToolResult: toolIs("grep"),
  isFindToolResult: toolIs("find"),
  isLsToolResult: toolIs("ls"),
});
`;

const PI_AI = String.raw`
const { Type } = require("@sinclair/typebox");
function StringEnum(values, options) {
  return Type.Unsafe(Object.assign({ type: "string", enum: values },
    options && options.description ? { description: options.description } : {},
    options && options.default ? { default: options.default } : {}));
}
module.exports = exportsOf("@mariozechner/pi-ai", WHY, { StringEnum, Type });
`;

/** pi-tui's pure helpers: width and key matching without a terminal; the text components (tui-text.ts). */
const PI_TUI = String.raw`
const ANSI = /\u001b\[[0-9;?]*[ -\/]*[@-~]|\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)/g;
const cells = (ch) => {
  const c = ch.codePointAt(0);
  if (c < 32 || (c >= 0x300 && c < 0x370) || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) return 0;
  const wide = (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) || (c >= 0x20000 && c <= 0x3fffd);
  return wide ? 2 : 1;
};
function visibleWidth(text) {
  let w = 0;
  for (const ch of String(text).replace(ANSI, "")) w += cells(ch);
  return w;
}
function truncateToWidth(text, maxWidth, ellipsis, pad) {
  const s = String(text);
  const tail = ellipsis === undefined ? "..." : String(ellipsis);
  if (visibleWidth(s) <= maxWidth) return pad ? s + " ".repeat(maxWidth - visibleWidth(s)) : s;
  const room = Math.max(0, maxWidth - visibleWidth(tail));
  let out = "";
  let w = 0;
  for (const ch of s.replace(ANSI, "")) {
    if (w + cells(ch) > room) break;
    out += ch;
    w += cells(ch);
  }
  return out + tail;
}
const NAMED = { escape: "\u001b", esc: "\u001b", enter: "\r", return: "\r", tab: "\t", space: " ",
  backspace: "\u007f", up: "\u001b[A", down: "\u001b[B", right: "\u001b[C", left: "\u001b[D",
  home: "\u001b[H", end: "\u001b[F", delete: "\u001b[3~" };
function sequenceOf(keyId) {
  const parts = String(keyId).toLowerCase().split("+");
  const key = parts.pop();
  const mods = new Set(parts);
  if (mods.has("ctrl") && key.length === 1 && key >= "a" && key <= "z")
    return String.fromCharCode(key.charCodeAt(0) - 96);
  const base = NAMED[key] !== undefined ? NAMED[key] : key;
  if (mods.has("shift") && key === "tab") return "\u001b[Z";
  if (mods.has("alt")) return "\u001b" + base;
  return mods.has("shift") && key.length === 1 ? key.toUpperCase() : base;
}
const matchesKey = (data, keyId) => data === sequenceOf(keyId);
function parseKey(data) {
  for (const name of Object.keys(NAMED)) if (NAMED[name] === data) return name;
  if (data.length === 1 && data.charCodeAt(0) >= 1 && data.charCodeAt(0) <= 26)
    return "ctrl+" + String.fromCharCode(data.charCodeAt(0) + 96);
  return data;
}
// A subsequence match scored by the gaps and the position of the matched letters (lower is better).
function fuzzyMatch(query, text) {
  const q = String(query).toLowerCase();
  const t = String(text).toLowerCase();
  let at = 0;
  let score = 0;
  let last = -1;
  for (let i = 0; i < t.length && at < q.length; i++) {
    if (t[i] !== q[at]) continue;
    score += last < 0 ? i : (i - last - 1) * 2;
    last = i;
    at++;
  }
  return at === q.length ? { matches: true, score: q === t ? -1 : score } : { matches: false, score: 0 };
}
function fuzzyFilter(items, query, getText) {
  const words = String(query).trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items;
  const scored = [];
  for (const item of items) {
    let total = 0;
    let ok = true;
    for (const w of words) {
      const m = fuzzyMatch(w, getText(item));
      if (!m.matches) { ok = false; break; }
      total += m.score;
    }
    if (ok) scored.push({ item, total });
  }
  return scored.sort((a, b) => a.total - b.total).map((s) => s.item);
}
const combine = (mod) => (key) => mod + "+" + key;
const Key = new Proxy({ ctrl: combine("ctrl"), alt: combine("alt"), shift: combine("shift"),
  ctrlShift: combine("ctrl+shift"), ctrlAlt: combine("ctrl+alt") }, {
  get: (t, k) => (typeof k === "string" && !(k in t) ? k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()) : t[k]),
});
${PI_TUI_TEXT}
module.exports = exportsOf("@mariozechner/pi-tui", WHY, {
  visibleWidth, truncateToWidth, matchesKey, parseKey, Key, fuzzyMatch, fuzzyFilter,
  Text, TruncatedText, Container, Box, Spacer, Markdown, wrapTextWithAnsi: wrapText,
  isKeyRelease: () => false,
  CURSOR_MARKER: "\u001b_pi:c\u0007",
});
`;

const BODIES: Readonly<Record<string, string>> = {
  "@mariozechner/pi-coding-agent": CODING_AGENT,
  "@mariozechner/pi-ai": PI_AI,
  "@mariozechner/pi-agent-core": "module.exports = exportsOf(PKG, WHY, {});",
  "@mariozechner/pi-tui": PI_TUI,
};

/** The CommonJS text of the shim for `pkg` (a key of PI_SHIMMED_PACKAGES). */
export function shimSource(pkg: string): string {
  const body = BODIES[pkg];
  const why = PI_SHIMMED_PACKAGES[pkg];
  if (body === undefined || why === undefined) throw new Error(`no pi shim for ${JSON.stringify(pkg)}`);
  return (
    `const PKG = ${JSON.stringify(pkg)};\nconst WHY = ${JSON.stringify(why)};\n` +
    `const PI_VERSION = ${JSON.stringify(PI_SHIM_VERSION)};\n${BASE}\n${body}`
  );
}
