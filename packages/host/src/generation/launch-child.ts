/**
 * The real launcher of a generation's child: a process spawned the host's way (its own group,
 * contained where the machine allows, process/*), or a foreign runtime's instance behind a
 * stand-in child (foreign-runtime.ts). The generation gets it through the ChildLauncher seam.
 */
import { OctetError, type ManifestSource } from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { ForeignSpec } from "./spec.js";
import { knownContainment, type ContainmentTier } from "../process/containment.js";
import { launchSpec } from "../process/launch.js";
import { signalGroup } from "../process/process-group.js";
import { registerGroup, unregisterGroup } from "../process/registry.js";
import { spawnContained } from "../process/spawn-contained.js";
import { watchNamespacedStdout } from "../transport/stdout-watch.js";
import { adoptChild, type ChildLauncher, type GenerationChild } from "./child.js";
import type { LaunchedChild } from "../foreign-runtime.js";

export interface ProcessLaunchSpec {
  manifest: ExtensionManifest;
  extensionDir: string;
  source: ManifestSource;
  workspace: string;
  number: number;
  parentEnv: Readonly<Record<string, string | undefined>>;
  foreign?: ForeignSpec | undefined;
}

export function processLauncher(spec: ProcessLaunchSpec): ChildLauncher {
  return async (request) => {
    const foreign = spec.foreign;
    if (!foreign) {
      const { child, tier } = await spawnContained(launchSpec(spec, request.scratch), spec.parentEnv, request.signal);
      return { child: adopt(child, tier), tier };
    }
    // Registered the moment it exists, not when launch() returns: a stop or a host exit during a
    // foreign instance's start (up to its initialize timeout) still kills the group at once.
    let spawned = 0;
    // A foreign instance may never spawn (QuickJS runs on a thread of this process): containment
    // is settled by its first spawn, if any, as a process extension's is by its launch.
    let spawnedTier: ContainmentTier | null = null;
    const onStop = (): void => {
      if (spawned > 1) killQuietly(spawned, request.diagnose);
    };
    request.signal.addEventListener("abort", onStop, { once: true });
    try {
      const launched = await foreign.extension.launch({
        workspace: spec.workspace,
        generation: spec.number,
        source: spec.source,
        trusted: foreign.trusted,
        spawn: async (s) => {
          const { child, tier } = await spawnContained({ ...s, args: [...s.args] }, spec.parentEnv, request.signal);
          spawnedTier ??= tier;
          if ((child.pid ?? 0) > 1) {
            spawned = child.pid!;
            registerGroup(spawned);
            request.onGroup?.(spawned);
            if (request.signal.aborted) onStop();
          }
          return child;
        },
        diagnose: request.diagnose,
        signal: request.signal,
        catalog: () => foreign.catalog?.() ?? { tools: [], commands: [] },
        sessionLayer: foreign.sessionLayer ?? null,
      });
      const { tools, commands, hooks, toolRenderers } = launched.contributes;
      // Without a process the tier is shown nowhere (status shows containment with a group only).
      const tier = spawnedTier ?? knownContainment(spec.parentEnv)?.tier ?? "process-group";
      return {
        child: adopt(launched.child, tier),
        tier,
        declared: { tools, commands },
        ...(hooks ? { hooks } : {}),
        ...(toolRenderers ? { toolRenderers } : {}),
        unsupportedHooks: launched.unsupportedHooks ?? [],
        ...(launched.sessionEvents ? { sessionEvents: launched.sessionEvents } : {}),
      };
    } catch (err) {
      // A launch that failed after spawning leaves nothing behind: its group is killed here.
      if (spawned > 1) killQuietly(spawned, request.diagnose);
      throw new OctetError("spawn_failed", err instanceof Error ? err.message : String(err));
    } finally {
      request.signal.removeEventListener("abort", onStop);
    }
  };
}

/** A child behind the PID-namespace launcher gets the stdout watch its pipe's EOF cannot give. */
function adopt(launched: LaunchedChild, tier: ContainmentTier): GenerationChild {
  const child = adoptChild(launched);
  const pgid = child.pgid;
  if (tier !== "pid-namespace" || pgid === null) return child;
  return { ...child, watchStdout: (onEnded, until) => watchNamespacedStdout(pgid, onEnded, until) };
}

function killQuietly(pgid: number, diagnose: (level: "error", message: string) => void): void {
  try {
    signalGroup(pgid, "SIGKILL");
  } catch (err) {
    diagnose("error", `could not kill process group ${pgid}: ${err instanceof Error ? err.message : String(err)}`);
  }
  unregisterGroup(pgid);
}
