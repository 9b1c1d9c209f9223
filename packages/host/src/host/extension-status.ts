/**
 * What status() reports per extension, derived from its discovery entry and current generation:
 * state, generation, pid, features, pending requests, health and a bounded last error (LIFE-01,
 * LIFE-02). Pure: reads, never changes an entry.
 */
import { ADVISORY_HOOKS, HOOK_NAMES } from "@octet/protocol";
import type { DiscoveredExtension } from "../manifest/discovery.js";
import type { GenerationState } from "../events.js";
import type { Generation } from "../generation/generation.js";
import type { Supervisor, SupervisionState } from "../supervision/supervisor.js";
import { STDERR_CAUSE_BYTES, errorLines } from "../transport/stderr-excerpt.js";

export type ExtensionState = GenerationState | "not_enabled" | "not_trusted" | "invalid" | "parked";
export type Health = "ok" | "degraded" | "failed" | "stopped" | "inactive";

export interface ExtensionStatus {
  name: string;
  version: string | null;
  apiVersion: string | null;
  source: string;
  /** "octet" for extension.toml extensions; a foreign runtime's name otherwise ("rpi-process", "quickjs"). */
  runtime: string;
  manifestPath: string;
  enabled: boolean;
  trusted: boolean;
  state: ExtensionState;
  generation: number;
  pid: number | null;
  /** The process group the stop ladder kills (the launcher's, under a PID namespace). */
  pgid: number | null;
  /** "pid-namespace" (setsid escapees and a SIGKILLed host contained) or "process-group". */
  containment: "pid-namespace" | "process-group" | null;
  features: string[];
  /** The negotiated max_concurrent_requests after the host's cap (API 0.2+), else null. */
  maxConcurrentRequests: number | null;
  /** Declared hooks this host accepts but never dispatches (HOOK-09: their payloads are unspecified). */
  unsupportedHooks: string[];
  pendingRequests: number;
  health: Health;
  lastError: string | null;
  reason: string;
  errors: string[];
  tools: string[];
  /** The published catalog epoch with dynamic_tools negotiated (0 = initialize), else null. */
  catalogRevision: number | null;
  commands: string[];
  /**
   * The supervisor's view: "off" before a first successful start (and with supervision
   * disabled), else watching, backoff, restarting, parked or stopped.
   */
  supervision: SupervisionState | "off";
  /** Automatic restarts that produced a ready generation. */
  restarts: number;
  /** Failed attempts counted against the current restart budget (parks at 8). */
  restartAttempts: number;
  /** While in backoff: how long until the next restart attempt. */
  nextRestartInMs: number | null;
  /** Why the extension is parked (initial start failure, restart budget, permanent error), else null. */
  parkedReason: string | null;
  /** The last lines (at most 20, 8 KiB) of the current (or last) generation's stderr. */
  stderrTail: string[];
  /** The lines of that stderr that carry the error (first and last error line, 13.4), else []. */
  stderrErrors: string[];
}

/** The hooks runHook dispatches; others may be declared but are shown as unsupported. */
const DISPATCHED_HOOKS: readonly string[] = [...HOOK_NAMES, ...ADVISORY_HOOKS];

/** One discovered extension as the host tracks it. */
export interface Entry {
  discovered: DiscoveredExtension;
  enabled: boolean;
  trusted: boolean;
  reason: string;
  generation: Generation | null;
  parkedError: string | null;
  /** The reload in progress, so reloads and restarts of one extension never race (SUP-08). */
  reloading?: Promise<void>;
  /** Created after the first successful start (SUP-01); null before, and with supervision off. */
  supervisor: Supervisor | null;
  /** The catalog accepted at the first successful start: later generations must match it (SUP-15). */
  catalog: string | null;
  /** Refused because another held one of its tool names: it reserves no name until a start succeeds (13c). */
  nameConflict?: boolean;
}

/**
 * The catalog a reload must keep (API 0.1 and 0.2 without dynamic tools, SUP-15, SUP-16): the
 * accepted tools and commands, as one comparable string.
 */
export function catalogOf(g: Generation): string {
  const r = g.accepted?.result;
  // With dynamic_tools the tool catalog may change at any time, reload included (SUP-15); the
  // commands must still match, runtime_commands or not (SUP-16).
  const tools = g.features.includes("dynamic_tools") ? "dynamic" : (r?.tools ?? []);
  return JSON.stringify([tools, r?.commands ?? []]);
}

/** Stderr kept in status: the last 20 lines, at most 8 KiB (a Node stack trace fits, 13.4). */
const STATUS_STDERR_TAIL_LINES = 20;
const STATUS_STDERR_TAIL_BYTES = 8192;

