/**
 * Actions a person runs from what an extension showed: menu actions (MENU-11..13) and
 * presentation actions (PRES-23, PRES-25). Either runs command/execute of a command the extension
 * declared, with the literal arguments, on that extension only. A destructive one goes through
 * the one confirmation path below first: confirmed with the embedder, refused without a confirm
 * service, and once confirmed here the command's first confirmation needs no second yes.
 */
import { OctetError, bounds, type CommandResult, type ExtensionMenu } from "@octet/protocol";
import type { HostEvent } from "../events.js";
import type { ConfirmService } from "../generation/child-inbox.js";
import type { CallOptions as CollectOptions } from "../modules/collection/collect.js";
import { collectMenu, offersMenu, requireAction, type MenuOutcome } from "../modules/menus/menus.js";
import type { PresentationStore } from "../modules/presentation/presentation-store.js";
import type { Roster } from "./roster.js";
import type { CallOptions, Router } from "./routing.js";

/** What is about to run, for the question and for the refusal. */
export interface DestructiveAction {
  kind: "menu" | "presentation";
  extension: string;
  label: string;
}

/**
 * Asks the embedder to confirm a destructive action; throws request_cancelled unless it said yes.
 * Without a confirm service nobody can say yes, so the action is refused, never run unasked.
 */
export async function confirmDestructive(
  confirm: ConfirmService | undefined,
  action: DestructiveAction,
  signal?: AbortSignal,
): Promise<void> {
  const ok = confirm
    ? await confirm({
        extension: action.extension,
        prompt: `Run "${action.label}"?`,
        detail: "This action is marked destructive.",
        destructive: true,
        default: false,
        // The question ends with the action's own signal; without one it waits for its answer.
        signal: signal ?? new AbortController().signal,
      })
    : false;
  if (!ok) {
    const what = `${action.kind} action "${action.label}" of "${action.extension}"`;
    throw new OctetError("request_cancelled", `${what} was not confirmed`);
  }
}

export interface ActionsOptions {
  roster: Roster;
  router: Router;
  presentations: PresentationStore;
  confirm: ConfirmService | undefined;
  emit: (event: HostEvent) => void;
}

/** `at`: the snapshot the person saw (PRES-25). */
export type PresentationActionOptions = CallOptions & { at?: PresentationPin };
export interface PresentationPin {
  instance: string;
  generation: number;
  revision: number;
}

type CommandOutcome = Promise<CommandResult & { extension: string }>;

export class Actions {
  readonly #o: ActionsOptions;
  /** The menu last collected per extension: actions run only from a menu the host validated. */
  readonly #menus = new Map<string, ExtensionMenu>();

  constructor(options: ActionsOptions) {
    this.#o = options;
  }

  async collectMenu(extension: string, options: CollectOptions): Promise<MenuOutcome> {
    const g = this.#o.roster.readyGeneration(extension);
    const outcome = await collectMenu(g, options);
    if (outcome.generated && offersMenu(g)) {
      const message = `showing generated menu: ${outcome.reason ?? ""}`;
      this.#o.emit({ type: "diagnostic", extension, generation: g.number, level: "warning", message });
    }
    this.#menus.set(extension, outcome.menu);
    return outcome;
  }

  async runMenuAction(extension: string, path: string, options: CallOptions): CommandOutcome {
    const menu = this.#menus.get(extension);
    if (!menu) throw new OctetError("unknown_command", `collect the menu of "${extension}" first (collectMenu)`);
    const action = requireAction(menu, path, extension);
    const destructive = action.destructive === true;
    if (destructive) {
      await confirmDestructive(this.#o.confirm, { kind: "menu", extension, label: action.label }, options.signal);
    }
    // A menu action may run for up to 30 minutes (MENU-12).
    const timeoutMs = options.timeoutMs ?? bounds.MENU_ACTION_TIMEOUT_MS;
    const args = [...action.arguments];
    return this.#o.router.runCommandOf(extension, action.command, args, { ...passOn(options), timeoutMs }, destructive);
  }

  async runPresentationAction(extension: string, actionId: string, options: PresentationActionOptions): CommandOutcome {
    const record = this.#o.presentations.latest(extension);
    if (!record) throw new OctetError("unknown_command", `extension "${extension}" has no presentation snapshot`);
    const { at } = options;
    if (at && !sameSnapshot(at, record)) {
      const now = `now generation ${record.generation}, revision ${record.revision}`;
      const message = `the presentation of "${extension}" changed (${now}); look at it again before running an action`;
      throw new OctetError("unknown_command", message);
    }
    const action = record.snapshot.actions.find((a) => a.id === actionId);
    if (!action) {
      const ids = record.snapshot.actions.map((a) => a.id).join(", ") || "none";
      const id = JSON.stringify(actionId.slice(0, 64));
      const message = `presentation of "${extension}" has no action ${id}; its actions: ${ids}`;
      throw new OctetError("unknown_command", message);
    }
    if (action.destructive) {
      const what: DestructiveAction = { kind: "presentation", extension, label: action.label };
      await confirmDestructive(this.#o.confirm, what, options.signal);
    }
    const timeout = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
    const args = [...action.arguments];
    const callOptions = { ...passOn(options), ...timeout };
    return this.#o.router.runCommandOf(extension, action.command, args, callOptions, action.destructive);
  }
}

function sameSnapshot(at: PresentationPin, record: PresentationPin): boolean {
  return at.instance === record.instance && at.generation === record.generation && at.revision === record.revision;
}

/** The signal and progress listener of the person's request; nothing else of it reaches the command. */
function passOn(options: CallOptions): CallOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}
