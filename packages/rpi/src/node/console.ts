/**
 * The Node runner's stdout is the wire: one frame per line and nothing else, or the host ends the
 * extension for a protocol violation. So everything an extension prints is turned into `log`
 * frames (the extension's diagnostics in the host) before its code runs:
 * - globalThis.console is replaced by a Console whose output is log frames: log, info, debug,
 *   dir, table, ... at "info"; warn at "warning"; error, trace and a failed assert at "error";
 * - process.stdout.write (what a library that prints without console uses) logs at "info".
 * process.stderr is left alone: the host reads it line by line as the extension's stderr.
 * A write straight to file descriptor 1 (fs.writeSync(1, ...)) cannot be caught here and breaks
 * the wire.
 */
import { Console } from "node:console";
import { Writable } from "node:stream";
import type { LogLevel } from "../protocol/frames.js";

/** Characters of one log message; the prelude's own log messages have the same bound. */
export const LOG_MESSAGE_CHARS = 4096;

export type LogSink = (level: LogLevel, message: string) => void;

/** `message` cut to LOG_MESSAGE_CHARS, without the trailing newline console adds. */
export function logText(message: string): string {
  const text = message.endsWith("\n") ? message.slice(0, -1) : message;
  return text.length > LOG_MESSAGE_CHARS ? `${text.slice(0, LOG_MESSAGE_CHARS - 3)}...` : text;
}

function sink(level: LogLevel, log: LogSink): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, done) {
      log(level, logText(typeof chunk === "string" ? chunk : String(chunk)));
      done();
    },
  });
}

/** Replaces globalThis.console and process.stdout.write (see the module contract). */
export function divertOutput(log: LogSink): void {
  const main = new Console({ stdout: sink("info", log), stderr: sink("error", log), colorMode: false });
  const warnings = new Console({ stdout: sink("warning", log), stderr: sink("warning", log), colorMode: false });
  main.warn = warnings.warn.bind(warnings);
  Object.defineProperty(globalThis, "console", { value: main, writable: true, configurable: true });
  const write = (chunk: unknown, encoding?: unknown, done?: unknown): boolean => {
    const text =
      typeof chunk === "string"
        ? chunk
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString()
          : String(chunk);
    if (text !== "") log("info", logText(text));
    const callback = typeof encoding === "function" ? encoding : done;
    if (typeof callback === "function") process.nextTick(callback as () => void);
    return true;
  };
  process.stdout.write = write as typeof process.stdout.write;
}
