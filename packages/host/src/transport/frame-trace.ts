/**
 * The frame trace (`--trace FILE`, OCTET_TRACE): every frame between the host and each extension,
 * both directions, one JSON line per frame with its time, extension, generation and direction.
 * The connection (generation/connection.ts) is the one point every frame passes, foreign
 * runtimes' stand-in children included; with no trace it pays one branch per frame.
 *
 * Writes are synchronous: a trace is read after something went wrong, often a crash or a signal,
 * and a buffered stream would lose exactly the frames that explain it.
 *
 * Redaction, before anything reaches the file:
 * - the result of the host's answer to secret/get and provider/credentials (the broker's values),
 *   and every later occurrence of such a value anywhere in a frame (an extension that echoes it);
 * - the string value of any member whose name looks like a credential (SECRET_NAME below).
 */
import { closeSync, openSync, writeSync } from "node:fs";

/** Members whose string values are never written: tokens, passwords, API keys, cookies. */
const SECRET_WORDS = [
  "token",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "api[_-]?key",
  "authorization",
  "cookie",
  "credentials?",
  "private[_-]?key",
  "access[_-]?key",
];
/** A whole name, or its last _ or - separated part: "api_key", "auth_token", but not "keyboard". */
const SECRET_NAME = new RegExp(`^(?:.*[_-])?(?:${SECRET_WORDS.join("|")})$`, "i");
/** The methods whose answer carries a broker's value (modules/secrets). */
const SECRET_METHODS = new Set(["secret/get", "provider/credentials"]);
export const REDACTED = "[redacted]";

export type TraceDirection = "in" | "out";

/** One line of the trace file. */
export interface TraceRecord {
  /** ISO 8601 time the host read or queued the frame. */
  ts: string;
  extension: string;
  generation: number;
  /** "in": extension to host; "out": host to extension. */
  dir: TraceDirection;
  /** The frame (redacted), or for a line that was not a frame, what was wrong with it. */
  frame?: unknown;
  error?: string;
}

export class FrameTrace {
  readonly path: string;
  #fd: number | null;
  /** Per extension#generation: ids of the extension's requests for a secret, until answered. */
  readonly #secretAsks = new Map<string, Set<unknown>>();
  /** Values a broker handed out, redacted wherever they appear later. */
  readonly #secretValues = new Set<string>();

  constructor(path: string) {
    this.path = path;
    // Frames carry tool arguments and results: the file is the user's alone, like a session file.
    this.#fd = openSync(path, "a", 0o600);
  }

  /** A frame as read (a parsed envelope) or as written (its text, LF included). */
  frame(extension: string, generation: number, dir: TraceDirection, frame: unknown): void {
    if (this.#fd === null) return;
    let value = frame;
    if (typeof frame === "string") {
      try {
        value = JSON.parse(frame);
      } catch {
        value = frame.trimEnd();
      }
    }
    const key = `${extension}#${generation}`;
    if (dir === "in") this.#noteSecretAsk(key, value);
    else value = this.#redactSecretAnswer(key, value);
    this.#write({ ts: new Date().toISOString(), extension, generation, dir, frame: this.#redact(value) });
  }

  /** A line from the extension that was refused before it became a frame. */
  refused(extension: string, generation: number, error: string): void {
    this.#write({ ts: new Date().toISOString(), extension, generation, dir: "in", error: this.#scrub(error) });
  }

  close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }

  #write(record: TraceRecord): void {
    if (this.#fd === null) return;
    try {
      writeSync(this.#fd, JSON.stringify(record) + "\n");
    } catch {
      // A full disk or a closed file must not take the extension down with it: the trace stops.
      this.close();
    }
  }

  #noteSecretAsk(key: string, value: unknown): void {
    const f = value as { method?: unknown; id?: unknown } | null;
    if (typeof f !== "object" || f === null || typeof f.method !== "string" || !SECRET_METHODS.has(f.method)) return;
    let asks = this.#secretAsks.get(key);
    if (!asks) this.#secretAsks.set(key, (asks = new Set()));
    asks.add(f.id);
  }

  #redactSecretAnswer(key: string, value: unknown): unknown {
    const f = value as { id?: unknown; result?: unknown; method?: unknown } | null;
    if (typeof f !== "object" || f === null || "method" in f || !("result" in f)) return value;
    const asks = this.#secretAsks.get(key);
    if (!asks?.delete(f.id)) return value;
    collectStrings(f.result, this.#secretValues);
    return { ...f, result: REDACTED };
  }

  #redact(value: unknown, name?: string): unknown {
    if (typeof value === "string") return name !== undefined && SECRET_NAME.test(name) ? REDACTED : this.#scrub(value);
    if (Array.isArray(value)) return value.map((v) => this.#redact(v));
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.#redact(v, k);
    return out;
  }

  /** A string with every value a broker handed out replaced. */
  #scrub(text: string): string {
    let out = text;
    for (const secret of this.#secretValues) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }
}

function collectStrings(value: unknown, into: Set<string>): void {
  // Very short values would redact ordinary text everywhere; a real secret is longer than this.
  if (typeof value === "string") {
    if (value.length >= 4) into.add(value);
  } else if (Array.isArray(value)) for (const v of value) collectStrings(v, into);
  else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) collectStrings(v, into);
}
