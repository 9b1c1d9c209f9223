/**
 * The types of RpiConnection's public surface, in a file of their own so that the connection's
 * parts (request table, catalog, extension requests) can name them without importing the
 * connection itself.
 */
import type { ExtensionMode, InstanceId, InvocationContext } from "../protocol/frames.js";
import type { RpiTransport } from "../transport.js";
import type { RpiGrants } from "./grants.js";
import type { RpiTimeouts } from "./rpi-timeouts.js";

export type DiagnosticLevel = "info" | "warning" | "error";

/**
 * What the embedder does with an extension's UI requests and session actions. `parent` is the
 * `tag` of the invocation the extension asks on behalf of (InvokeOptions.tag), when it said which.
 */
export interface RpiHostServices {
  ui?(
    request: { type: string } & Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number; parent?: unknown },
  ): Promise<unknown>;
  action?(
    action: { kind: string } & Record<string, unknown>,
    options: { signal: AbortSignal; parent?: unknown },
  ): Promise<unknown>;
}

export interface RpiConnectionOptions {
  transport: RpiTransport;
  instance: InstanceId;
  cwd: string;
  mode: ExtensionMode;
  projectTrusted: boolean;
  /** What the pi-extension.json grants; the hello may claim a subset only (RPI-23). */
  grants: RpiGrants;
  timeouts?: Partial<RpiTimeouts>;
  maxFrameBytes?: number;
  services?: RpiHostServices;
  diagnose(level: DiagnosticLevel, message: string): void;
  onStderr?(line: string): void;
  /**
   * Tool registrations after the load (pi registers tools from handlers): with this bound they
   * change the catalog and `changed` is called once per frame, synchronously, before any later
   * frame is read; without it they are ignored with a warning, as commands and hooks always are.
   */
  lateTools?: { changed(): void };
  /**
   * Hooks registered after the load (pi.on from a handler): accepted onto the catalog for the
   * events `accepts` names (those the embedder's session layer delivers, reading the catalog at
   * each delivery); any other is ignored with a warning saying why.
   */
  lateHooks?: { accepts(event: string): boolean };
  /** Values of the --pi-flag options, sent in the hello (`flags`): pi.getFlag reads them. */
  flags?: Readonly<Record<string, string | boolean>>;
  /**
   * The extension keeps the last invocation context it was sent (octet's pi prelude, which the
   * QuickJS and Node runtimes run): an invocation whose context is the one sent last goes without
   * it, sparing the extension a parse of the same snapshot per call. An executable gets it with
   * every invocation, as docs/rpi-protocol.md says.
   */
  contextOnChange?: boolean;
}

/**
 * What an invocation's cancellation is read through: an AbortSignal, or anything with its
 * `aborted` and its "abort" listeners (the octet bridge's Cancellation, which costs less per call).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface InvokeOptions {
  /** The caller's name for this invocation, handed back as `parent` to the services. */
  tag?: unknown;
  timeoutMs?: number;
  signal?: CancelSignal;
  onUpdate?(value: unknown): void;
  /**
   * What the host knows of the session for this invocation (QJS-08, QJS-09); cwd, mode and trust
   * are the hello's. Lists too large for the frame are left out with a diagnostic. Encoded once
   * per object: pass the same object while nothing in it changed (the octet bridge keeps one per
   * catalog epoch), a new one when something did.
   */
  context?: Partial<InvocationContext>;
}

export type RpiState = "handshake" | "load" | "ready" | "stopping" | "closed";
