/**
 * The shape every built-in tool shares, and the small helpers that build its answers. A tool never
 * throws for what a model sent: every failure is an isError result whose text says what to change,
 * because the model reads that text and is the one that has to act on it.
 */

/** pi-ai's TextContent: what a tool result carries back to the model. */
export interface ToolResultContent {
  type: "text";
  text: string;
}

export interface BuiltinResult {
  content: ToolResultContent[];
  isError: boolean;
  /** For the CLI and the session (never sent to the model): diff, exit code, truncation... */
  details?: Record<string, unknown>;
}

export interface BuiltinContext {
  /** Absolute; every path a tool touches resolves inside it. */
  workspace: string;
  /** Cancellation (Ctrl-C): stop work, kill processes, return. */
  signal: AbortSignal;
  /** Progress (bash: the output so far, at most every 100 ms). */
  onUpdate?: (text: string) => void;
}

export type BuiltinToolName = "read" | "write" | "edit" | "bash";

export interface BuiltinTool {
  name: BuiltinToolName;
  /** What the model reads: says the limits. */
  description: string;
  /** A JSON Schema object (plain JSON; pi-ai takes it as a TSchema). */
  parameters: Record<string, unknown>;
  /** write/edit/bash: true, and such a call must pass the approval gate (ToolApproval). */
  mutates: boolean;
  /** One line for the approval prompt and the CLI; never throws, whatever the arguments. */
  summary(args: Record<string, unknown>): string;
  execute(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult>;
}

/** A successful answer. */
export function okResult(text: string, details?: Record<string, unknown>): BuiltinResult {
  return details === undefined
    ? { content: [{ type: "text", text }], isError: false }
    : { content: [{ type: "text", text }], isError: false, details };
}

/** A failure the model can act on. */
export function errorResult(text: string, details?: Record<string, unknown>): BuiltinResult {
  return details === undefined
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }], isError: true, details };
}

/** The answer of a call cancelled before or while it ran. */
export function cancelledResult(tool: string): BuiltinResult {
  return errorResult(`${tool} was cancelled`, { cancelled: true });
}

/** Why a file-system call failed, in words (the errno code alone means little to a model). */
export function describeFsError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "a parent of it is not a directory";
    case "EEXIST":
      return "a file stands where a folder is needed";
    case "ENOSPC":
      return "no space left on the device";
    case "EROFS":
      return "the file system is read-only";
    case "ELOOP":
      return "too many levels of symbolic links";
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/**
 * `text` made safe for one line of a terminal prompt: control characters (newlines, escape
 * sequences, carriage returns that could hide part of a command from the person approving it) are
 * shown escaped, and the result is cut at `max` characters with a note of how much is left out.
 */
export function displayLine(text: string, max: number): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\t") return "\\t";
    if (c === "\r") return "\\r";
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
  return escaped.length <= max ? escaped : `${escaped.slice(0, max)}... (${escaped.length - max} more characters)`;
}

/** A value from untrusted arguments as a string for a summary ("?" when it is not one). */
export function argText(args: Record<string, unknown> | null | undefined, field: string): string {
  const v = args?.[field];
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "?";
}
