/**
 * The lines of a child's stderr tail that say why it failed. A crashed Node or Python process
 * ends its stderr with the bottom of a stack trace ("}", "Node.js v20", frames): the cause is the
 * first line of the uncaught error or traceback ("Error: Cannot find module ...") and the last
 * such line (Python's "ModuleNotFoundError: ..." under "Traceback ..."). Pure text work over
 * StderrSink.tail(); used for start-failure and crash messages (issue 13.4).
 */
import { truncateBytes } from "./stderr-sink.js";

/** Lines of the tail looked at: enough for a full Node stack trace with its source excerpt. */
export const STDERR_EXCERPT_LINES = 40;
/** Bytes of each picked line, so one minified-source line cannot flood a message. */
const LINE_BYTES = 300;

/**
 * "Error: x", "TypeError [ERR_X]: x", "Uncaught Error: x", "ModuleNotFoundError: x",
 * "java.lang.IllegalStateException: x", "Traceback (most recent call last):", "error: x",
 * "fatal: x", "panic: x", "thread 'main' panicked at ...".
 */
const ERROR_LINE = new RegExp(
  [
    String.raw`^(?:Uncaught\s+)?(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$]*(?:Error|Exception)(?:\s*\[[^\]]*\])?(?::|$)`,
    String.raw`^Traceback \(most recent call last\):`,
    String.raw`^(?:error|fatal|panic|FATAL ERROR)(?:\[[^\]]*\])?:`,
    String.raw`^thread '.*' panicked`,
  ].join("|"),
  "i",
);

/** Lines that never carry the cause: stack frames, the Node banner, a lone brace or caret. */
const NOISE = /^(?:\s+at\s|\s+File\s"|Node\.js v\d|[\s{}()[\]^~|]*$)/;

/**
 * The lines that carry the error: the first error or traceback line and the last one (one line
 * when they are the same). Without any, the last meaningful lines (at most `fallback`). Each line
 * is trimmed and bounded; the result is empty for an empty tail.
 */
export function errorLines(tail: string, fallback = 3): string[] {
  const lines = tail
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l !== "")
    .slice(-STDERR_EXCERPT_LINES);
  const errors = lines.filter((l) => ERROR_LINE.test(l.trimStart()) && !/^\s+at\s/.test(l));
  const meaningful = lines.filter((l) => !NOISE.test(l));
  const picked =
    errors.length > 0
      ? [...new Set([errors[0]!, errors[errors.length - 1]!])]
      : fallback > 0
        ? meaningful.slice(-fallback)
        : [];
  return picked.map((l) => truncateBytes(l.trim(), LINE_BYTES));
}

/** The picked lines as one message fragment: "Error: x … ModuleNotFoundError: y", or "". */
export function errorExcerpt(tail: string): string {
  return errorLines(tail).join(" … ");
}

/** Bytes of the tail searched for the cause: a Node stack trace with its source line fits. */
export const STDERR_CAUSE_BYTES = 8192;
