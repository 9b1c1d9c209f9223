/**
 * menu/collect results (MENU-04..10) and the generated fallback menu (MENU-03). Owns the menu's
 * shape and every bound that rejects it whole: actions routed only to declared commands, 256
 * items across all levels, 4 levels, unique ids and at most one recommended item per level,
 * submenus without action members, and 256 KiB encoded. When to ask, the 5-second wait, the
 * confirmation before a destructive action and running the action are the host's.
 *
 * Objects are open (FRAME-15): unknown members are ignored and not carried over, except the
 * action members a submenu must not carry (MENU-09). An item is a submenu when it has `items`,
 * otherwise an action; an absent action `arguments` reads as [] (the generated menu's shape).
 */
import { MAX_MENU_BYTES, MAX_MENU_ITEMS, MAX_MENU_LEVELS } from "../bounds.js";
import {
  at,
  duplicates,
  finish,
  index,
  isAbsent,
  member,
  quote,
  quoteList,
  readArray,
  readBoolean,
  readObject,
  readOptionalString,
  readString,
  readStringArray,
  refuse,
} from "../validate/fields.js";
import { measureJson } from "../validate/json-bounds.js";
import { isPlainObject, Problems, type Checked } from "../validate/kit.js";
import type { CommandDefinition } from "./types.js";
import type { ExtensionMenu, MenuAction, MenuItem, MenuStatus, MenuSubmenu } from "./types-v02.js";

/** Members only an action may carry; on a submenu they reject the menu (MENU-09, and command). */
const ACTION_ONLY = ["command", "arguments", "destructive"] as const;

/**
 * A menu/collect result. Any problem rejects the whole menu (MENU-06..10): the caller then shows
 * generatedMenu(...) instead (MENU-03). `declaredCommands` are the extension's command names
 * (the initialize catalog, which runtime_commands may have made authoritative).
 */
export function validateMenu(value: unknown, declaredCommands: readonly string[]): Checked<ExtensionMenu> {
  const p = new Problems();
  // Size first (MENU-10): it bounds the work of every later walk.
  const size = measureJson(value, { maxBytes: MAX_MENU_BYTES, maxDepth: Infinity, maxNodes: Infinity });
  if (!size.ok) {
    p.add(size.path, size.rule === "bytes" ? `menu of ${size.message}` : size.message);
    return refuse(p);
  }
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const title = readString(p, "title", member(obj, "title"), { nonBlank: true });
  const status = checkStatus(p, member(obj, "status"));
  const rawDetail = member(obj, "detail");
  const detail = readOptionalString(p, "detail", rawDetail);
  const rawItems = member(obj, "items");
  // Counting walks every level iteratively, so a deeply nested menu is refused, not recursed into.
  const items = checkShape(p, rawItems) ? checkLevel(p, "items", rawItems, new Set(declaredCommands)) : undefined;
  if (title === undefined || items === undefined || (detail === undefined && !isAbsent(rawDetail))) return refuse(p);
  const menu: ExtensionMenu = { title, items };
  if (status !== undefined) menu.status = status;
  if (detail !== undefined) menu.detail = detail;
  return finish(p, menu);
}

function checkStatus(p: Problems, raw: unknown): MenuStatus | undefined {
  if (isAbsent(raw)) return undefined;
  const obj = readObject(p, "status", raw);
  if (obj === undefined) return undefined;
  const state = readString(p, "status.state", member(obj, "state"), { nonBlank: true });
  const label = readString(p, "status.label", member(obj, "label"));
  return state === undefined || label === undefined ? undefined : { state, label };
}

/**
 * MENU-07: at most 256 items across all levels and at most 4 levels, where the menu's own items
 * are level 1 and each submenu's items one level deeper (an empty submenu still opens a level).
 * Iterative, and it reports the full count, so the message names the value and the limit.
 */
