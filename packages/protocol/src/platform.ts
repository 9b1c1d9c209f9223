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

/** What the JSONL decoder uses of a platform's native byte handling (Node's Buffer), when there is one. */
export interface NativeBytes {
  /** Whether `bytes` is one of the platform's own byte arrays (a Node Buffer). */
  owns(bytes: Uint8Array): boolean;
  /** A platform byte array over the same memory as `bytes` (no copy): its indexOf is a memchr. */
  view(bytes: Uint8Array): Uint8Array;
  /** `bytes` as text when every byte is ASCII (then it is also their UTF-8 decoding), else null. */
  ascii(bytes: Uint8Array): string | null;
}

interface NodeBufferModule {
  Buffer: {
    isBuffer(v: unknown): boolean;
    from(
      memory: ArrayBufferLike,
      offset: number,
      length: number,
    ): Uint8Array & {
      toString(encoding: "latin1"): string;
    };
  };
  isAscii?: (bytes: Uint8Array) => boolean;
}

/**
 * Node's Buffer and buffer.isAscii, reached through process.getBuiltinModule (Node 20.16+) so the
 * core still imports nothing of Node; null elsewhere (QuickJS, browsers, older Node), where the
 * decoder keeps its portable paths.
 */
export function platformNativeBytes(): NativeBytes | null {
  const proc = (globalThis as Record<string, unknown>)["process"] as
    | { getBuiltinModule?: (id: string) => unknown }
    | undefined;
  const mod = proc?.getBuiltinModule?.("node:buffer") as NodeBufferModule | undefined;
  const isAscii = mod?.isAscii;
  if (!mod || !isAscii) return null;
  const B = mod.Buffer;
  const view = (bytes: Uint8Array): Uint8Array & { toString(encoding: "latin1"): string } =>
    B.isBuffer(bytes)
      ? (bytes as Uint8Array & { toString(encoding: "latin1"): string })
      : B.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return {
    owns: (bytes) => B.isBuffer(bytes),
    view,
    // The latin1 reading of ASCII bytes is their UTF-8 reading, and a plain copy (no decoding).
    ascii: (bytes) => (isAscii(bytes) ? view(bytes).toString("latin1") : null),
  };
}
