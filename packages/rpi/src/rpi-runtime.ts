/**
 * rpiRuntime(): the rpi protocol as a foreign runtime of the octet host. Pass it in
 * ExtensionHostOptions.runtimes and pi-extension.json manifests are discovered in the same places
 * as extension.toml ones; each instance is validated again right before launch (files may have
 * changed), started as a process (an executable, or the Node runner for a "runtime": "node" entry)
 * or a QuickJS worker, taken through handshake, load and
 * initialize by the one RpiConnection, and handed to the host behind the octet bridge.
 *
 * It implements @octet/protocol's ForeignRuntime, the contract the host consumes: this package does
 * not import the host (the host does not know rpi either; the embedder joins them).
 */
import { loadRpiManifest, readRpiManifestFile } from "./manifest/load-manifest.js";
import {
  parseRpiManifest,
  RPI_CAPABILITIES,
  RPI_NODE_EXCLUDED_CAPABILITIES,
  type RpiManifest,
} from "./manifest/rpi-manifest.js";
import { resolveRpiLaunch, type RpiLaunch, type RpiManifestSource } from "./manifest/resolve-launch.js";
import { rpiEnvironment } from "./manifest/environment.js";
import { launchProcess } from "./process/process-transport.js";
import {
  DEFAULT_RPI_TIMEOUTS,
  RpiConnection,
  resolveTimeouts,
  type RpiHostServices,
  type RpiTimeouts,
} from "./host/rpi-connection.js";
import { createOctetBridge, type OctetBridge } from "./octet/octet-bridge.js";
import { octetHooksFor, undeliveredPiEvents } from "./octet/hook-mapping.js";
import { DEFAULT_MAX_FRAME_BYTES, type ExtensionMode } from "./protocol/frames.js";
import type { RpiTransport } from "./transport.js";
import { DEFAULT_MEMORY_LIMIT_BYTES, launchQuickJs } from "./quickjs/launch-quickjs.js";
import { PI_PRELUDE } from "./quickjs/pi-prelude.js";
import { nodeProcessSpec } from "./node/launch-node.js";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { basename } from "node:path";
import { bundlePiExtension, type PiBundle } from "./load/bundle.js";
import { resolvePiExtensionPath } from "./load/pi-source.js";
import type { ForeignExtension, ForeignRuntime } from "@octet/protocol";

/** stderr lines of a starting instance kept for the start's error message and the status tail. */
const STARTUP_STDERR_LINES = 20;

export interface RpiQuickJsLimits {
  /** Bytecode budget of one entry into the VM before the instance is torn down (default: the invocation timeout). */
  interruptAfterMs?: number;
  /** Past the budget plus this, a builtin that never polls is stopped by terminating the thread (default 1000). */
  watchdogGraceMs?: number;
  /** The instance's memory bound (default and maximum 64 MiB). */
  memoryLimitBytes?: number;
}

export interface RpiRuntimeOptions {
  /** The mode told to extensions in the hello frame (default "rpc": a host with UI services). */
  mode?: ExtensionMode;
  /** Overrides of the document's timeouts (RPI-32). */
  timeouts?: Partial<RpiTimeouts>;
  /** Frame bound of both directions (default 1 MiB). */
  maxFrameBytes?: number;
  /**
   * The embedder's UI and session-action services. A UI handler that resolves undefined leaves
   * the request to the default mapping (notify -> notification, confirm -> confirmation,
   * input/select/editor -> input request); without an action handler actions are refused.
   */
  services?: RpiHostServices;
  quickjs?: RpiQuickJsLimits;
  /**
   * pi extensions loaded by path with no pi-extension.json (a .ts/.js file, or a folder as pi
   * loads one: load/pi-source.ts), relative to the workspace; each is bundled and runs in
   * `piRuntime`.
   */
  piExtensions?: readonly string[];
  /**
   * Where the piExtensions run (default "quickjs"): "node" runs each in a Node process with the
   * full pi API (src/node/), as a pi-extension.json with `"runtime": "node"` would.
   */
  piRuntime?: PiExtensionRuntime;
  /** Where their bundles are cached (default: bundlePiExtension's). */
  piCacheDir?: string;
  /**
   * pi's extension flags from the command line (`pi --plan` is `octet --pi-flag plan`): every pi
   * extension gets them in its hello; pi.getFlag reads those it registered. A bare flag is true.
   */
  piFlags?: Readonly<Record<string, string | boolean>>;
}

