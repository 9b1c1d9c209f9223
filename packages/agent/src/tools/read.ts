/**
 * The read tool: a text file with line numbers, a window of it at a time. The file is streamed and
 * reading stops at the window's end, so a large log costs what is shown, not its size. Limits (in
 * the description the model reads): 2000 lines per call by default, each line cut at 2000
 * characters, the whole answer capped at 50 KiB with a note saying which offset continues.
 */
import { open, stat } from "node:fs/promises";
import { checkArgs } from "./args.js";
import { resolveInWorkspace } from "./paths.js";
import {
  argText,
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  cancelledResult,
  describeFsError,
  displayLine,
  errorResult,
  okResult,
} from "./types.js";

export const READ_DEFAULT_LINES = 2000;
export const READ_MAX_LINE_CHARS = 2000;
export const READ_MAX_OUTPUT_BYTES = 50 * 1024;
const CHUNK_BYTES = 64 * 1024;

const SPEC = {
  path: { type: "string", required: true, nonEmpty: true },
  offset: { type: "integer", min: 1 },
  limit: { type: "integer", min: 1 },
} as const;

export const readTool: BuiltinTool = {
  name: "read",
  description:
    "Read a UTF-8 text file of the workspace. The answer shows each line as its number, a tab and the line. " +
    `At most ${READ_DEFAULT_LINES} lines per call (limit), each line cut at ${READ_MAX_LINE_CHARS} characters, ` +
    `and at most ${READ_MAX_OUTPUT_BYTES / 1024} KiB in all; when more follows, a note says which offset reads on. ` +
    "Binary files are refused. Paths are relative to the workspace.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "The file, relative to the workspace" },
      offset: { type: "integer", minimum: 1, description: "The first line to show (1-based; default 1)" },
      limit: { type: "integer", minimum: 1, description: `How many lines to show (default ${READ_DEFAULT_LINES})` },
    },
    required: ["path"],
  },
  mutates: false,
  summary(args) {
    const offset = args?.["offset"];
    const limit = args?.["limit"];
    const from = typeof offset === "number" ? offset : 1;
    const window =
      offset === undefined && limit === undefined
        ? ""
        : typeof limit === "number"
          ? ` (lines ${from}-${from + limit - 1})`
          : ` (from line ${from})`;
    return `read ${displayLine(argText(args, "path"), 200)}${window}`;
  },
  execute: (args, ctx) => readFile(args, ctx),
};

async function readFile(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const checked = checkArgs("read", args, SPEC);
  if (!checked.ok) return errorResult(checked.error);
  if (ctx.signal.aborted) return cancelledResult("read");
  const input = checked.values["path"] as string;
  const offset = (checked.values["offset"] as number | undefined) ?? 1;
  const limit = (checked.values["limit"] as number | undefined) ?? READ_DEFAULT_LINES;
  const resolved = await resolveInWorkspace(ctx.workspace, input);
  if (!resolved.ok) return errorResult(resolved.error);
  const { real, relative } = resolved.path;
  try {
    const info = await stat(real);
    if (info.isDirectory()) return errorResult(`${relative} is a directory, not a file; list it with bash (ls)`);
    if (!info.isFile()) return errorResult(`${relative} is not a regular file`);
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") return errorResult(`file not found: ${relative}`);
    return errorResult(`cannot read ${relative}: ${describeFsError(err)}`);
  }
  const window = new LineWindow(offset, limit);
  try {
    const handle = await open(real, "r");
    try {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      const decoder = new TextDecoder("utf-8", { fatal: true });
      while (!window.stopped) {
        if (ctx.signal.aborted) return cancelledResult("read");
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) {
          window.push(decoder.decode());
          window.end();
          break;
        }
        const bytes = buffer.subarray(0, bytesRead);
        if (bytes.includes(0)) {
          return errorResult(`${relative} is a binary file (it contains NUL bytes); read shows text files only`);
        }
        window.push(decoder.decode(bytes, { stream: true }));
      }
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (err instanceof TypeError) {
      // The decoder only says the bytes are invalid, not where: no line number rather than a wrong one.
      return errorResult(`${relative} is not UTF-8 text (it has an invalid byte sequence); read shows UTF-8 text only`);
    }
    return errorResult(`cannot read ${relative}: ${describeFsError(err)}`);
  }
  return window.result(relative, offset);
}

