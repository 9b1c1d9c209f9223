/**
 * Who holds which tool name (CAT-06, issue 13c): the host's reserved names, and for each enabled
 * extension the names it declares and, once started, the ones it published. A name stays
 * reserved for its owner while the owner is enabled, crashed or parked included, so no other
 * extension can take a name a later reload of it needs. An extension refused at start because
 * another held one of its names reserves nothing until a start of it succeeds.
 */
import type { Entry } from "./extension-status.js";

function reservedNames(e: Entry): Set<string> {
  const m = e.discovered.manifest;
  if (!m || e.discovered.errors.length > 0 || e.discovered.shadowedBy || !e.enabled || !e.trusted || e.nameConflict) return new Set();
  const names = new Set(m.contributes.tools);
  const g = e.generation;
  // A foreign extension declares its tools when it starts: its initialize catalog stands for a manifest.
  for (const t of g?.accepted?.result.tools ?? []) names.add(t.name);
  if (g && g.accepted && g.state !== "stopped" && g.state !== "crashed") for (const t of g.tools) names.add(t.name);
  return names;
}

/** Why `e` may not publish its tools now (a reserved name or one another extension holds), or null. */
export function toolConflict(entries: readonly Entry[], e: Entry, hostReserved: readonly string[]): string | null {
  const tools = e.discovered.manifest?.contributes.tools ?? [];
  const reserved = new Set(hostReserved);
  for (const t of tools) {
    if (reserved.has(t)) return `tool "${t}" is reserved by the host`;
    const other = entries.find((x) => x !== e && reservedNames(x).has(t));
    if (other) return `tool "${t}" is already provided by extension "${other.discovered.name}"${other.parkedError !== null ? " (parked; its names stay reserved while it is enabled)" : ""}`;
  }
  return null;
}

/** Every tool name held by the host or by an enabled extension other than `extension`, with its holder. */
export function nameOwners(entries: readonly Entry[], extension: string, hostReserved: readonly string[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const name of hostReserved) owners.set(name, "the host");
  for (const other of entries) {
    if (other.discovered.name === extension) continue;
    const parked = other.parkedError !== null ? " (parked; its names stay reserved while it is enabled)" : "";
    for (const name of reservedNames(other)) owners.set(name, `extension "${other.discovered.name}"${parked}`);
  }
  return owners;
}