/** The rpi runtime as the host's foreign-runtime contract types it (@octet/protocol). */
export type RpiForeignExtension = ForeignExtension<OctetBridge["child"], ChildProcessWithoutNullStreams>;
export type RpiForeignRuntime = ForeignRuntime<OctetBridge["child"], ChildProcessWithoutNullStreams> & {
  /** The piFlags no launched pi extension registered (pi warns about those): ask once the host started. */
  unclaimedFlags(): string[];
};

/**
 * A QuickJS instance for one launch: its own worker thread, runtime and context, the pi prelude,
 * at most 64 MiB and 256 KiB of stack, a bytecode budget per VM entry equal to the invocation
 * timeout unless set, and the load timeout as the load's budget (QJS-14..18).
 */
function launchQuickJsInstance(
  launch: Extract<RpiLaunch, { kind: "quickjs" }>,
  env: Record<string, string>,
  o: { maxFrameBytes: number; limits: RpiQuickJsLimits; invocationMs: number; loadMs: number },
  bundle: PiBundle | null,
): Promise<RpiTransport> {
  return launchQuickJs({
    entry: launch.entry,
    ...(bundle !== null ? { source: bundle.code, sourceMap: bundle.map } : {}),
    packageDir: launch.packageDir,
    prelude: PI_PRELUDE,
    env,
    maxFrameBytes: o.maxFrameBytes,
    memoryLimitBytes: o.limits.memoryLimitBytes ?? DEFAULT_MEMORY_LIMIT_BYTES,
    interruptAfterMs: o.limits.interruptAfterMs ?? o.invocationMs,
    loadBudgetMs: o.loadMs,
    ...(o.limits.watchdogGraceMs !== undefined ? { watchdogGraceMs: o.limits.watchdogGraceMs } : {}),
  });
}

/** The runtimes a pi extension named by path can run in. */
export const PI_EXTENSION_RUNTIMES = ["quickjs", "node"] as const;
export type PiExtensionRuntime = (typeof PI_EXTENSION_RUNTIMES)[number];

export function rpiRuntime(options: RpiRuntimeOptions = {}): RpiForeignRuntime {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const piRuntime = options.piRuntime ?? "quickjs";
  if (!PI_EXTENSION_RUNTIMES.includes(piRuntime))
    throw new RangeError(
      `rpiRuntime: piRuntime must be one of ${PI_EXTENSION_RUNTIMES.join(", ")}; got ${JSON.stringify(piRuntime)}`,
    );
  // Bad overrides fail here, where the embedder wrote them, not at every launch.
  resolveTimeouts(options.timeouts);
  const memory = options.quickjs?.memoryLimitBytes;
  if (memory !== undefined && (!Number.isInteger(memory) || memory > DEFAULT_MEMORY_LIMIT_BYTES)) {
    throw new RangeError(
      `rpiRuntime: quickjs.memoryLimitBytes must be an integer of at most ${DEFAULT_MEMORY_LIMIT_BYTES} bytes (64 ` +
        `MiB); got ${String(memory)}`,
    );
  }
  const claimed = new Set<string>();
  return {
    manifestFile: "pi-extension.json",
    unclaimedFlags: () => Object.keys(options.piFlags ?? {}).filter((f) => !claimed.has(f)),
    ...(options.piExtensions !== undefined ? { explicitPaths: [...options.piExtensions] } : {}),
    async load(manifestPath, context) {
      if (basename(manifestPath) !== "pi-extension.json") {
        const pi = await resolvePiExtensionPath(manifestPath, context.workspace);
        if (!pi.ok) return { ok: false, errors: [pi.error] };
        return {
          ok: true,
          extension: foreignExtension(
            asRuntime(pi.source.manifest, piRuntime),
            manifestPath,
            options,
            maxFrameBytes,
            claimed,
            true,
          ),
        };
      }
      // Discovery checks the manifest and its files; trust is the host's gate, and launch()
      // checks everything again with the real trust decision.
      const loaded = await loadRpiManifest(manifestPath, { source: context.source, projectTrusted: true });
      if (!loaded.ok) return { ok: false, errors: loaded.errors.map((e) => e.message) };
      return { ok: true, extension: foreignExtension(loaded.manifest, manifestPath, options, maxFrameBytes, claimed) };
    },
  };
}

interface Launchable {
  m: RpiManifest;
  launch: RpiLaunch;
  bundle: PiBundle | null;
}