/** Collects the lines from `offset` on, up to `limit` lines and the output cap. */
class LineWindow {
  /** Lines completed so far. */
  private lineNumber = 0;
  stopped: "limit" | "bytes" | null = null;
  private readonly out: string[] = [];
  private outBytes = 0;
  private current = "";
  private currentCut = false;
  /** Whether the current line has any character (counted even when its text is not kept). */
  private currentStarted = false;
  private cutLines = 0;
  private atEnd = false;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
  ) {}

  push(text: string): void {
    const parts = text.split("\n");
    for (let i = 0; i < parts.length && this.stopped === null; i++) {
      this.append(parts[i]!);
      if (i < parts.length - 1) this.finishLine();
    }
  }

  end(): void {
    // Text after the last newline is a last line; a file ending in a newline has no empty line after it.
    if (this.currentStarted && this.stopped === null) this.finishLine();
    this.atEnd = this.stopped === null;
  }

  result(relative: string, offset: number): BuiltinResult {
    const shown = this.out.length;
    const first = offset;
    const last = offset + shown - 1;
    const details: Record<string, unknown> = { path: relative, firstLine: first, lastLine: last };
    if (this.atEnd) details["totalLines"] = this.lineNumber;
    if (this.atEnd && this.lineNumber === 0) return okResult(`(${relative} is empty)`, details);
    if (this.atEnd && this.lineNumber < offset) {
      return errorResult(
        `offset ${offset} is past the end of ${relative}, which has ${this.lineNumber} lines`,
        details,
      );
    }
    const notes: string[] = [];
    if (this.cutLines > 0) {
      notes.push(
        `${this.cutLines} line(s) were cut at ${READ_MAX_LINE_CHARS} characters; ` +
          `see the rest with bash, e.g. cut -c${READ_MAX_LINE_CHARS + 1}- on that line`,
      );
    }
    if (this.stopped === "limit")
      notes.push(`lines ${first}-${last} shown, more follow; use offset=${last + 1} to read on`);
    if (this.stopped === "bytes") {
      notes.push(
        `lines ${first}-${last} shown, the answer reached its ${READ_MAX_OUTPUT_BYTES / 1024} KiB cap; ` +
          `use offset=${last + 1} to read on`,
      );
    }
    details["truncated"] = this.stopped !== null;
    const body = this.out.join("\n");
    return okResult(notes.length === 0 ? body : `${body}\n\n[${notes.join("; ")}]`, details);
  }

  private append(part: string): void {
    if (part !== "") {
      this.currentStarted = true;
      // The window is full and another line has begun: there is more, and no need to scan that line.
      if (this.out.length >= this.limit) {
        this.stopped = "limit";
        return;
      }
    }
    // Lines before the window are only counted, and a line past the cut keeps no more.
    if (this.lineNumber + 1 < this.offset || this.currentCut) return;
    this.current += part;
    if (this.current.length > READ_MAX_LINE_CHARS) {
      this.current = this.current.slice(0, READ_MAX_LINE_CHARS);
      this.currentCut = true;
    }
  }

  private finishLine(): void {
    const n = this.lineNumber + 1;
    let line = this.current;
    const cut = this.currentCut;
    this.current = "";
    this.currentCut = false;
    this.currentStarted = false;
    if (n < this.offset) {
      this.lineNumber = n;
      return;
    }
    if (this.out.length >= this.limit) {
      this.stopped = "limit";
      return;
    }
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const text = `${String(n).padStart(5)}\t${line}${cut ? ` [line cut at ${READ_MAX_LINE_CHARS} characters]` : ""}`;
    const bytes = Buffer.byteLength(text) + 1;
    if (this.outBytes + bytes > READ_MAX_OUTPUT_BYTES) {
      this.stopped = "bytes";
      return;
    }
    this.out.push(text);
    this.outBytes += bytes;
    if (cut) this.cutLines++;
    this.lineNumber = n;
  }
}
