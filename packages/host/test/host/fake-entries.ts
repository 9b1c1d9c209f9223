/**
 * Discovery entries and generations for unit tests of the host's parts (host/): no process, no
 * wire. A fake generation starts when its gate opens (or fails with `fail`), publishes `tools`
 * and `commands` once ready, and logs start, stop and drain so tests can check the order.
 */
import type { Entry } from "../../src/host/extension-status.js";
import type { Generation } from "../../src/generation/generation.js";
import type { GenerationState } from "../../src/events.js";
import type { ExtensionManifest } from "../../src/manifest/manifest.js";
import type { DiscoveredExtension } from "../../src/manifest/discovery.js";

type EntryOptions = Partial<Entry> & { errors?: string[]; foreign?: boolean };

export function entry(name: string, tools: string[], o: EntryOptions = {}): Entry {
  const manifest = {
    name,
    version: "1.0.0",
    api_version: "0.2",
    contributes: { tools, commands: [], hooks: [], menu: false },
  } as unknown as ExtensionManifest;
  const discovered: DiscoveredExtension = {
    name,
    source: "explicit",
    manifestPath: `/x/${name}/extension.toml`,
    dir: `/x/${name}`,
    manifest,
    errors: (o.errors ?? []).map((message) => ({ message }) as DiscoveredExtension["errors"][number]),
    shadowedBy: null,
    ...(o.foreign ? { foreign: {} as NonNullable<DiscoveredExtension["foreign"]> } : {}),
  };
  return {
    discovered,
    enabled: true,
    trusted: true,
    reason: "enabled",
    generation: null,
    parkedError: null,
    supervisor: null,
    catalog: null,
    ...o,
  };
}

export interface FakeGenerationOptions {
  name: string;
  number: number;
  tools?: string[];
  commands?: string[];
  /** start() rejects with this message. */
  fail?: string;
  /** start() waits for it. */
  gate?: Promise<void>;
  /** Every start, stop and drain, as "start 2", "stop 2", "drain 1". */
  log: string[];
}

export type FakeGeneration = Generation;

/** Moves a fake generation to `state` (a crash, a stop) without going through a process. */
export function setState(g: Generation, state: GenerationState): void {
  (g as unknown as { state: GenerationState }).state = state;
}

export function fakeGeneration(o: FakeGenerationOptions): FakeGeneration {
  let state = "initializing";
  let accepted: unknown = null;
  const toolDefs = (o.tools ?? []).map((name) => ({ name, description: name, parameters: { type: "object" } }));
  const g = {
    name: o.name,
    number: o.number,
    get state() {
      return state;
    },
    set state(s: string) {
      state = s;
    },
    get accepted() {
      return accepted;
    },
    get tools() {
      return state === "ready" || state === "degraded" ? toolDefs : [];
    },
    pid: null,
    pgid: 0,
    containment: "process-group",
    features: [],
    pendingRequests: 0,
    unsupportedHooks: [],
    lastError: null,
    catalogRevision: null,
    stderrTail: () => "",
    async start() {
      o.log.push(`start ${o.number}`);
      await o.gate;
      if (o.fail !== undefined) {
        state = "crashed";
        throw new Error(o.fail);
      }
      const commands = (o.commands ?? []).map((name) => ({ name, description: name }));
      accepted = { result: { tools: toolDefs, commands } };
      state = "ready";
    },
    async stop() {
      o.log.push(`stop ${o.number}`);
      state = "stopped";
    },
    async drainAndStop() {
      o.log.push(`drain ${o.number}`);
      state = "stopped";
    },
  };
  return g as unknown as FakeGeneration;
}

/** A generation already ready (the one a reload replaces, or the holder of a name). */
export async function readyGeneration(o: FakeGenerationOptions): Promise<FakeGeneration> {
  const g = fakeGeneration(o);
  await g.start();
  o.log.length = 0;
  return g;
}
