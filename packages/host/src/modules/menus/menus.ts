/**
 * menu/collect and menu actions (MENU-01..13). A menu is pulled fresh, waits at most 5 s, and
 * falls back to one generated entry per declared command on timeout, error or any rejected
 * bound. An action can only run a command the extension declared, with the menu's literal
 * arguments, and may run for up to 30 minutes; a destructive one is confirmed first.
 */
import {
  OctetError,
  bounds,
  generatedMenu,
  isNegotiated,
  validateMenu,
  type ExtensionMenu,
  type MenuAction,
  type MenuItem,
} from "@octet/protocol";
import type { RequestTarget as Generation } from "../target.js";

export interface MenuOutcome {
  extension: string;
  menu: ExtensionMenu;
  /** True when this is the generated fallback, with the reason. */
  generated: boolean;
  reason: string | null;
}

/** Whether the host may send menu/collect to this generation (MENU-01). */
export function offersMenu(g: Generation): boolean {
  return isNegotiated(g.api) && g.spec.manifest.contributes.menu && (g.accepted?.result.commands.length ?? 0) > 0;
}

export async function collectMenu(
  g: Generation,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<MenuOutcome> {
  const commands = g.accepted?.result.commands ?? [];
  const fallback = (reason: string): MenuOutcome => ({
    extension: g.name,
    menu: generatedMenu(commands, g.name),
    generated: true,
    reason,
  });
  if (!offersMenu(g)) return fallback("the extension declares no menu");
  let raw: unknown;
  try {
    raw = await g.request(
      "menu/collect",
      { context: g.context(true) },
      { timeoutMs: options.timeoutMs ?? bounds.MENU_TIMEOUT_MS, signal: options.signal },
    );
  } catch (err) {
    return fallback(`menu/collect failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const checked = validateMenu(
    raw,
    commands.map((c) => c.name),
  );
  if (!checked.ok) return fallback(`menu rejected: ${checked.problems.join("; ")}`);
  return { extension: g.name, menu: checked.value, generated: false, reason: null };
}

/** Finds an action by its id path ("setup", or "jev/forget" inside a submenu). */
export function findAction(menu: ExtensionMenu, path: string): MenuAction | null {
  const parts = path.split("/");
  let items: readonly MenuItem[] = menu.items;
  for (let i = 0; i < parts.length; i++) {
    const item = items.find((x) => x.id === parts[i]);
    if (!item) return null;
    if ("items" in item) {
      items = item.items;
      continue;
    }
    return i === parts.length - 1 ? item : null;
  }
  return null;
}

export function requireAction(menu: ExtensionMenu, path: string, extension: string): MenuAction {
  const action = findAction(menu, path);
  if (!action) throw new OctetError("unknown_command", `extension "${extension}" has no menu action "${path}"`);
  return action;
}
