/**
 * Foreign runtimes: extensions that speak another protocol (rpi's pi-extension.json, in
 * @octet/rpi) plugged into this host so they share its catalog, routing, status, reload and
 * supervision. A runtime finds its manifests next to extension.toml ones, validates them, and
 * launches an instance as a stand-in child that speaks octet's JSON-RPC on its stdio; the host
 * treats that child like any other. The host never imports a runtime: the embedder passes it.
 */
import type { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { ManifestSource } from "@octet/protocol";
import type { ExtensionManifest } from "./manifest/manifest.js";

/** The child the host's generation talks to: a real process or an in-process stand-in. */
export interface LaunchedChild extends EventEmitter {
  /** The process group leader to SIGKILL on teardown; undefined when there is no process. */
  readonly pid?: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
}

export interface ForeignLaunchContext {
  workspace: string;
  generation: number;
  source: ManifestSource;
  /** The host's start decision said trusted (project extensions need an explicit grant). */
  trusted: boolean;
  /**
   * Starts a real process the host's way: its own process group, contained (PID namespace and
   * parent-death signal when available), with exactly `env` as its environment.
   */
  spawn(spec: { command: string; args: readonly string[]; cwd: string; env: Record<string, string> }): Promise<ChildProcessWithoutNullStreams>;
  /** A diagnostic of this generation (shown with the extension's status and events). */
  diagnose(level: "info" | "warning" | "error", message: string): void;
  /** Aborted when the host stops this generation, also while launch() is still running. */
  signal: AbortSignal;
  /**
   * The host's ready tools and commands at the moment of the call (every extension's), for a
   * runtime whose protocol hands the catalog to its extensions (rpi's invocation context).
   */
  catalog(): { tools: { name: string; description: string }[]; commands: { name: string; description: string }[] };
}

export interface ForeignLaunched {
  child: LaunchedChild;
  /** The tool and command names the instance registered (what initialize must answer) and the octet hooks it answers. */
  contributes: { tools: string[]; commands: string[]; hooks?: string[] };
  /**
   * Events the instance hooked in its own protocol that this host never delivers (e.g. a pi
   * extension's "session_before_compact"): shown as the extension's unsupportedHooks in status.
   */
  unsupportedHooks?: string[];
}

export interface ForeignExtension {
  name: string;
  version: string;
  /** Shown in status, e.g. "rpi-process" or "quickjs". */
  runtime: string;
  /** UI surfaces and services its manifest grants, for the host's per-generation checks. */
  grants: { notifications: boolean; confirmations: boolean; status?: boolean };
  /** Validates again (files may have changed since discovery) and starts one instance. */
  launch(context: ForeignLaunchContext): Promise<ForeignLaunched>;
}

export interface ForeignRuntime {
  /** The file name its manifests have, e.g. "pi-extension.json". */
  readonly manifestFile: string;
  /** Reads and validates one manifest; problems are returned as messages, never thrown. */
  load(manifestPath: string, context: { source: ManifestSource; workspace: string }): Promise<{ ok: true; extension: ForeignExtension } | { ok: false; errors: string[] }>;
}

/**
 * The octet manifest the host's machinery reads for a foreign extension: API 0.4, no ambient
 * capabilities, the catalog filled in at launch (ForeignLaunched.contributes).
 */
export function foreignManifest(ext: ForeignExtension): ExtensionManifest {
  return {
    name: ext.name,
    version: ext.version,
    api_version: "0.4",
    requires_octet: null,
    entrypoint: { command: `(${ext.runtime})`, args: [] },
    capabilities: { filesystem: "none", process: false, network: false, secrets: [], environment: [], provider_credentials: false },
    contributes: {
      tools: [], commands: [], hooks: [], ui: ext.grants.status ? ["status"] : [], context: false, tool_renderers: [],
      notifications: ext.grants.notifications, confirmations: ext.grants.confirmations, presentation: false, menu: false,
    },
  };
}
