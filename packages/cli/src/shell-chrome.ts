/**
 * What extensions draw around the shell's prompt (issue 17, item 7): the text an extension puts
 * on the "header" and "footer" status surfaces (status/contribution; a pi extension's
 * ctx.ui.setHeader/setFooter arrive so, rpi octet/ui-mapping.ts) and the custom messages an
 * extension appends with display:true (pi.sendMessage, recorded by the host: WAVE1-39).
 *
 * How it is drawn, on readline (shell-frontend.ts says why readline):
 * - The header is printed once as a block above the prompt each time it changes (as pi shows
 *   its header once at the top, not before every prompt); the typed line is redrawn after it. A
 *   header that changes while a command runs is printed before the next prompt, not into the
 *   command's output.
 * - The footer is part of the prompt: its lines stand right above "octet> ", so readline redraws
 *   them with the line it edits (its row count includes the prompt's newlines) and a change
 *   while the prompt is shown is redrawn in place, the typed text and cursor kept.
 * - Every line is made terminal-safe (no escape sequence of the extension reaches the terminal)
 *   and cut to the terminal's width at each drawing: a wrapped line would break the redraw.
 * - A surface's text is the latest of each extension; it goes when the extension's generation
 *   stops or crashes (as the host's contribution store drops it), or when it sends an empty text.
 * - A displayed message is transcript, not chrome: printed when it arrives, over a pipe too.
 * Over a pipe nothing is drawn around the prompt: the header and footer are terminal chrome.
 */
import { clearScreenDown, cursorTo, moveCursor, type Interface } from "node:readline";
import type { HostEvent } from "@octet/host";
import { terminalSafe } from "./output.js";

const PROMPT = "octet> ";

/** readline's internals the redraw uses: public at run time, typed read-only. */
interface RedrawableLine {
  prevRows?: number;
  _refreshLine(): void;
}

export interface ChromeOptions {
  out: NodeJS.WriteStream;
  /** Whether the prompt is shown (no command running): the prompt is redrawn only then. */
  idle: () => boolean;
}

export class ShellChrome {
  readonly #o: ChromeOptions;
  #rl: (Interface & RedrawableLine) | null = null;
  /** "header"/"footer" -> extension -> {generation, lines}. */
  readonly #surfaces = new Map<string, Map<string, { generation: number; lines: string[] }>>();
  /** A header that changed while a command ran (or before the prompt existed): drawn before the next prompt. */
  #pendingHeader: string[] | null = null;

  constructor(o: ChromeOptions) {
    this.#o = o;
  }