/** Validation before launch (RPI-13..16): the manifest and files as they are now, with the real trust. */
async function manifestLaunch(
  manifest: RpiManifest,
  manifestPath: string,
  ctx: { source: RpiManifestSource; trusted: boolean },
): Promise<Launchable> {
  const read = await readRpiManifestFile(manifestPath);
  if ("error" in read) throw new Error(read.error.message);
  const parsed = parseRpiManifest(read.text, manifestPath);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join("; "));
  const m = parsed.manifest;
  if (m.id !== manifest.id)
    throw new Error(
      `${manifestPath}: its id changed from "${manifest.id}" to "${m.id}" since discovery; restart the host to ` +
        `pick it up`,
    );
  const resolved = await resolveRpiLaunch(m, manifestPath, { source: ctx.source, projectTrusted: ctx.trusted });
  if (!resolved.ok) throw new Error(resolved.error);
  return { m, launch: resolved.launch, bundle: null };
}

/**
 * The synthesized manifest (QuickJS's) for `runtime`: in node every capability the node runtime
 * allows, so pi.registerProvider works there (provider_metadata is refused to QuickJS only).
 */
function asRuntime(manifest: RpiManifest, runtime: PiExtensionRuntime): RpiManifest {
  if (runtime === "quickjs") return manifest;
  const capabilities = RPI_CAPABILITIES.filter((c) => !RPI_NODE_EXCLUDED_CAPABILITIES.includes(c));
  return { ...manifest, runtime, capabilities };
}

/**
 * A pi extension named by path: resolved again (files may have changed) and bundled for QuickJS
 * (from the cache while its files are unchanged); a bundle failure names the file and line. In
 * the node runtime the runner bundles it itself (target node), in its own process.
 */
async function piLaunch(
  path: string,
  id: string,
  workspace: string,
  runtime: PiExtensionRuntime,
  cacheDir?: string,
): Promise<Launchable> {
  const pi = await resolvePiExtensionPath(path, workspace);
  if (!pi.ok) throw new Error(pi.error);
  const { packageDir, entry } = pi.source;
  const manifest = asRuntime(pi.source.manifest, runtime);
  if (manifest.id !== id)
    throw new Error(`${path}: its id changed from "${id}" to "${manifest.id}" since discovery; restart the host`);
  if (runtime === "node") return { m: manifest, launch: { kind: "node", packageDir, entry }, bundle: null };
  const bundle = await bundlePiExtension({
    packageDir,
    entry,
    target: "quickjs",
    ...(cacheDir !== undefined ? { cacheDir } : {}),
  });
  return { m: manifest, launch: { kind: "quickjs", packageDir, entry }, bundle };
}