export function statusOf(e: Entry, now: number = Date.now()): ExtensionStatus {
  const d = e.discovered;
  const m = d.manifest;
  const g = e.generation;
  let state: ExtensionState;
  if (!m || d.errors.length > 0 || d.shadowedBy) state = "invalid";
  else if (!e.enabled) state = "not_enabled";
  else if (!e.trusted) state = "not_trusted";
  else if (e.parkedError !== null) state = "parked";
  else state = g ? g.state : "stopped";
  const health: Health =
    state === "ready"
      ? "ok"
      : state === "degraded"
        ? "degraded"
        : state === "crashed" || state === "parked" || state === "invalid"
          ? "failed"
          : state === "stopped"
            ? "stopped"
            : "inactive";
  const accepted = g?.accepted;
  const sv = e.supervisor?.snapshot;
  return {
    name: d.name,
    version: m?.version ?? null,
    // A foreign extension's octet manifest is the host's own bookkeeping, not its protocol.
    apiVersion: d.foreign ? null : (m?.api_version ?? null),
    source: d.source,
    runtime: d.foreign?.runtime ?? "octet",
    manifestPath: d.manifestPath,
    enabled: e.enabled,
    trusted: e.trusted,
    state,
    // Initial start failures are generation-0 parked entries (SUP-10); a supervisor-parked
    // extension keeps the number of its last generation.
    generation: state === "parked" && !e.supervisor ? 0 : (g?.number ?? 0),
    pid: g && (g.state === "ready" || g.state === "initializing") && g.pgid > 1 ? g.pid : null,
    pgid: g && (g.state === "ready" || g.state === "initializing") && g.pgid > 1 ? g.pgid : null,
    containment: g && g.pgid > 1 ? g.containment : null,
    features: g?.features ?? [],
    maxConcurrentRequests: accepted && m && m.api_version !== "0.1" ? accepted.maxConcurrentRequests : null,
    unsupportedHooks: [
      ...(m?.contributes.hooks ?? []).filter((h) => !DISPATCHED_HOOKS.includes(h)),
      ...(g?.unsupportedHooks ?? []),
    ],
    pendingRequests: g?.pendingRequests ?? 0,
    health,
    lastError: e.parkedError ?? g?.lastError ?? d.errors[0]?.message ?? null,
    reason: e.reason,
    errors: d.errors.map((x) => x.message),
    tools: accepted && g ? g.tools.map((t) => t.name) : (m?.contributes.tools ?? []),
    catalogRevision: g?.catalogRevision ?? null,
    commands: accepted ? accepted.result.commands.map((c) => c.name) : (m?.contributes.commands ?? []),
    supervision: sv?.state ?? "off",
    restarts: sv?.restarts ?? 0,
    restartAttempts: sv?.attempts ?? 0,
    nextRestartInMs: sv?.nextRestartAt != null ? Math.max(0, sv.nextRestartAt - now) : null,
    parkedReason: state === "parked" ? e.parkedError : null,
    stderrTail: g
      ? g
          .stderrTail(STATUS_STDERR_TAIL_BYTES)
          .split("\n")
          .filter((line) => line.trim() !== "")
          .slice(-STATUS_STDERR_TAIL_LINES)
      : [],
    stderrErrors: g ? errorLines(g.stderrTail(STDERR_CAUSE_BYTES), 0) : [],
  };
}

/**
 * Why each enabled extension is not ready, one clause each, for the "no ready extension provides
 * tool X" answer (13.3): an invalid manifest with its file and key, a start failure with its
 * cause, a parked or untrusted one with its reason, and a NAME enabled that was never discovered.
 */
export function notReadyReasons(list: readonly ExtensionStatus[], enabledNames: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of list) {
    if (!s.enabled || s.state === "ready") continue;
    // A copy shadowed by one of higher precedence is not the one that runs: it is no reason.
    if (s.errors.length > 0 && s.errors.every((e) => /is shadowed by/.test(e))) continue;
    const why =
      s.state === "invalid"
        ? `has an invalid manifest: ` +
          `${s.errors.slice(0, 3).join("; ")}${s.errors.length > 3 ? ` (and ${s.errors.length - 3} more errors)` : ""}`
        : s.state === "not_trusted"
          ? `is not trusted: ${s.reason}`
          : s.state === "parked" && s.restarts === 0 && s.supervision === "off"
            ? `could not start: ${s.lastError ?? s.reason}`
            : `is ${s.state}: ${s.lastError ?? s.reason}`;
    out.push(`extension "${s.name}" ${why}`);
  }
  const known = list.filter((s) => s.name !== "").map((s) => s.name);
  // An invalid manifest whose name could not be read is listed under its folder's name: it may
  // well be the one the user enabled, so its error is said too.
  const unnamed = list
    .filter((s) => !s.enabled && s.state === "invalid")
    .flatMap((s) => s.errors.filter((e) => /key "name"|invalid TOML/.test(e) && !/is shadowed by/.test(e)).slice(0, 1))
    .slice(0, 3)
    .map((e) => `; ${e}`);
  for (const name of enabledNames) {
    if (!known.includes(name))
      out.push(
        `--enable-extension ${name}: no extension of that name was discovered (discovered: ` +
          `${known.join(", ") || "none"})${unnamed.join("")}`,
      );
  }
  return out;
}
