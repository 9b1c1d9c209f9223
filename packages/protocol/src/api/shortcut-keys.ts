/**
 * The shortcut key syntax (WAVE1-26, the GAP's default): lowercase `+`-joined modifiers from
 * {ctrl, alt, shift, meta} followed by one key name: a letter a-z, a digit 0-9, or f1..f12.
 * `meta` is a synonym of `alt` (a terminal reports both as ESC-prefixed keys), a modifier may
 * appear once, and at least one modifier is needed for a letter or digit (a bare one is typing).
 * Keys the interactive line editor already binds (readline's Emacs keys, Ctrl-C/D, Tab, Enter)
 * are refused rather than silently shadowed. Examples: `ctrl+g`, `alt+x`, `ctrl+alt+p`, `f5`.
 */

export interface ShortcutKey {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  /** The key name as a terminal keypress names it: "g", "7", "f5". */
  name: string;
  /** The canonical spelling: modifiers in the order ctrl, alt, shift. */
  canonical: string;
}

export type ParsedShortcutKey = { ok: true; key: ShortcutKey } | { ok: false; problem: string };

const MODIFIERS = new Set(["ctrl", "alt", "shift", "meta"]);
/** What the line editor binds itself: never given to an extension. */
const RESERVED = new Set([
  ..."abcdefhijklmnptuwyz".split("").map((c) => `ctrl+${c}`),
  ..."bdfy".split("").map((c) => `alt+${c}`),
]);

export function parseShortcutKey(text: string): ParsedShortcutKey {
  const parts = text.split("+");
  const name = parts.pop() ?? "";
  const mods = new Set<string>();
  for (const m of parts) {
    if (!MODIFIERS.has(m)) return { ok: false, problem: `"${text}": unknown modifier "${m}" (ctrl, alt, shift, meta)` };
    const canonical = m === "meta" ? "alt" : m;
    if (mods.has(canonical)) return { ok: false, problem: `"${text}": modifier "${m}" is given twice` };
    mods.add(canonical);
  }
  const fkey = /^f([1-9]|1[0-2])$/.test(name);
  if (!fkey && !/^[a-z0-9]$/.test(name))
    return { ok: false, problem: `"${text}": key "${name}" is not a-z, 0-9 or f1..f12 (lowercase)` };
  if (!fkey && mods.size === 0) return { ok: false, problem: `"${text}": a letter or digit needs a modifier` };
  if (!fkey && mods.has("shift") && mods.size === 1)
    return { ok: false, problem: `"${text}": shift alone with a letter or digit is typing` };
  const key: ShortcutKey = {
    ctrl: mods.has("ctrl"),
    alt: mods.has("alt"),
    shift: mods.has("shift"),
    name,
    canonical: [...["ctrl", "alt", "shift"].filter((m) => mods.has(m)), name].join("+"),
  };
  if (RESERVED.has(key.canonical))
    return { ok: false, problem: `"${text}": ${key.canonical} is bound by the line editor` };
  return { ok: true, key };
}
