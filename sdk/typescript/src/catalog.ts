/**
 * The extension's side of dynamic tools (CAT-09, CAT-14..16): the catalog epochs this process
 * published, so a tool/call is dispatched with the tools of the epoch the model saw.
 *
 * The host answers a call's catalog_revision, which may be older than the newest epoch (a model
 * request still in flight keeps the catalog it was given), or newer than the last one the SDK
 * has committed (the host publishes before its acknowledgement arrives here). So the last eight
 * committed epochs are kept, plus the staged next one while a mutation waits for its answer;
 * a call for any other epoch is refused with -32602 (CAT-16). Mutations run one at a time, so
 * there is never more than one staged epoch.
 */
import {
  ErrorCode,
  WireError,
  validateCatalogMutationResult,
  type CatalogMutationResult,
  type ToolDefinition,
} from "@octet/protocol";
import type { ToolHandler } from "./types.js";

export interface CatalogTool {
  definition: ToolDefinition;
  handler: ToolHandler;
}

export type ToolMap = ReadonlyMap<string, CatalogTool>;

/** Committed epochs kept for calls planned against older catalogs. */
export const RETAINED_EPOCHS = 8;

interface Epoch {
  revision: number;
  tools: ToolMap;
}

export class ToolCatalog {
  /** Oldest first; at most RETAINED_EPOCHS. */
  readonly #committed: Epoch[];
  #staged: Epoch | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  /** `initial` is the initialize catalog: epoch 0 (CAT-09). */
  constructor(initial: ToolMap) {
    this.#committed = [{ revision: 0, tools: new Map(initial) }];
  }

  get revision(): number {
    return this.#committed[this.#committed.length - 1]!.revision;
  }

  get current(): ToolMap {
    return this.#committed[this.#committed.length - 1]!.tools;
  }

  /** The epochs a call may name now: the committed ones kept, and the staged one. */
  get known(): number[] {
    return [...this.#committed.map((e) => e.revision), ...(this.#staged ? [this.#staged.revision] : [])];
  }

  /** The tools of `revision`; an epoch not kept (unknown or retired) is -32602 (CAT-16). */
  at(revision: number | undefined): ToolMap {
    if (revision === undefined) return this.current;
    if (this.#staged?.revision === revision) return this.#staged.tools;
    const epoch = this.#committed.find((e) => e.revision === revision);
    if (!epoch) {
      throw new WireError(
        ErrorCode.InvalidParams,
        `unknown or retired catalog_revision ${revision}; this process keeps epochs ${this.known.join(", ")}`,
      );
    }
    return epoch.tools;
  }

  /**
   * One mutation: `next` is the complete catalog the request asks for; `send` sends the request
   * and resolves with the host's answer. While it waits, `next` is staged as the next epoch; the
   * committed epoch holds exactly the tools the host accepted (its list is authoritative, CAT-08).
   */
  mutate(next: (current: ToolMap) => ToolMap, send: () => Promise<unknown>): Promise<CatalogMutationResult> {
    const run = async (): Promise<CatalogMutationResult> => {
      const proposed = next(this.current);
      this.#staged = { revision: this.revision + 1, tools: proposed };
      try {
        const raw = await send();
        const checked = validateCatalogMutationResult(raw);
        if (!checked.ok)
          throw new Error(
            `the host answered the catalog mutation with an invalid result: ${checked.problems.join("; ")}`,
          );
        const accepted = new Map<string, CatalogTool>();
        for (const name of checked.value.tools) {
          const tool = proposed.get(name);
          if (!tool) throw new Error(`the host accepted tool "${name}", which this catalog mutation did not contain`);
          accepted.set(name, tool);
        }
        this.#committed.push({ revision: checked.value.revision, tools: accepted });
        if (this.#committed.length > RETAINED_EPOCHS) this.#committed.shift();
        return checked.value;
      } finally {
        this.#staged = null;
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}
