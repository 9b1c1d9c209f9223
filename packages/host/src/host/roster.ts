/**
 * The extensions a host tracks: one entry per discovered extension (in discovery order) and every
 * generation not yet known to be over. The catalog views (tools, commands, the catalog snapshot
 * of CAT-14) and status are read from here; only ready generations publish anything (INIT-49).
 */
import { OctetError, type CommandDefinition, type ToolDefinition } from "@octet/protocol";
import type { Generation } from "../generation/generation.js";
import { statusOf, type Entry, type ExtensionStatus } from "./extension-status.js";
import { CatalogSnapshot } from "./catalog-snapshot.js";

export interface HostTool extends ToolDefinition {
  extension: string;
}
export interface HostCommand extends CommandDefinition {
  extension: string;
}

/** The catalog as a foreign extension sees it (Roster.foreignCatalog). */
export type ForeignCatalogView = Readonly<
  Record<"tools" | "commands", readonly Readonly<{ name: string; description: string }>[]>
>;

export class Roster {
  #foreign: { key: unknown[]; view: ForeignCatalogView } | null = null;
  readonly entries: Entry[] = [];
  /** Every generation not yet known to be over, reload candidates included, so shutdown reaches all. */
  readonly live = new Set<Generation>();

  /** Adds a new generation to the live set, forgetting the ones that are over. */
  track(g: Generation): void {
    for (const x of this.live) if (x.state === "stopped" || x.state === "crashed") this.live.delete(x);
    this.live.add(g);
  }

  /** The entry that owns `name` (a shadowed copy never does). */
  named(name: string): Entry | undefined {
    return this.entries.find((x) => x.discovered.name === name && !x.discovered.shadowedBy);
  }

  ready(): { e: Entry; g: Generation }[] {
    return this.entries.flatMap((e) => {
      const g = e.generation;
      return g && g.state === "ready" ? [{ e, g }] : [];
    });
  }

  readyGenerations(): Generation[] {
    return this.ready().map(({ g }) => g);
  }

  readyGeneration(extension: string): Generation {
    const found = this.ready().find(({ g }) => g.name === extension);
    if (!found) throw new OctetError("not_ready", `extension "${extension}" is not running`);
    return found.g;
  }

  tools(): HostTool[] {
    return this.ready().flatMap(({ g }) => g.tools.map((t) => ({ ...t, extension: g.name })));
  }

  commands(): HostCommand[] {
    return this.ready().flatMap(({ g }) => {
      return (g.accepted?.result.commands ?? []).map((c) => ({ ...c, extension: g.name }));
    });
  }

  /**
   * What a foreign extension sees of the catalog (pi.getAllTools(), getCommands()): every ready
   * tool and command, name and description. A foreign instance reads it on every call, so it is
   * rebuilt only when the ready generations, their published tools or their commands changed
   * (a publication replaces the tool list, an initialize the commands), and shared, frozen.
   */
  foreignCatalog(): ForeignCatalogView {
    const ready = this.ready();
    const key = ready.flatMap(({ g }) => [g, g.tools, g.accepted?.result.commands]);
    const last = this.#foreign;
    if (last !== null && last.key.length === key.length && last.key.every((k, i) => k === key[i])) return last.view;
    const entry = (x: { name: string; description: string }): { name: string; description: string } =>
      Object.freeze({ name: x.name, description: x.description });
    const view: ForeignCatalogView = Object.freeze({
      tools: Object.freeze(this.tools().map(entry)),
      commands: Object.freeze(this.commands().map(entry)),
    });
    this.#foreign = { key, view };
    return view;
  }

  catalog(): CatalogSnapshot {
    const entries = this.ready().flatMap(({ g }) => {
      const published = { extension: g.name, generation: g.number, revision: g.catalogRevision, schemas: g.schemas };
      return g.tools.map((definition) => ({ ...published, definition }));
    });
    return new CatalogSnapshot(entries);
  }

  status(): ExtensionStatus[] {
    return this.entries.map((e) => statusOf(e));
  }
}
