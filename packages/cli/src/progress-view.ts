/**
 * Live progress of a running call on stderr ($/progress, PROG-05, PROG-06, PROG-09). On a
 * terminal, `status` events draw one line redrawn in place (a bar with percentage, current/total
 * and unit when there is a total, a spinner when there is none), at most 20 times a second and
 * cleared when the call ends; `decoration` events print a dim line; `output` events print their
 * text line by line, prefixed with the tool and stream. Without a terminal only `output` events
 * are printed: they are the program's own output, while bars and spinners are only noise in a
 * log. `partial_result` is not shown (the final result follows). Nothing here writes to stdout.
 *
 * LiveLine owns the one redrawable line: every other stderr message goes through print(), which
 * clears the line, writes, and redraws it; a prompt holds the line while it asks.
 */
import { StringDecoder } from "node:string_decoder";
import type { ProgressEvent, ProgressStream, StatusProgressEvent } from "@octet/protocol";
import { terminalSafe } from "./output.js";

/** At most 20 redraws per second. */
export const MIN_REDRAW_MS = 50;
const SPINNER_MS = 100;
const SPINNER = ["|", "/", "-", "\\"];
const BAR_WIDTH = 20;
/** A line of output longer than this is printed without waiting for its end. */
const MAX_PARTIAL_LINE = 8192;
/** Messages queued while a prompt holds the line; the rest are counted. */
const MAX_HELD_MESSAGES = 1000;
const CLEAR = "\r\u001b[2K";

export interface Terminal {
  write(text: string): void;
  /** Whether stderr is a terminal: the live line is drawn only then. */
  readonly tty: boolean;
  /** Whether colour may be used. */
  readonly color: boolean;
  columns(): number;
}

export function stderrTerminal(): Terminal {
  const err = process.stderr;
  return {
    write: (text) => void err.write(text),
    tty: err.isTTY === true,
    color: err.isTTY === true && process.env["NO_COLOR"] === undefined,
    columns: () => err.columns ?? 80,
  };
}

export class LiveLine {
  readonly term: Terminal;
  #live: string | null = null;
  #drawn = false;
  #held = 0;
  readonly #queue: string[] = [];
  #dropped = 0;

  constructor(term: Terminal = stderrTerminal()) {
    this.term = term;
  }

  get held(): boolean {
    return this.#held > 0;
  }

