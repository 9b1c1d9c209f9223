/**
 * Foreign runtimes: extensions that speak another protocol (rpi's pi-extension.json, in
 * @octet/rpi) plugged into this host so they share its catalog, routing, status, reload and
 * supervision. A runtime finds its manifests next to extension.toml ones, validates them, and
 * launches an instance as a stand-in child that speaks octet's JSON-RPC on its stdio; the host
 * treats that child like any other. The host never imports a runtime: the embedder passes it.
 * The contract itself is in @octet/protocol (foreign/foreign-runtime.ts); here are the host's
 * instances of it and the octet manifest it stands a foreign extension in for.
 */
import type { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type * as ProtocolForeign from "@octet/protocol";
import type { ExtensionManifest } from "./manifest/manifest.js";

/** The child the host's generation talks to: a real process or an in-process stand-in. */
export interface LaunchedChild extends EventEmitter {
  /** The process group leader to SIGKILL on teardown; undefined when there is no process. */
  readonly pid?: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Set once it has exited, as on a ChildProcess: a launch may hand over a child that already has. */
  readonly exitCode?: number | null;
  readonly signalCode?: NodeJS.Signals | null;
  /** An in-process stand-in's messages as objects (ForeignMessages): used instead of stdin and stdout's bytes. */
  readonly messages?: ProtocolForeign.ForeignMessages | undefined;
}

// The contract is @octet/protocol's (a runtime implements it without importing the host); the
// host fixes its platform types: the stand-in is a LaunchedChild, its spawner a Node process.
export type ForeignLaunchContext = ProtocolForeign.ForeignLaunchContext<ChildProcessWithoutNullStreams>;
export type ForeignLaunched = ProtocolForeign.ForeignLaunched<LaunchedChild>;
export type ForeignExtension = ProtocolForeign.ForeignExtension<LaunchedChild, ChildProcessWithoutNullStreams>;
export type ForeignRuntime = ProtocolForeign.ForeignRuntime<LaunchedChild, ChildProcessWithoutNullStreams>;
export type ForeignSessionEvents = ProtocolForeign.ForeignSessionEvents;
export type ForeignSessionLayer = ProtocolForeign.ForeignSessionLayer;
export type ForeignSessionControl = ProtocolForeign.ForeignSessionControl;
export type ForeignSessionState = ProtocolForeign.ForeignSessionState;
export type ForeignSessionDialogs = ProtocolForeign.ForeignSessionDialogs;

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
    capabilities: {
      filesystem: "none",
      process: false,
      network: false,
      secrets: [],
      environment: [],
      provider_credentials: false,
    },
    contributes: {
      tools: [],
      commands: [],
      hooks: [],
      // pi's setStatus, and setHeader/setFooter as text (rpi), share the status grant.
      ui: ext.grants.status ? ["status", "header", "footer"] : [],
      context: false,
      tool_renderers: [],
      notifications: ext.grants.notifications,
      confirmations: ext.grants.confirmations,
      presentation: false,
      menu: false,
    },
  };
}
