/**
 * One extension started for `octet check` exactly as the host starts a generation (its own
 * process group, the manifest's environment, a scratch directory, or a foreign runtime's
 * stand-in), but with its stdio handed to the kit's WireProbe instead of a Connection, and the
 * initialize request a host with no embedder services would send it.
 */
import { rm } from "node:fs/promises";
import type { AcceptedInitialize, HostState, InitializeParams } from "@octet/protocol";
import type { DiscoveredExtension } from "../manifest/discovery.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import { createScratch } from "../process/launch.js";
import { signalGroup } from "../process/process-group.js";
import { unregisterGroup } from "../process/registry.js";
import { processLauncher } from "../generation/launch-child.js";
import { buildInitializeRequest, type InitializeOffer } from "../generation/initialize-request.js";
import { WireProbe } from "./wire-probe.js";
import type { FrameTrace } from "../transport/frame-trace.js";
import type { ConnectionTrace } from "../generation/connection.js";

export interface CheckLaunch {
  probe: WireProbe;
  manifest: ExtensionManifest;
  params: InitializeParams;
  offered: InitializeOffer | undefined;
  /** The catalog names initialize must answer: the manifest's, or a foreign instance's. */
  declared: { tools: readonly string[]; commands: readonly string[] };
  /** Kills what is left of it and removes its scratch directory. */
  close(): Promise<void>;
}

export type { AcceptedInitialize };

const HOST: HostState = {
  session_id: "octet-check",
  session_name: null,
  model: null,
  reasoning: null,
  active_skills: [],
};

export async function launchForCheck(
  d: DiscoveredExtension & { manifest: ExtensionManifest },
  o: {
    workspace: string;
    env: Readonly<Record<string, string | undefined>>;
    number: number;
    trace?: FrameTrace | undefined;
  },
): Promise<CheckLaunch> {
  const scratch = await createScratch(d.manifest.name, o.number);
  const stop = new AbortController();
  const diagnostics: string[] = [];
  const groups: number[] = [];
  let launched;
  try {
    launched = await processLauncher({
      manifest: d.manifest,
      extensionDir: d.dir,
      source: d.source,
      workspace: o.workspace,
      number: o.number,
      parentEnv: o.env,
      ...(d.foreign ? { foreign: { extension: d.foreign, trusted: true } } : {}),
    })({
      scratch,
      signal: stop.signal,
      diagnose: (_level, message) => diagnostics.push(message),
      // A foreign runtime's process group (an MCP server behind its stand-in): killed at close.
      onGroup: (pgid) => groups.push(pgid),
    });
  } catch (err) {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `could not start ${d.manifest.name}: ${why}${diagnostics.length ? `; ${diagnostics.join("; ")}` : ""}`,
    );
  }
  // A foreign instance's hooks and renderers are known only now (as generation.ts does).
  let manifest = d.manifest;
  if (launched.hooks) manifest = { ...manifest, contributes: { ...manifest.contributes, hooks: [...launched.hooks] } };
  if (launched.toolRenderers) {
    manifest = { ...manifest, contributes: { ...manifest.contributes, tool_renderers: [...launched.toolRenderers] } };
  }
  const child = launched.child;
  const { params, offered } = buildInitializeRequest(manifest, {
    manifestPath: d.manifestPath,
    source: d.source,
    workspace: o.workspace,
    host: HOST,
  });
  return {
    probe: new WireProbe(child, o.trace && traceOf(o.trace, d.manifest.name, o.number)),
    manifest,
    params,
    offered,
    declared: launched.declared ?? manifest.contributes,
    close: async () => {
      stop.abort();
      for (const kill of [() => child.kill(), ...groups.map((g) => () => signalGroup(g, "SIGKILL"))]) {
        try {
          kill();
        } catch {
          // Gone already: nothing left to kill.
        }
      }
      for (const g of groups) unregisterGroup(g);
      await Promise.race([child.exited, new Promise((r) => setTimeout(r, 5_000).unref())]);
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
      child.release();
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

function traceOf(trace: FrameTrace, name: string, generation: number): ConnectionTrace {
  return {
    frame: (dir, frame) => trace.frame(name, generation, dir, frame),
    refused: (error) => trace.refused(name, generation, error),
  };
}
