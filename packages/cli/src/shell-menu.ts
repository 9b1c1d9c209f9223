/**
 * `/menu NAME [PATH]` in the shell (MENU-01..14). Without PATH: the extension's menu, pulled
 * fresh, as an indented tree with each item's path, recommended and destructive actions marked,
 * and a line saying when the generated fallback is shown and why. With PATH: the menu is pulled
 * fresh and the action at PATH runs (the host confirms destructive ones through the confirm
 * service, MENU-13, and allows up to 30 minutes, MENU-12). No menu logic of its own.
 */
import type { ExtensionHost, MenuOutcome } from "@octet/host";
import type { MenuItem } from "@octet/protocol";
import { UsageError } from "./args.js";
import { paint, terminalSafe } from "./output.js";
import type { ProgressView } from "./progress-view.js";

const out = process.stdout;

export async function menuCommand(
  host: ExtensionHost,
  words: string[],
  signal: AbortSignal,
  withProgress: <T>(label: string, run: (onProgress: ProgressView["handle"]) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [name, path, ...extra] = words.filter((w) => w !== "");
  if (name === undefined || extra.length > 0) {
    const ready = host
      .status()
      .filter((s) => s.state === "ready")
      .map((s) => s.name);
    throw new UsageError(
      `usage: /menu NAME [PATH], e.g. /menu ${ready[0] ?? "my-extension"} (running: ${ready.join(", ") || "none"})`,
    );
  }
  const outcome = await host.collectMenu(name, { signal });
  if (path === undefined) {
    out.write(formatMenu(outcome));
    return;
  }
  const result = await withProgress(`${name} ${path}`, (onProgress) =>
    host.runMenuAction(name, path, { signal, onProgress }),
  );
  out.write(`${result.text}${result.text.endsWith("\n") ? "" : "\n"}`);
  for (const n of result.notifications) {
    const message = n.message ? ` — ${terminalSafe(n.message)}` : "";
    out.write(`[${result.extension}] ${n.level}: ${terminalSafe(n.title)}${message}\n`);
  }
}

export function formatMenu(outcome: MenuOutcome): string {
  const { menu } = outcome;
  const lines: string[] = [
    `${paint("bold", terminalSafe(menu.title), out)} ${paint("dim", `(menu of ${outcome.extension})`, out)}`,
  ];
  if (outcome.generated)
    lines.push(
      paint("yellow", `generated menu: ${terminalSafe(outcome.reason ?? "the extension declares no menu")}`, out),
    );
  if (menu.status) lines.push(`status: ${terminalSafe(menu.status.state)}: ${terminalSafe(menu.status.label)}`);
  if (menu.detail !== undefined) lines.push(terminalSafe(menu.detail));
  const walk = (items: readonly MenuItem[], prefix: string, depth: number): void => {
    for (const item of items) {
      const path = prefix === "" ? item.id : `${prefix}/${item.id}`;
      const indent = "  ".repeat(depth + 1);
      if ("items" in item) {
        lines.push(`${indent}${terminalSafe(item.label)}/  ${paint("dim", `[${path}/]`, out)}`);
        walk(item.items, path, depth + 1);
        continue;
      }
      const marks = [
        item.recommended === true ? paint("green", "(recommended)", out) : "",
        item.destructive === true ? paint("red", "(destructive)", out) : "",
      ].filter((m) => m !== "");
      const description = item.description !== undefined ? ` — ${terminalSafe(item.description)}` : "";
      lines.push(
        `${indent}${terminalSafe(item.label)}  [${path}]${marks.length > 0 ? ` ${marks.join(" ")}` : ""}${description}`,
      );
    }
  };
  walk(menu.items, "", 0);
  if (menu.items.length === 0) lines.push("  (no items)");
  lines.push(paint("dim", `run one with /menu ${outcome.extension} PATH`, out));
  return `${lines.join("\n")}\n`;
}