function checkShape(p: Problems, rawItems: unknown): boolean {
  let count = 0;
  let deepest: Level | undefined;
  const stack: Level[] = [{ list: rawItems, level: 1, parent: undefined, at: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const level = next;
    if (!Array.isArray(level.list)) continue; // the validation pass names the wrong type
    if (level.level > MAX_MENU_LEVELS && (deepest === undefined || level.level > deepest.level)) deepest = level;
    count += level.list.length;
    level.list.forEach((item, i) => {
      const sub = isPlainObject(item) ? member(item, "items") : undefined;
      if (!isAbsent(sub)) stack.push({ list: sub, level: level.level + 1, parent: level, at: i });
    });
  }
  if (count > MAX_MENU_ITEMS) p.add("items", `${count} items across all levels, over the ${MAX_MENU_ITEMS}-item limit`);
  if (deepest !== undefined)
    p.add(levelPath(deepest), `${deepest.level} levels of menu, over the ${MAX_MENU_LEVELS}-level limit`);
  return count <= MAX_MENU_ITEMS && deepest === undefined;
}

/** One items array met while counting; its path is built only when it is reported. */
interface Level {
  list: unknown;
  level: number;
  parent: Level | undefined;
  /** Index of the submenu owning this list within its parent's list. */
  at: number;
}

function levelPath(level: Level): string {
  const indexes: number[] = [];
  for (let l: Level | undefined = level; l?.parent !== undefined; l = l.parent) indexes.push(l.at);
  let path = "items";
  for (let i = indexes.length - 1; i >= 0; i--) path = at(index(path, indexes[i] as number), "items");
  return path;
}

/** One level: its items, unique ids and at most one recommended item (MENU-08). */
function checkLevel(p: Problems, path: string, raw: unknown, declared: ReadonlySet<string>): MenuItem[] | undefined {
  const list = readArray(p, path, raw);
  if (list === undefined) return undefined;
  const before = p.count;
  const items = list.map((item, i) => checkItem(p, index(path, i), item, declared));
  const ids = list.flatMap((item) => {
    const id = isPlainObject(item) ? member(item, "id") : undefined;
    return typeof id === "string" ? [id] : [];
  });
  const dup = duplicates(ids);
  if (dup.length > 0) p.add(path, `duplicate ids ${quoteList(dup)} in one level`);
  const recommended = items.filter(
    (item) => item !== undefined && "command" in item && item.recommended === true,
  ).length;
  if (recommended > 1) p.add(path, `${recommended} recommended items in one level; at most one is allowed`);
  return p.count === before ? (items as MenuItem[]) : undefined;
}

function checkItem(p: Problems, path: string, raw: unknown, declared: ReadonlySet<string>): MenuItem | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  const id = readString(p, at(path, "id"), member(obj, "id"), { nonBlank: true });
  // Hosts address an action by its id path ("submenu/item"), so an id cannot contain "/".
  if (id !== undefined && id.includes("/"))
    p.add(
      at(path, "id"),
      `${JSON.stringify(id.slice(0, 64))} contains "/", which separates the levels of an item path`,
    );
  const label = readString(p, at(path, "label"), member(obj, "label"), { nonBlank: true });
  if (!isAbsent(member(obj, "items"))) {
    for (const key of ACTION_ONLY) {
      if (!isAbsent(member(obj, key)))
        p.add(at(path, key), "not allowed on a submenu (an item with items); only actions carry it");
    }
    const items = checkLevel(p, at(path, "items"), member(obj, "items"), declared);
    if (id === undefined || label === undefined || items === undefined || p.count !== before) return undefined;
    const submenu: MenuSubmenu = { id, label, items };
    return submenu;
  }
  const command = readString(p, at(path, "command"), member(obj, "command"));
  if (command !== undefined && !declared.has(command)) {
    p.add(at(path, "command"), `${quote(command)} is not one of the extension's declared commands`);
  }
  const rawArgs = member(obj, "arguments");
  const args = isAbsent(rawArgs) ? [] : readStringArray(p, at(path, "arguments"), rawArgs);
  const recommended = readOptionalBoolean(p, at(path, "recommended"), member(obj, "recommended"));
  const description = readOptionalString(p, at(path, "description"), member(obj, "description"));
  const destructive = readOptionalBoolean(p, at(path, "destructive"), member(obj, "destructive"));
  if (id === undefined || label === undefined || command === undefined || args === undefined || p.count !== before)
    return undefined;
  const action: MenuAction = { id, label, command, arguments: args };
  if (recommended !== undefined) action.recommended = recommended;
  if (description !== undefined) action.description = description;
  if (destructive !== undefined) action.destructive = destructive;
  return action;
}

/** An optional boolean: absent or null reads as undefined (not carried over). */
function readOptionalBoolean(p: Problems, path: string, v: unknown): boolean | undefined {
  return isAbsent(v) ? undefined : readBoolean(p, path, v);
}

/**
 * The fallback menu (MENU-03): one action per declared command, in catalog order, with no
 * arguments; id, label and command are the command's name. Descriptions are included when the
 * menu then stays within 256 KiB (256 commands may carry 16 KiB each), so the fallback always
 * passes validateMenu for a valid catalog and title.
 */
export function generatedMenu(commands: readonly CommandDefinition[], title: string): ExtensionMenu {
  const action = (c: CommandDefinition, withDescription: boolean): MenuAction => {
    const a: MenuAction = { id: c.name, label: c.name, command: c.name, arguments: [] };
    if (withDescription && c.description !== "") a.description = c.description;
    return a;
  };
  const full: ExtensionMenu = { title, items: commands.map((c) => action(c, true)) };
  const size = measureJson(full, { maxBytes: MAX_MENU_BYTES, maxDepth: Infinity, maxNodes: Infinity });
  return size.ok ? full : { title, items: commands.map((c) => action(c, false)) };
}