  /** The prompt line editor (a terminal readline); over a pipe nothing is drawn around the prompt. */
  attach(rl: Interface): void {
    if (!rl.terminal) return;
    this.#rl = rl as Interface & RedrawableLine;
    rl.once("close", () => (this.#rl = null));
    this.#o.out.on("resize", this.#onResize);
    rl.once("close", () => this.#o.out.off("resize", this.#onResize));
    // Each prompt is drawn with the current footer, after a header that changed meanwhile: a header
    // written while a command streams its output would land in the middle of it.
    const draw = rl.prompt.bind(rl);
    rl.prompt = (preserveCursor?: boolean): void => {
      this.#setPrompt();
      const header = this.#pendingHeader;
      this.#pendingHeader = null;
      if (header !== null && header.length > 0) this.#o.out.write(this.#fitted(header));
      draw(preserveCursor);
    };
  }

  observe(event: HostEvent): void {
    if (event.type === "status") {
      const { surface, text } = event.contribution;
      if (surface !== "header" && surface !== "footer") return;
      const bySurface = this.#surfaces.get(surface) ?? new Map();
      this.#surfaces.set(surface, bySurface);
      const lines = text === "" ? [] : text.split("\n").map((l) => terminalSafe(l));
      const before = bySurface.get(event.extension);
      if (before !== undefined && sameLines(before.lines, lines)) return;
      if (lines.length === 0) bySurface.delete(event.extension);
      else bySurface.set(event.extension, { generation: event.generation, lines });
      if (surface !== "header") this.#redrawPrompt();
      else if (this.#rl !== null && this.#o.idle()) {
        this.#pendingHeader = null;
        this.#printAbove(lines);
      } else this.#pendingHeader = lines;
    } else if (event.type === "state" && (event.state === "stopped" || event.state === "crashed")) {
      const footer = this.#surfaces.get("footer");
      const hadFooter = footer?.get(event.extension)?.generation === event.generation;
      for (const bySurface of this.#surfaces.values())
        if (bySurface.get(event.extension)?.generation === event.generation) bySurface.delete(event.extension);
      if (hadFooter) this.#redrawPrompt();
    }
  }

  /**
   * A custom message an extension appended with display:true: its renderer's text when the
   * extension rendered it (`rendered`, see rpi octet/session-actions.ts), else its content.
   */
  showMessage(extension: string, entryType: string, data: unknown): void {
    const d = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
    if (d["display"] !== true) return;
    const text = typeof d["rendered"] === "string" ? d["rendered"] : contentText(d["content"]);
    const label = `[${terminalSafe(extension)}] ${terminalSafe(entryType)}`;
    const lines = text.split("\n").map((l) => terminalSafe(l).trimEnd());
    // A renderer's padding (pi's Box) is blank rows in a text frontend: the ones around the text go.
    while (lines.length > 1 && lines[0] === "") lines.shift();
    while (lines.length > 1 && lines.at(-1) === "") lines.pop();
    this.#printAbove([`${label}:`, ...lines], false);
  }

  /** The current prompt: the footer lines, then "octet> ". */
  prompt(): string {
    const width = this.#width();
    const footer = [...(this.#surfaces.get("footer")?.values() ?? [])].flatMap((s) => s.lines);
    return footer.map((l) => `${fitCells(l, width)}\n`).join("") + PROMPT;
  }

  #fitted(lines: readonly string[]): string {
    const width = this.#width();
    return lines.map((l) => `${fitCells(l, width)}\n`).join("");
  }

  #width(): number {
    return Math.max(10, (this.#o.out.columns ?? 80) - 1);
  }

  #setPrompt(): void {
    this.#rl?.setPrompt(this.prompt());
  }

  readonly #onResize = (): void => this.#redrawPrompt();

  #redrawPrompt(): void {
    const rl = this.#rl;
    const before = rl?.getPrompt();
    this.#setPrompt();
    if (rl !== null && this.#o.idle() && rl.getPrompt() !== before) rl._refreshLine();
  }

  /**
   * Lines printed above the prompt: while the prompt is shown it is cleared first (from its
   * first row, footer included), the lines written, and the prompt with the typed text redrawn.
   */
  #printAbove(lines: readonly string[], fit = true): void {
    const rl = this.#rl;
    const text = fit ? this.#fitted(lines) : lines.map((l) => `${l}\n`).join("");
    if (rl === null || !this.#o.idle()) {
      this.#o.out.write(text);
      return;
    }
    const out = this.#o.out;
    const rows = rl.prevRows ?? 0;
    if (rows > 0) moveCursor(out, 0, -rows);
    cursorTo(out, 0);
    clearScreenDown(out);
    out.write(text);
    rl.prevRows = 0;
    rl._refreshLine();
  }
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((l, i) => l === b[i]);
}

/** The text of pi message content: a string, or the text parts of a content list. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: "text"; text: string } => p?.type === "text" && typeof p?.text === "string")
    .map((p) => p.text)
    .join("\n");
}

// East Asian wide ranges and pictographs: two cells each.
const WIDE = new RegExp(
  "[\\u1100-\\u115f\\u2e80-\\u303e\\u3041-\\u33ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\ua000-\\ua4cf\\uac00-\\ud7a3" +
    "\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uff60\\uffe0-\\uffe6]|\\p{Extended_Pictographic}",
  "u",
);
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Cut to `width` terminal cells (wide characters take two), with "…" where it was cut. */
export function fitCells(text: string, width: number): string {
  const out: string[] = [];
  let used = 0;
  const graphemes = [...segmenter.segment(text)].map((s) => s.segment);
  const total = graphemes.reduce((n, g) => n + (WIDE.test(g) ? 2 : 1), 0);
  if (total <= width) return text;
  for (const g of graphemes) {
    const w = WIDE.test(g) ? 2 : 1;
    if (used + w > width - 1) break;
    out.push(g);
    used += w;
  }
  return `${out.join("")}…`;
}
