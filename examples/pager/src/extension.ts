/**
 * pager: an extension that takes the terminal. /pager asks the host for the foreground terminal
 * (ctx.terminal.acquire(): the shell pauses its prompt and stops drawing), opens the device the
 * host names (openTerminal()), shows a full-screen view on the alternate screen, and gives the
 * terminal back (ctx.terminal.release(): the shell redraws its prompt). If the host takes the
 * terminal back first (the command was cancelled, the shell is leaving), the grant's `lost`
 * signal ends the view and nothing more is written.
 */
import { Extension, openTerminal, type HeldTerminal, type OpenTerminal } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4" });

const ALT_ON = "\u001b[?1049h\u001b[?25l";
const ALT_OFF = "\u001b[?25h\u001b[?1049l";

ext.command(
  { name: "pager", description: "Show a full-screen scrollable view (q quits)", usage: "/pager [WORD...]" },
  async (args, ctx) => {
    if (!ctx.terminal.available) return "pager needs an interactive terminal (run it in the octet shell on a tty)";
    const lines = pageLines(args);
    const held = await ctx.terminal.acquire();
    const term = openTerminal();
    let top = 0;
    try {
      term.output.write(ALT_ON);
      top = await view(term, held, lines);
    } finally {
      // After a loss the host has restored the screen already: write nothing more.
      if (!held.lost.aborted) term.output.write(ALT_OFF);
      term.close();
    }
    if (held.lost.aborted) return "pager: the terminal was taken back";
    await ctx.terminal.release();
    return `pager closed at line ${top + 1} of ${lines.length}`;
  },
);

ext.onTerminalGrantLost(({ reason }) => {
  process.stderr.write(`pager: the host took the terminal back (${reason})\n`);
});

/** The words given, one per line, or a numbered demonstration text. */
function pageLines(args: readonly string[]): string[] {
  if (args.length > 0) return [...args];
  return Array.from({ length: 200 }, (_, i) => `line ${i + 1} of the pager's demonstration text`);
}

/** Shows `lines` until q (or the grant is lost); resolves with the top line's index. */
function view(term: OpenTerminal, held: HeldTerminal, lines: readonly string[]): Promise<number> {
  const height = Math.max(1, (term.output.rows || held.rows) - 1);
  const width = Math.max(10, term.output.columns || held.columns);
  const last = Math.max(0, lines.length - height);
  let top = 0;
  const draw = (): void => {
    const shown = lines.slice(top, top + height).map((l) => l.slice(0, width));
    const status = `PAGER ${top + 1}-${Math.min(lines.length, top + height)}/${lines.length}  j/k scroll  q quits`;
    term.output.write(`\u001b[H\u001b[2J${shown.join("\r\n")}\u001b[${height + 1};1H\u001b[7m${status}\u001b[0m`);
  };
  return new Promise((resolve) => {
    const done = (): void => {
      term.input.off("data", onKey);
      held.lost.removeEventListener("abort", done);
      resolve(top);
    };
    const onKey = (chunk: Buffer): void => {
      const key = chunk.toString("utf8");
      if (key === "q" || key === "\u0003") return done();
      if (key === "j" || key === "\u001b[B") top = Math.min(last, top + 1);
      else if (key === "k" || key === "\u001b[A") top = Math.max(0, top - 1);
      else if (key === " ") top = Math.min(last, top + height);
      else if (key === "b") top = Math.max(0, top - height);
      draw();
    };
    held.lost.addEventListener("abort", done, { once: true });
    term.input.setRawMode(true);
    term.input.on("data", onKey);
    draw();
  });
}
void ext.run();
