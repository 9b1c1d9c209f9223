/**
 * What an rpi extension registered during its load phase: tools, commands and hooks (RPI-27).
 *
 * Contract: apply() takes one register or unregister frame of the load phase and answers the
 * protocol violation it is (a kind the hello's capabilities do not cover, past bounds.MAX_TOOLS
 * or bounds.MAX_COMMANDS), or null. Registering a name again replaces it. A hook for an unknown
 * event is ignored with a warning; an older event name is kept under its current name (QJS-07).
 */
import { bounds } from "@octet/protocol";
import { resolveEventName } from "../protocol/events.js";
import type { ExtensionFrame, ToolDescriptor } from "../protocol/frames.js";
import type { DiagnosticLevel } from "./connection-types.js";

export type RegistrationFrame = Extract<ExtensionFrame, { type: "register" | "unregister" }>;

export class RpiCatalog {
  readonly #tools = new Map<string, ToolDescriptor>();
  readonly #commands = new Map<string, { name: string; description?: string }>();
  readonly #hooks = new Set<string>();
  readonly #shortcuts = new Map<string, { key: string; description?: string }>();
  readonly #flags = new Set<string>();
  readonly #providers = new Map<string, { name: string; config: Record<string, unknown> }>();

  constructor(private readonly diagnose: (level: DiagnosticLevel, message: string) => void) {}

  tools(): ToolDescriptor[] {
    return [...this.#tools.values()];
  }
  commands(): { name: string; description?: string }[] {
    return [...this.#commands.values()];
  }
  hooks(): string[] {
    return [...this.#hooks];
  }
  /** pi's shortcuts, by pi key as the extension wrote it; mapped to octet keys by the bridge. */
  shortcuts(): { key: string; description?: string }[] {
    return [...this.#shortcuts.values()];
  }
  flags(): string[] {
    return [...this.#flags];
  }
  /** pi's registerProvider data, for the session layer's model registry. */
  providers(): { name: string; config: Record<string, unknown> }[] {
    return [...this.#providers.values()];
  }

  /** Applies a registration; returns the protocol violation it is, or null. */
  apply(frame: RegistrationFrame, capabilities: readonly string[]): string | null {
    const r = frame.registration;
    if (r.kind === "flag") return this.#bounded(this.#flags, r.flag.name, "flags", () => this.#flags.add(r.flag.name));
    if (r.kind === "provider") {
      if (!capabilities.includes("provider_metadata"))
        return "registered a provider without the provider_metadata capability";
      return this.#bounded(this.#providers, r.provider.name, "providers", () =>
        this.#providers.set(r.provider.name, r.provider),
      );
    }
    // A shortcut runs a handler as a command does: it needs the commands capability.
    const needs =
      r.kind === "tool" ? "tools" : r.kind === "command" || r.kind === "shortcut" ? "commands" : "event_hooks";
    if (!capabilities.includes(needs)) return `registered a ${r.kind} without the ${needs} capability`;
    if (r.kind === "shortcut")
      return this.#bounded(this.#shortcuts, r.shortcut.key, "shortcuts", () =>
        this.#shortcuts.set(r.shortcut.key, r.shortcut),
      );
    if (frame.type === "unregister") {
      const name = (r as { name: string }).name;
      if (r.kind === "tool") this.#tools.delete(name);
      else if (r.kind === "command") this.#commands.delete(name);
      else this.#hooks.delete(resolveEventName(name)?.event ?? name);
      return null;
    }
    const reg = frame.registration;
    if (reg.kind === "tool" && !this.#tools.has(reg.tool.name) && this.#tools.size >= bounds.MAX_TOOLS)
      return `registered more than ${bounds.MAX_TOOLS} tools ("${reg.tool.name}" is the ${bounds.MAX_TOOLS + 1}th)`;
    if (reg.kind === "command" && !this.#commands.has(reg.command.name) && this.#commands.size >= bounds.MAX_COMMANDS)
      return (
        `registered more than ${bounds.MAX_COMMANDS} commands ("${reg.command.name}" is the ` +
        `${bounds.MAX_COMMANDS + 1}th)`
      );
    if (reg.kind === "tool") this.#tools.set(reg.tool.name, reg.tool);
    else if (reg.kind === "command") this.#commands.set(reg.command.name, reg.command);
    else if (reg.kind === "hook") {
      const resolved = resolveEventName(reg.hook.event);
      if (!resolved) {
        this.diagnose("warning", `ignored a hook for the unknown event "${reg.hook.event}"`);
        return null;
      }
      if (resolved.alias)
        this.diagnose(
          "info",
          `hook event "${reg.hook.event}" is an older name; it is delivered as "${resolved.event}"`,
        );
      this.#hooks.add(resolved.event);
    }
    return null;
  }

  /** Shortcuts and flags: at most MAX_KEYED of each, a name again replaces it. */
  #bounded(
    held: { has(k: string): boolean; size: number },
    name: string,
    what: string,
    add: () => void,
  ): string | null {
    if (!held.has(name) && held.size >= MAX_KEYED) return `registered more than ${MAX_KEYED} ${what} ("${name}")`;
    add();
    return null;
  }
}

/** pi has no bound on shortcuts or flags; 64 of each is far more than any extension registers. */
const MAX_KEYED = 64;
