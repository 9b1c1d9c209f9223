/**
 * The model and thinking level as pi extensions see and change them: ctx.modelRegistry (the
 * agent's model catalog, mirrored to each extension with ForeignSessionState.models),
 * pi.getThinkingLevel / setThinkingLevel (clamped to the model as pi clamps it, with
 * thinking_level_select when the level changes) and pi.setModel (false when the model has no key,
 * as pi answers). The level is asked of pi-ai as its `reasoning` option (reasoningFor).
 *
 * Keys never reach an extension: the catalog says only whether a model has one.
 */
import { clampThinkingLevel, type ModelThinkingLevel, type ThinkingLevel } from "@mariozechner/pi-ai";
import type { ForeignSessionState } from "@octet/host";
import { AgentError } from "../agent-error.js";
import type { CatalogModel, ModelCatalog, ResolvedModel } from "../models/index.js";
import type { AgentEvent } from "./events.js";
import type { PiEvents } from "./pi-events.js";

export const THINKING_LEVELS: readonly ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

export function isThinkingLevel(v: unknown): v is ModelThinkingLevel {
  return typeof v === "string" && (THINKING_LEVELS as readonly string[]).includes(v);
}

/** The request's `reasoning` option: none when the level is off or the model cannot reason. */
export function reasoningFor(model: ResolvedModel, level: ModelThinkingLevel): ThinkingLevel | undefined {
  const effective = clampThinkingLevel(model.model, level);
  return effective === "off" ? undefined : effective;
}

type MirroredModels = NonNullable<ForeignSessionState["models"]>;

/** The agent's side: its model now, its switch (an extension's: recorded, not waiting), its events. */
export interface ModelHolder {
  get(): ResolvedModel;
  switchTo(model: ResolvedModel): Promise<void>;
  emit(e: AgentEvent): void;
}

export class PiModels {
  /** The level asked for; the effective one is it clamped to the model (kept across model switches). */
  #wanted: ModelThinkingLevel;
  #effective: ModelThinkingLevel;
  readonly #catalog: ModelCatalog | null;
  readonly #pi: PiEvents;
  readonly #holder: ModelHolder;
  #mirrored: { from: readonly CatalogModel[]; list: MirroredModels["list"] } | null = null;

  constructor(catalog: ModelCatalog | undefined, level: ModelThinkingLevel, holder: ModelHolder, pi: PiEvents) {
    this.#catalog = catalog ?? null;
    this.#wanted = level;
    this.#effective = clampThinkingLevel(holder.get().model, level);
    this.#pi = pi;
    this.#holder = holder;
  }

  get level(): ModelThinkingLevel {
    return this.#effective;
  }

  /**
   * Sets the level asked for and clamps it to `model`; thinking_level_select goes out when the
   * effective level changes. Resolves with the level in effect once the extensions were told,
   * except for an extension's own change (the event goes to that extension too, whose action
   * waits). Rejects with AgentError for an unknown level.
   */
  async setThinkingLevel(level: unknown, o: { fromExtension?: boolean } = {}): Promise<ModelThinkingLevel> {
    if (!isThinkingLevel(level))
      throw new AgentError(
        "invalid_thinking_level",
        `unknown thinking level ${JSON.stringify(level)}; the levels are ${THINKING_LEVELS.join(", ")}`,
      );
    this.#wanted = level;
    const told = this.modelChanged(this.#holder.get());
    if (!o.fromExtension) await told;
    return this.#effective;
  }

  /** After a model switch: the wanted level clamped to the new model (pi re-clamps it too). */
  modelChanged(model: ResolvedModel): Promise<void> {
    const previousLevel = this.#effective;
    this.#effective = clampThinkingLevel(model.model, this.#wanted);
    if (this.#effective === previousLevel || !this.#pi.takes("thinking_level_select")) return Promise.resolve();
    const told = this.#pi.observe("thinking_level_select", { level: this.#effective, previousLevel });
    return told.catch(() => undefined);
  }

  /**
   * A model switch: the level re-clamped, then model_select (pi's source "set"). An extension's
   * switch does not wait for it: the event goes to that extension too, whose action is pending.
   */
  async selected(model: ResolvedModel, previousModel: unknown, fromExtension: boolean): Promise<void> {
    const clamped = this.modelChanged(model);
    if (!fromExtension) await clamped;
    if (!this.#pi.takes("model_select")) return;
    const told = this.#pi.observe("model_select", { model: model.model, previousModel, source: "set" });
    if (fromExtension) void told.catch(() => undefined);
    else await told;
  }

  /**
   * pi.setModel: the agent switches to the model; false when it is unknown or has no key (pi's
   * answer), the reason said as a notice, since pi's false carries none.
   */
  async setModel(extension: string, provider: string, id: string): Promise<boolean> {
    const model = await this.#resolve(extension, provider, id);
    if (model !== null) await this.#holder.switchTo(model);
    return model !== null;
  }

  async #resolve(extension: string, provider: string, id: string): Promise<ResolvedModel | null> {
    const why = (text: string): null => {
      this.#holder.emit({ type: "notice", level: "warning", source: extension, text: `pi.setModel: ${text}` });
      return null;
    };
    if (this.#catalog === null) return why("this agent has no model registry, so the model stays");
    const known = this.#catalog.list().find((m) => m.model.provider === provider && m.model.id === id);
    if (known === undefined) return why(`unknown model ${provider}/${id}`);
    if (!known.available) return why(`no API key for ${provider}/${id}`);
    try {
      return await this.#catalog.resolve(provider, id);
    } catch (err) {
      return why(err instanceof Error ? err.message : String(err));
    }
  }

  /** The parts of ForeignSessionState this class describes. */
  state(): Pick<ForeignSessionState, "thinkingLevel" | "models"> {
    if (this.#catalog === null) return { thinkingLevel: this.#effective };
    const from = this.#catalog.list();
    if (this.#mirrored?.from !== from)
      this.#mirrored = { from, list: from.map((m) => ({ model: withoutHeaders(m.model), available: m.available })) };
    return { thinkingLevel: this.#effective, models: { list: this.#mirrored.list } };
  }
}

/** A model as an extension may see it: a copy, without headers (a secret may sit in one). */
function withoutHeaders(model: object): Record<string, unknown> {
  const { headers: _headers, ...rest } = model as Record<string, unknown>;
  return rest;
}
