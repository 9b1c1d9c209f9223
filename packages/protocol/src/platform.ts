/**
 * The few host globals the pure core may use when present. Declared here, not taken from lib.dom
 * or @types/node, so the package compiles with "types": [] and runs inside QuickJS, where some of
 * them are missing and the callers fall back to pure code.
 */

interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
interface Utf8DecoderConstructor {
  new (label: string, options: { fatal: boolean; ignoreBOM: boolean }): Utf8Decoder;
}
interface Utf8Encoder {
  encode(input: string): Uint8Array;
}
interface Utf8EncoderConstructor {
  new (): Utf8Encoder;
}

export interface TimerApi {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const g = globalThis as unknown as {
  TextDecoder?: Utf8DecoderConstructor;
  TextEncoder?: Utf8EncoderConstructor;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
};

/** A strict (fatal) UTF-8 decoder if the platform has one, else null. */
export function platformUtf8Decoder(): Utf8Decoder | null {
  return g.TextDecoder ? new g.TextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : null;
}

export function platformUtf8Encoder(): Utf8Encoder | null {
  return g.TextEncoder ? new g.TextEncoder() : null;
}

/** The platform timers, or null where there are none (the caller must then be given timers). */
export function platformTimers(): TimerApi | null {
  const st = g.setTimeout;
  const ct = g.clearTimeout;
  if (!st || !ct) return null;
  return { setTimeout: (fn, ms) => st(fn, ms), clearTimeout: (h) => ct(h) };
}

/**
 * The platform's native UTF-8 length of a string (Node's Buffer.byteLength: a lone surrogate
 * counts 3 bytes, the U+FFFD it is written as), or null where there is none (QuickJS).
 */
export function platformUtf8Length(): ((s: string) => number) | null {
  // Node's Buffer, looked up by name on globalThis: the core imports nothing of Node.
  const buffer = (globalThis as Record<string, unknown>)["Buffer"] as
    | { byteLength(s: string, encoding: "utf8"): number }
    | undefined;
  return buffer ? (s) => buffer.byteLength(s, "utf8") : null;
}
