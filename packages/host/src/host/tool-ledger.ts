/**
 * The tool-name ledger (CAT-06, issue 13c): who holds which tool name. The host holds the names
 * the embedder reserved; each enabled extension holds the names its manifest declares and, once
 * started, the ones it published. A name stays reserved for its owner while the owner is enabled,
 * crashed or parked included, so no other extension can take a name a later reload of it needs.
 * An extension refused at start because another held one of its names holds nothing until a
 * start of it succeeds.
 *
 * Every ownership question of the host is answered here: the first start (names claimed from the
 * manifests in discovery order), a reload, a foreign extension's late catalog, and the
 * dynamic-tools service (tools/register).
 */
import type { Entry } from "./extension-status.js";

/** Who holds a tool name: the host (extension null) or an extension, parked or not. */
export interface NameHolder {
  extension: string | null;
  /** Its owner is parked: the name stays reserved while the owner is enabled. */
  parked: boolean;
}

const HOST: NameHolder = { extension: null, parked: false };

/** "the host", or `extension "x"` with the parked note the user needs to understand a refusal. */
export function describeHolder(holder: NameHolder): string {
  if (holder.extension === null) return "the host";
  const parked = holder.parked ? " (parked; its names stay reserved while it is enabled)" : "";
  return `extension "${holder.extension}"${parked}`;
}

/** Whether `e` may run at all: a valid, unshadowed manifest, enabled and trusted. */
export function isStartable(e: Entry): boolean {
  const d = e.discovered;
  return d.manifest !== null && d.errors.length === 0 && !d.shadowedBy && e.enabled && e.trusted;
}

export class ToolNameLedger {
  readonly #entries: readonly Entry[];
  readonly #reserved: ReadonlySet<string>;

  /** `entries` is read live: the ledger keeps no copy of who holds what, so it is never stale. */
  constructor(entries: readonly Entry[], hostReserved: readonly string[]) {
    this.#entries = entries;
    this.#reserved = new Set(hostReserved);
  }

  /** Whether the embedder reserved `name` for itself. */
  isReserved(name: string): boolean {
    return this.#reserved.has(name);
  }

  /** The names `e` holds now (none when it may not run or was refused for a name conflict). */
  held(e: Entry): Set<string> {
    const m = e.discovered.manifest;
    if (!m || !isStartable(e) || e.nameConflict) return new Set();
    const names = new Set(m.contributes.tools);
    const g = e.generation;
    // A foreign extension declares its tools when it starts: its initialize catalog stands for a manifest.
    for (const t of g?.accepted?.result.tools ?? []) names.add(t.name);
    if (g && g.accepted && g.state !== "stopped" && g.state !== "crashed") for (const t of g.tools) names.add(t.name);
    return names;
  }

  /** Who holds `name`, leaving out the extension named `except`; null when the name is free. */
  holder(name: string, except?: string): NameHolder | null {
    return this.#holderAmong(name, this.#entries, except);
  }

  /** Every name held by the host or by an extension other than `extension`, with its holder described. */
  owners(extension: string): Map<string, string> {
    const owners = new Map<string, string>();
    for (const name of this.#reserved) owners.set(name, describeHolder(HOST));
    for (const other of this.#entries) {
      if (other.discovered.name === extension) continue;
      const holder = describeHolder(this.#holderOf(other));
      for (const name of this.held(other)) owners.set(name, holder);
    }
    return owners;
  }

  /** Why `e` may not publish its declared tools now (a reserved name or one another holds), or null. */
  conflict(e: Entry): string | null {
    for (const t of e.discovered.manifest?.contributes.tools ?? []) {
      if (this.isReserved(t)) return `tool "${t}" is reserved by the host`;
      const other = this.#holderAmong(
        t,
        this.#entries.filter((x) => x !== e),
      );
      if (other) return `tool "${t}" is already provided by ${describeHolder(other)}`;
    }
    return null;
  }

  /**
   * The first start: names are claimed from the manifests before any process starts, in discovery
   * order, so of two extensions declaring one name the first discovered gets it. Reads only: the
   * caller records each refusal (nameConflict) with its message.
   */
  admitAtStart(candidates: readonly Entry[]): { admitted: Entry[]; refused: { entry: Entry; message: string }[] } {
    const admitted: Entry[] = [];
    const refused: { entry: Entry; message: string }[] = [];
    for (const e of candidates) {
      let message: string | null = null;
      for (const t of e.discovered.manifest?.contributes.tools ?? []) {
        const holder = this.#holderAmong(t, admitted);
        if (holder) {
          message = `tool "${t}" is already provided by ${describeHolder(holder)}; not started`;
          break;
        }
      }
      if (message === null) admitted.push(e);
      else refused.push({ entry: e, message });
    }
    return { admitted, refused };
  }

  /**
   * The first of `tools` (a foreign extension's catalog, known only once it started) that another
   * already holds, with that holder described; null when all are free.
   */
  taken(extension: string, tools: readonly { name: string }[]): { name: string; holder: string } | null {
    const owners = this.owners(extension);
    const found = tools.find((t) => owners.has(t.name));
    return found ? { name: found.name, holder: owners.get(found.name)! } : null;
  }

  #holderAmong(name: string, among: readonly Entry[], except?: string): NameHolder | null {
    if (this.isReserved(name)) return HOST;
    const other = among.find((x) => x.discovered.name !== except && this.held(x).has(name));
    return other ? this.#holderOf(other) : null;
  }

  #holderOf(e: Entry): NameHolder {
    return { extension: e.discovered.name, parked: e.parkedError !== null };
  }
}
