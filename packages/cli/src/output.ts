/** Terminal output helpers: colour only on a TTY (and never with NO_COLOR), simple tables. */
import type { ExtensionStatus } from "@octet/host";

const COLORS = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Color = keyof typeof COLORS;

export function paint(color: Color, text: string, stream: NodeJS.WriteStream = process.stderr): string {
  if (!colorsOn(stream)) return text;
  return `\u001b[${COLORS[color]}m${text}\u001b[0m`;
}

/**
 * Text from an extension made safe for a terminal: escape sequences and control characters other
 * than LF and TAB are removed (an extension must not move the cursor, clear the screen or retitle the window). With
 * `keepColors`, SGR colour sequences (ESC [ ... m) survive, and a reset is appended after them.
 */
export function terminalSafe(text: string, keepColors = false): string {
  let colored = false;
  // Whole escape sequences go (CSI, OSC up to BEL or ST, two-byte ESC x), then lone controls.
  const out = text.replace(
    new RegExp(
      [
        /\u001b\[[0-?]*[ -/]*[@-~]/.source,
        /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/.source,
        /\u001b[@-_]?/.source,
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.source,
      ].join("|"),
      "g",
    ),
    (m) => {
      if (keepColors && /^\u001b\[[0-9;]*m$/.test(m)) {
        colored = true;
        return m;
      }
      return "";
    },
  );
  return colored ? `${out}\u001b[0m` : out;
}

/** Whether colour may be written to `stream`: a TTY, and NO_COLOR unset. */
export function colorsOn(stream: NodeJS.WriteStream = process.stderr): boolean {
  return stream.isTTY === true && process.env["NO_COLOR"] === undefined;
}

/** A left-aligned text table; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  // Cells often hold extension text (descriptions, errors with stderr tails): never raw escapes.
  rows = rows.map((r) => r.map((c) => terminalSafe(c)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

export function listTable(list: ExtensionStatus[]): string {
  if (list.length === 0)
    return (
      "No extensions found. Put one under ./.octet/extensions/, ~/.octet/extensions/ or pass " +
      "--extension-dir DIR.\n"
    );
  const rows = list.map((s) => [
    s.name,
    s.version ?? "-",
    runtimeCell(s),
    s.source,
    yes(s.enabled),
    yes(s.trusted),
    s.manifestPath,
  ]);
  let out = table(["NAME", "VERSION", "RUNTIME", "SOURCE", "ENABLED", "TRUSTED", "MANIFEST"], rows);
  for (const s of list) for (const e of s.errors) out += `  ${s.name}: ${terminalSafe(e)}\n`;
  for (const s of list) if (s.errors.length === 0 && s.enabled && !s.trusted) out += `  ${s.name}: ${s.reason}\n`;
  return out + idleHint(list);
}

/**
 * The "not enabled" hint said once for every such extension, not once per row (issue 13.11),
 * with the ones that would also need a trust grant.
 */
function idleHint(list: ExtensionStatus[]): string {
  const idle = list.filter((s) => s.errors.length === 0 && !s.enabled);
  if (idle.length === 0) return "";
  const untrusted = idle.filter((s) => !s.trusted).map((s) => s.name);
  const names = idle.map((s) => s.name).join(", ");
  return (
    `Not enabled: ${names}. Start one with --enable-extension ` +
    `NAME${untrusted.length > 0 ? ` (${untrusted.join(", ")} also need --trust-extension NAME)` : ""}.\n`
  );
}

export function statusTable(list: ExtensionStatus[], verbose = false): string {
  if (list.length === 0) return "No extensions found.\n";
  const rows = list.map((s) => [
    s.name,
    runtimeCell(s),
    s.state,
    String(s.generation),
    s.pid === null ? "-" : String(s.pid),
    s.features.length > 0 ? s.features.join(",") : "-",
    String(s.pendingRequests),
    s.health,
    restartsCell(s),
    s.lastError ?? (s.state === "not_trusted" ? s.reason : "-"),
  ]);
  let out = table(
    ["NAME", "RUNTIME", "STATE", "GEN", "PID", "FEATURES", "PENDING", "HEALTH", "RESTARTS", "LAST ERROR"],
    rows,
  );
  // What a failed extension wrote to stderr is usually the answer to "why": the lines that carry
  // the error first (they are rarely at the end of a stack trace), then its last lines.
  for (const s of list) {
    if (s.health !== "failed" && s.health !== "degraded" && s.supervision !== "backoff") continue;
    if (s.stderrErrors.length > 0)
      out += `  ${s.name} stderr, the error:\n${s.stderrErrors.map((l) => `    ${terminalSafe(l)}\n`).join("")}`;
    const tail = s.stderrTail.slice(verbose ? 0 : -5);
    const more = tail.length < s.stderrTail.length ? `; ${s.stderrTail.length} with -v` : "";
    const lines = tail.map((l) => `    ${terminalSafe(l)}\n`).join("");
    if (tail.length > 0) out += `  ${s.name} stderr (last ${tail.length} lines${more}):\n${lines}`;
  }
  return out + idleHint(list);
}

/** "octet 0.4" for extension.toml extensions; "rpi-process" or "quickjs" for pi-extension.json ones. */
function runtimeCell(s: ExtensionStatus): string {
  return s.runtime === "octet" ? `octet ${s.apiVersion ?? "?"}` : s.runtime;
}

/** "2", "2, restart in 1.2 s", "8, parked": restarts so far and what the supervisor does now. */
function restartsCell(s: ExtensionStatus): string {
  const n = String(s.restarts);
  if (s.supervision === "backoff" && s.nextRestartInMs !== null)
    return `${n}, next in ${(s.nextRestartInMs / 1000).toFixed(1)} s`;
  if (s.supervision === "restarting") return `${n}, restarting`;
  if (s.supervision === "parked") return `${n}, parked`;
  return n;
}

function yes(b: boolean): string {
  return b ? "yes" : "no";
}
