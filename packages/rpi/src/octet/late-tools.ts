/**
 * Tools a pi extension registers after its load (pi's registerTool from a handler), published on
 * octet's dynamic catalog (tools/register, tools/unregister; feature dynamic_tools).
 *
 * Contract: changed() is called for every late registration frame; the next publication (one per
 * burst: frames read in the same turn share it) compares the instance's tools with what was last
 * published and sends the removed names and the new or changed definitions, in that order.
 * settled() resolves once every publication asked for so far has been answered, so a handler's
 * answer can wait for its tools to be offered: the model's next request sees them. A refusal (a
 * name another extension holds, a bound) is a warning naming the tools; what was refused is not
 * sent again until its definition changes. Without dynamic_tools negotiated nothing is sent and
 * each late tool is said once as not offered.
 */
import { bounds, truncateUtf8, type ToolDefinition } from "@octet/protocol";
import type { ToolDescriptor } from "../protocol/frames.js";

export interface LateToolsOptions {
  tools(): ToolDescriptor[];
  /** True once initialize answered with dynamic_tools selected. */
  negotiated(): boolean;
  /** False until the octet initialize answered: until then its result reads the catalog itself. */
  initialized(): boolean;
  request(method: "tools/register" | "tools/unregister", params: Record<string, unknown>): Promise<unknown>;
  warn(message: string): void;
  /** True when tool_prompt_metadata_v1 was selected: definitions carry pi's prompt snippet and guidelines. */
  promptMetadata?(): boolean;
}

/** An rpi tool as octet defines it: pi's description is optional, octet's is not. */
/**
 * A pi tool as octet's definition. With `promptMetadata` (tool_prompt_metadata_v1 negotiated),
 * pi's promptSnippet and promptGuidelines become prompt_snippet and prompt_guidelines, fitted to
 * octet's bounds (TDEF-10: 1,024 bytes each, 16 guidelines, LF and TAB the only controls) rather
 * than refused: pi has no such bounds, and a longer snippet should not cost the whole tool.
 */
export function toolDefinition(t: ToolDescriptor, promptMetadata = false): ToolDefinition {
  const def: ToolDefinition = {
    name: t.name,
    description: t.description || t.label || t.name,
    parameters: t.parameters,
  };
  if (!promptMetadata) return def;
  const fit = (s: string): string =>
    truncateUtf8(s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, " "), bounds.MAX_PROMPT_METADATA_BYTES);
  if (t.promptSnippet?.trim()) def.prompt_snippet = fit(t.promptSnippet);
  const guidelines = (t.promptGuidelines ?? []).filter((g) => g.trim() !== "").slice(0, bounds.MAX_PROMPT_GUIDELINES);
  if (guidelines.length > 0) def.prompt_guidelines = guidelines.map(fit);
  return def;
}

export class LateTools {
  /** name -> the definition's JSON as last sent (accepted or refused). */
  readonly #sent = new Map<string, string>();
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  readonly #unoffered = new Set<string>();

  constructor(private readonly o: LateToolsOptions) {}

  /** The initialize catalog: what the host holds at epoch 0. */
  seed(tools: readonly ToolDefinition[]): void {
    this.#sent.clear();
    for (const t of tools) this.#sent.set(t.name, JSON.stringify(t));
  }

  changed(): void {
    if (!this.o.initialized()) return;
    if (!this.o.negotiated()) {
      for (const t of this.o.tools())
        if (!this.#sent.has(t.name) && !this.#unoffered.has(t.name)) {
          this.#unoffered.add(t.name);
          this.o.warn(
            `tool "${t.name}" was registered after the load, but the host did not offer dynamic_tools: the model ` +
              `is not offered it until a reload`,
          );
        }
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // A macrotask later: the frames read with this one (a burst of registrations) share the publication.
    this.#chain = this.#chain
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.#scheduled = false;
        return this.#publish();
      });
  }

  settled(): Promise<void> {
    return this.#chain;
  }

  async #publish(): Promise<void> {
    const now = this.o.tools().map((t) => toolDefinition(t, this.o.promptMetadata?.() === true));
    const names = new Set(now.map((t) => t.name));
    const removed = [...this.#sent.keys()].filter((n) => !names.has(n));
    const changed = now.filter((t) => this.#sent.get(t.name) !== JSON.stringify(t));
    if (removed.length > 0) {
      for (const n of removed) this.#sent.delete(n);
      await this.#send("tools/unregister", { names: removed }, removed);
    }
    if (changed.length > 0) {
      for (const t of changed) this.#sent.set(t.name, JSON.stringify(t));
      await this.#send(
        "tools/register",
        { tools: changed },
        changed.map((t) => t.name),
      );
    }
  }

  async #send(method: "tools/register" | "tools/unregister", params: Record<string, unknown>, names: string[]) {
    try {
      await this.o.request(method, params);
    } catch (err) {
      const what = names.map((n) => `"${n}"`).join(", ");
      this.o.warn(
        `${method === "tools/register" ? "publishing" : "withdrawing"} the tool${names.length > 1 ? "s" : ""} ` +
          `${what} registered after the load failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