function foreignExtension(
  manifest: RpiManifest,
  manifestPath: string,
  options: RpiRuntimeOptions,
  maxFrameBytes: number,
  /** Every flag a launched instance registered (RpiForeignRuntime.unclaimedFlags). */
  claimed: Set<string>,
  /** Loaded by path with a synthesized manifest (load/pi-source.ts): re-resolved and bundled at launch. */
  piPath = false,
): RpiForeignExtension {
  const ui = manifest.capabilities.includes("ui");
  return {
    name: manifest.id,
    version: "0.0.0",
    runtime: manifest.runtime === "quickjs" ? "quickjs" : manifest.runtime === "node" ? "rpi-node" : "rpi-process",
    grants: {
      notifications: ui && manifest.uiCapabilities.includes("notify"),
      confirmations: ui && manifest.uiCapabilities.includes("confirm"),
      status: ui && manifest.uiCapabilities.includes("status"),
    },
    async launch(ctx) {
      const { m, launch, bundle } = piPath
        ? await piLaunch(
            manifestPath,
            manifest.id,
            ctx.workspace,
            manifest.runtime === "node" ? "node" : "quickjs",
            options.piCacheDir,
          )
        : await manifestLaunch(manifest, manifestPath, ctx);
      const env = rpiEnvironment(m, launch, { maxFrameBytes });
      const timeouts = { ...options.timeouts };
      let transport: RpiTransport;
      if (launch.kind === "process") {
        transport = await launchProcess({
          command: launch.executable,
          args: launch.arguments,
          cwd: launch.packageDir,
          env,
          maxFrameBytes,
          spawn: ctx.spawn,
        });
      } else if (launch.kind === "node") {
        transport = await launchProcess({ ...nodeProcessSpec(launch, env), maxFrameBytes, spawn: ctx.spawn });
      } else {
        transport = await launchQuickJsInstance(
          launch,
          env,
          {
            maxFrameBytes,
            limits: options.quickjs ?? {},
            invocationMs: timeouts.invocationMs ?? DEFAULT_RPI_TIMEOUTS.invocationMs,
            loadMs: timeouts.loadMs ?? DEFAULT_RPI_TIMEOUTS.loadMs,
          },
          bundle,
        );
      }
      const bridge = createOctetBridge({
        embedder: options.services,
        extensionId: m.id,
        diagnose: ctx.diagnose,
        catalog: () => ctx.catalog(),
        ...(ctx.sessionLayer ? { sessionLayer: ctx.sessionLayer.events } : {}),
        sessionActions: m.capabilities.includes("session_actions"),
        maxFrameBytes,
        composer: m.capabilities.includes("ui"),
        ...(ctx.sessionLayer?.state ? { sessionState: () => ctx.sessionLayer?.state?.() ?? null } : {}),
        ...(ctx.sessionLayer?.control ? { sessionControl: ctx.sessionLayer.control } : {}),
        ...(ctx.sessionLayer?.dialogs ? { sessionDialogs: ctx.sessionLayer.dialogs } : {}),
        ...(ctx.sessionLayer ? { models: ctx.sessionLayer } : {}),
      });
      const stderrLines: string[] = [];
      let attached = false;
      const connection = new RpiConnection({
        transport,
        instance: { extensionId: m.id, generation: ctx.generation },
        cwd: ctx.workspace,
        mode: options.mode ?? "rpc",
        projectTrusted: ctx.trusted,
        grants: { capabilities: m.capabilities, uiCapabilities: m.uiCapabilities },
        timeouts,
        maxFrameBytes,
        services: bridge.services,
        diagnose: ctx.diagnose,
        lateTools: bridge.lateTools,
        lateHooks: bridge.lateHooks,
        // The QuickJS and Node runtimes run octet's prelude, which keeps the last context it got.
        contextOnChange: launch.kind !== "process",
        ...(options.piFlags !== undefined ? { flags: options.piFlags } : {}),
        onStderr: (line) => {
          // Until the host reads the stand-in's stderr (after the start) only the last lines are
          // kept: a child that floods stderr while starting must not grow the host's memory.
          if (attached) return void bridge.child.stderr.write(`${line}\n`);
          stderrLines.push(line);
          if (stderrLines.length > STARTUP_STDERR_LINES) stderrLines.shift();
        },
      });
      // Stopped while starting: the instance goes at once (its start then fails).
      const onStop = (): void => void connection.terminate("the host stopped it while it was starting");
      ctx.signal.addEventListener("abort", onStop, { once: true });
      if (ctx.signal.aborted) onStop();
      try {
        await connection.start();
      } catch (err) {
        const tail = stderrLines.slice(-3).join(" | ");
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`${message}${tail ? `; stderr ended with: ${tail.slice(0, 300)}` : ""}`);
      }
      ctx.signal.removeEventListener("abort", onStop);
      for (const f of connection.flags()) claimed.add(f);
      for (const p of connection.providers()) {
        const refused = ctx.sessionLayer?.registerProvider
          ? ctx.sessionLayer.registerProvider(m.id, p.name, p.config)
          : "this host has no model registry (no session layer)";
        if (refused !== null) ctx.diagnose("warning", `the provider "${p.name}" is not used: ${refused}`);
      }
      bridge.attach(connection);
      for (const line of stderrLines) bridge.child.stderr.write(`${line}\n`);
      attached = true;
      Object.assign(bridge.child, { pid: transport.pid ?? undefined });
      const unsupportedHooks = undeliveredPiEvents(bridge.wireEvents());
      if (unsupportedHooks.length > 0)
        ctx.diagnose(
          "info",
          `hooks pi events this host never emits, so their handlers will not run: ${unsupportedHooks.join(", ")}`,
        );
      return {
        child: bridge.child,
        contributes: {
          tools: connection.tools().map((t) => t.name),
          commands: connection.commands().map((c) => c.name),
          hooks: octetHooksFor(bridge.wireEvents()),
          toolRenderers: connection
            .tools()
            .filter((t) => t.renderer === true)
            .map((t) => t.name),
        },
        unsupportedHooks,
        ...(ctx.sessionLayer ? { sessionEvents: bridge.sessionEvents } : {}),
      };
    },
  };
}