  /** Writes a message (ending with LF) above the live line, or queues it while a prompt asks. */
  print(text: string): void {
    if (this.#held > 0) {
      if (this.#queue.length < MAX_HELD_MESSAGES) this.#queue.push(text);
      else this.#dropped++;
      return;
    }
    this.#clear();
    this.term.write(text);
    this.#draw();
  }

  /** Sets (or, with null, removes) the live line's text and draws it now. */
  show(text: string | null): void {
    this.#live = text;
    if (text === null) this.#clear();
    else this.#draw();
  }

  /** Clears the live line for a prompt; messages wait until the returned release is called. */
  hold(): () => void {
    this.#clear();
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      if (this.#held > 0) return;
      const queued = this.#queue.splice(0);
      if (this.#dropped > 0) queued.push(`(${this.#dropped} messages dropped while asking)\n`);
      this.#dropped = 0;
      if (queued.length > 0) this.term.write(queued.join(""));
      this.#draw();
    };
  }

  #draw(): void {
    if (!this.term.tty || this.#live === null || this.#held > 0) return;
    this.term.write(CLEAR + fit(this.#live, this.term.columns() - 1));
    this.#drawn = true;
  }

  #clear(): void {
    if (!this.#drawn) return;
    this.term.write(CLEAR);
    this.#drawn = false;
  }
}

/** One call's progress; call finish() when the call settles, whatever its outcome. */
export class ProgressView {
  readonly #line: LiveLine;
  readonly #label: string;
  readonly #now: () => number;
  #status: StatusProgressEvent | null = null;
  #lastDraw = -Infinity;
  #frame = 0;
  #timer: NodeJS.Timeout | null = null;
  #ticker: NodeJS.Timeout | null = null;
  #finished = false;
  readonly #streams = new Map<ProgressStream, { decoder: StringDecoder; partial: string }>();

  constructor(line: LiveLine, label: string, now: () => number = () => performance.now()) {
    this.#line = line;
    this.#label = label;
    this.#now = now;
  }

  readonly handle = (event: ProgressEvent): void => {
    if (this.#finished) return;
    const term = this.#line.term;
    switch (event.type) {
      case "status":
        if (!term.tty) return;
        this.#status = event;
        this.#schedule();
        return;
      case "output":
        return this.#output(event.stream, event.encoding === "base64" ? Buffer.from(event.data, "base64") : event.data);
      case "decoration": {
        if (!term.tty) return;
        const text = `· ${oneLine(event.label)}${event.detail !== undefined ? `: ${oneLine(event.detail)}` : ""}`;
        this.#line.print(`${term.color ? `\u001b[2m${text}\u001b[0m` : text}\n`);
        return;
      }
      default:
        return;
    }
  };

  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#ticker) clearInterval(this.#ticker);
    if (this.#status !== null) this.#line.show(null);
    for (const [stream, s] of this.#streams) {
      const rest = s.partial + s.decoder.end();
      s.partial = "";
      if (rest !== "") this.#printLines(stream, [rest]);
    }
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    const wait = this.#lastDraw + MIN_REDRAW_MS - this.#now();
    if (wait <= 0) return this.#draw();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#draw();
    }, wait);
    this.#timer.unref();
  }

  #draw(): void {
    const s = this.#status;
    if (this.#finished || s === null) return;
    this.#lastDraw = this.#now();
    this.#frame++;
    this.#line.show(formatStatus(s, this.#frame));
    const spinning = !hasTotal(s);
    if (spinning && this.#ticker === null) {
      this.#ticker = setInterval(() => this.#schedule(), SPINNER_MS);
      this.#ticker.unref();
    } else if (!spinning && this.#ticker !== null) {
      clearInterval(this.#ticker);
      this.#ticker = null;
    }
  }

  #output(stream: ProgressStream, data: string | Buffer): void {
    let s = this.#streams.get(stream);
    if (!s) this.#streams.set(stream, (s = { decoder: new StringDecoder("utf8"), partial: "" }));
    // Base64 chunks may split a character; utf8 chunks are whole strings.
    s.partial += typeof data === "string" ? s.decoder.end() + data : s.decoder.write(data);
    const lines = s.partial.split("\n");
    s.partial = lines.pop() ?? "";
    if (s.partial.length > MAX_PARTIAL_LINE) {
      lines.push(s.partial);
      s.partial = "";
    }
    if (lines.length > 0) this.#printLines(stream, lines);
  }

  #printLines(stream: ProgressStream, lines: string[]): void {
    const term = this.#line.term;
    const prefix = `[${this.#label} ${stream}]`;
    const shownPrefix = term.color ? `\u001b[${stream === "stderr" ? 33 : 2}m${prefix}\u001b[0m` : prefix;
    // A carriage return inside a line (a tool's own progress counter) keeps only its last state.
    const text = lines
      .map(
        (l) =>
          `${shownPrefix} ` +
          `${terminalSafe(l.slice(l.lastIndexOf("\r", l.length - 2) + 1).replace(/\r$/, ""), term.color)}\n`,
      )
      .join("");
    this.#line.print(text);
  }
}

function hasTotal(s: StatusProgressEvent): s is StatusProgressEvent & { total: number } {
  return s.total !== undefined && s.total > 0;
}

/** The live line for a status event: a bar when there is a total, otherwise a spinner frame. */
export function formatStatus(s: StatusProgressEvent, frame: number): string {
  const unit = s.unit !== undefined && s.unit !== "" ? ` ${oneLine(s.unit)}` : "";
  const message = oneLine(s.message);
  if (hasTotal(s)) {
    const current = s.current ?? 0;
    const ratio = Math.min(1, Math.max(0, current / s.total));
    const filled = Math.round(ratio * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
    const percent = `${String(Math.floor(ratio * 100)).padStart(3)}%`;
    return `${bar} ${percent} ${num(current)}/${num(s.total)}${unit}${message !== "" ? `  ${message}` : ""}`;
  }
  const count = s.current !== undefined ? ` (${num(s.current)}${unit})` : "";
  return `${SPINNER[frame % SPINNER.length]} ${message}${count}`;
}

function num(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** Progress text on one line: no control characters, LF and TAB become spaces. */
function oneLine(text: string): string {
  return terminalSafe(text.replace(/[\n\t]/g, " "));
}

/** Cut to `width` characters so the line never wraps (a wrapped line cannot be redrawn with CR). */
function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}
