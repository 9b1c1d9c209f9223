/**
 * The tool catalog as one model request saw it (CAT-14, CAT-15, CALL-04). The embedder takes a
 * snapshot when it builds a model request (host.catalog()), shows the model its tools, and passes
 * the same snapshot with every call that request produces: the call then carries the definition
 * and the catalog epoch the model saw, not whatever was published since. Immutable.
 */
import type { ToolDefinition } from "@octet/protocol";
import type { ToolSchemas } from "../schema-check/tool-schemas.js";

export interface CatalogEntry {
  extension: string;
  /** The generation that published it: a call for another generation's epoch is not sent. */
  generation: number;
  /** Its catalog epoch when the extension negotiated dynamic_tools, else null. */
  revision: number | null;
  definition: ToolDefinition;
  /** The compiled schemas of that epoch: a call is validated against what the model saw (host-internal). */
  schemas?: ToolSchemas;
}

export class CatalogSnapshot {
  readonly #entries: ReadonlyMap<string, CatalogEntry>;

  constructor(entries: readonly CatalogEntry[]) {
    this.#entries = new Map(
      entries.map((e) => [e.definition.name, Object.freeze({ ...e, definition: Object.freeze({ ...e.definition }) })]),
    );
  }

  /** The model-visible definitions, each with its extension. */
  tools(): (ToolDefinition & { extension: string })[] {
    return [...this.#entries.values()].map((e) => ({ ...e.definition, extension: e.extension }));
  }

  entry(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** Epoch per extension that negotiated dynamic_tools (for logs and tests). */
  revisions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const e of this.#entries.values()) if (e.revision !== null) out[e.extension] = e.revision;
    return out;
  }
}
