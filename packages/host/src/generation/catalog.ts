/**
 * One generation's tool catalog: the tools initialize answered (epoch 0), then with dynamic_tools
 * each accepted publication (CAT-07..09), and the compiled schemas of the epoch published now
 * (CALL-03). Schemas are compiled before anything changes, within a per-generation budget
 * (issue 13b), so a publication that cannot be compiled leaves the catalog as it was.
 */
import type { ToolDefinition } from "@octet/protocol";
import { CompileBudget, compileToolSchemas, NO_SCHEMAS, type ToolSchemas } from "../schema-check/tool-schemas.js";

export class GenerationCatalog {
  /** How much new schema text this generation may still compile (issue 13b). */
  readonly #budget: CompileBudget;
  #initial: readonly ToolDefinition[] = [];
  /** The dynamic catalog after the first accepted publication; null while the initialize catalog stands. */
  #published: { revision: number; tools: ToolDefinition[] } | null = null;
  #schemas: ToolSchemas = NO_SCHEMAS;

  constructor(budget: CompileBudget = new CompileBudget()) {
    this.#budget = budget;
  }

  /** The tools published now: the initialize catalog, or the latest accepted publication. */
  get tools(): readonly ToolDefinition[] {
    return this.#published?.tools ?? this.#initial;
  }

  /** The compiled schemas of the epoch published now (a catalog snapshot keeps the one it saw). */
  get schemas(): ToolSchemas {
    return this.#schemas;
  }

  /** The revision of the epoch published now: 0 for the initialize catalog. */
  get revision(): number {
    return this.#published?.revision ?? 0;
  }

  /**
   * The initialize response's tools, as epoch 0. Throws (the compile error) when their schemas
   * cannot be compiled; nothing changes then.
   */
  accept(tools: readonly ToolDefinition[]): void {
    this.#schemas = compileToolSchemas(tools, this.#budget, true);
    this.#initial = tools;
  }

  /**
   * A complete new tool list as the next epoch, atomically (CAT-07, CAT-08): its schemas are
   * compiled first, so a publication over the compile budget throws and nothing changes.
   * Returns the new revision.
   */
  publish(next: readonly ToolDefinition[]): number {
    const schemas = compileToolSchemas(next, this.#budget);
    const revision = this.revision + 1;
    this.#schemas = schemas;
    this.#published = { revision, tools: [...next] };
    return revision;
  }
}
