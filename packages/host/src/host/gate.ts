/**
 * Discovery and gating: which discovered extensions may run (enablement MAN-18, trust MAN-20,
 * the API 0.1 gate MAN-21, a valid unshadowed manifest), the first start of those that may, and
 * the same gate for a later reload. Start failures are recorded per extension, never thrown:
 * the others keep working.
 */
import { OctetError, bounds } from "@octet/protocol";
import type { HostEvent } from "../events.js";
import type { Generation } from "../generation/generation.js";
import { catalogOf, type Entry } from "./extension-status.js";
import { discoverExtensions } from "../manifest/discovery.js";
import { resolveStartDecision } from "../manifest/trust.js";
import type { ForeignRuntime } from "../foreign-runtime.js";
import { isStartable, type ToolNameLedger } from "./tool-ledger.js";
import type { ReplacementQueue } from "./replacement.js";

export interface GateOptions {
  workspace: string;
  extensionDirs?: string[];
  octetHome?: string;
  runtimes?: readonly ForeignRuntime[];
  enable?: string[];
  trust?: string[];
  safeMode?: boolean;
  policy?: "full-access" | "controlled";
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Every discovered extension as an entry with its start decision, in discovery order, and the
 * names enabled that no extension has (each said as a diagnostic by the caller).
 */
export async function discoverEntries(o: GateOptions): Promise<{ entries: Entry[]; undiscovered: string[] }> {
  const found = await discoverExtensions({
    workspace: o.workspace,
    extensionDirs: o.extensionDirs ?? [],
    octetHome: o.octetHome ?? (o.env ?? process.env)["OCTET_HOME"],
    runtimes: o.runtimes ?? [],
  });
  const enabled = new Set(o.enable ?? []);
  const trusted = new Set(o.trust ?? []);
  const fullAccess = (o.policy ?? "full-access") === "full-access";
  const entries: Entry[] = [];
  for (const d of found) {
    const decision = resolveStartDecision(d, { enabled, trusted, safeMode: o.safeMode ?? false, fullAccess });
    // MAN-21: API 0.1 has none of the negotiated guarantees (cancellation, owners, draining),
    // so a resident API 0.1 child is started only under the full-access policy; under
    // controlled it stays discovered, with no process.
    const gated = decision.enabled && decision.trusted && !fullAccess && d.manifest?.api_version === "0.1";
    const reason = gated
      ? `extension "${d.name}" speaks API 0.1, which starts only under the full-access policy; ` +
        "under the controlled policy it stays discovered without a process"
      : decision.reason;
    entries.push({
      discovered: d,
      enabled: gated ? false : decision.enabled,
      trusted: decision.trusted,
      reason,
      generation: null,
      parkedError: null,
      supervisor: null,
      catalog: null,
    });
  }
  const undiscovered = [...enabled].filter((name) => !found.some((d) => d.name === name));
  return { entries, undiscovered };
}

/** Why extension `e` (looked up as `name`) may not be reloaded now, or null when it may. */
export function reloadRefusal(e: Entry | undefined, name: string): OctetError | null {
  if (!e) return new OctetError("not_enabled", `no extension named "${name}" was discovered`);
  if (!e.discovered.manifest || e.discovered.errors.length > 0) {
    const first = e.discovered.errors[0]?.message ?? "unknown error";
    return new OctetError("manifest_invalid", `extension "${name}" has an invalid manifest: ${first}`);
  }
  if (!e.enabled || !e.trusted) {
    return new OctetError(e.enabled ? "not_trusted" : "not_enabled", `extension "${name}" cannot start: ${e.reason}`);
  }
  return null;
}

export interface StartOptions {
  ledger: ToolNameLedger;
  replacements: ReplacementQueue;
  newGeneration: (e: Entry) => Generation;
  isShuttingDown: () => boolean;
  emit: (event: HostEvent) => void;
}

/** Starts every extension that may run, concurrently; tool names are claimed before any process starts. */
export async function startEntries(entries: readonly Entry[], o: StartOptions): Promise<void> {
  const { admitted, refused } = o.ledger.admitAtStart(entries.filter(isStartable));
  for (const { entry, message } of refused) {
    entry.parkedError = message;
    entry.nameConflict = true;
    o.emit({ type: "diagnostic", extension: entry.discovered.manifest!.name, generation: 0, level: "error", message });
  }
  await Promise.all(admitted.map((e) => startEntry(e, o)));
}

async function startEntry(e: Entry, o: StartOptions): Promise<void> {
  const g = o.newGeneration(e);
  e.generation = g;
  try {
    await g.start();
  } catch (err) {
    // Initial spawn/initialize failures are parked generation-0 entries, not retried (SUP-10).
    e.parkedError = err instanceof Error ? err.message : String(err);
    const message = `could not start: ${e.parkedError}`;
    o.emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message });
    return;
  }
  // A foreign extension's tools are known only once it registered them: the names must still
  // be free (a manifest-declared extension reserved its names before anything started).
  const taken = e.discovered.foreign ? o.ledger.taken(g.name, g.tools) : null;
  if (taken) {
    e.parkedError = `tool "${taken.name}" is already provided by ${taken.holder}; not started`;
    e.nameConflict = true;
    o.emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message: e.parkedError });
    await g.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
    return;
  }
  e.catalog = catalogOf(g);
  // Supervision starts only after one successful initialization (SUP-01).
  if (o.replacements.supervising && !o.isShuttingDown()) o.replacements.supervise(e);
}
