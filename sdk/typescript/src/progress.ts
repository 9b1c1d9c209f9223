/**
 * $/progress for one request (W 2.6, PROG rows): the four event shapes, the per-request sequence
 * and the rules for when nothing is sent. Progress is ephemeral and optional, so it degrades to a
 * silent no-op where the host cannot take it (request_progress not negotiated, API 0.1, the
 * request already answered, decoration without progress_decoration); a call that could never be
 * right (a partial result outside an API 0.4 tool/call, arguments of the wrong type) throws.
 *
 * The host owns the bounds of the text fields and the 8 KiB output chunking (PROG-07, PROG-10);
 * the SDK checks types only, and the frame bound on send.
 */
import { toToolResult } from "./results.js";
import type { Link, ProgressScope } from "./link.js";
import type { Progress, ProgressOutputOptions, ProgressStatusOptions, ToolReturn } from "./types.js";

export class RequestProgress implements Progress {
  readonly #scope: ProgressScope;
  readonly #link: Link;

  constructor(scope: ProgressScope, link: Link) {
    this.#scope = scope;
    this.#link = link;
  }

  get enabled(): boolean {
    return this.#link.features.has("request_progress");
  }

  get decorationEnabled(): boolean {
    return this.enabled && this.#link.features.has("progress_decoration");
  }

  status(message: string, options: ProgressStatusOptions = {}): void {
    text("progress.status() message", message);
    const event: Record<string, unknown> = { type: "status", message };
    for (const key of ["current", "total"] as const) {
      const n = options[key];
      if (n === undefined) continue;
      if (typeof n !== "number" || !Number.isFinite(n) || n < 0)
        throw new TypeError(`progress.status() ${key} must be a finite number >= 0, got ${String(n)}`);
      event[key] = n;
    }
    if (options.unit !== undefined) event["unit"] = text("progress.status() unit", options.unit);
    this.#send(event);
  }

  output(data: string, options: ProgressOutputOptions = {}): void {
    if (typeof data !== "string") throw new TypeError(`progress.output() data must be a string, got ${typeof data}`);
    const stream = options.stream ?? "stdout";
    const encoding = options.encoding ?? "utf8";
    if (stream !== "stdout" && stream !== "stderr")
      throw new TypeError(`progress.output() stream must be "stdout" or "stderr", got ${JSON.stringify(stream)}`);
    if (encoding !== "utf8" && encoding !== "base64")
      throw new TypeError(`progress.output() encoding must be "utf8" or "base64", got ${JSON.stringify(encoding)}`);
    this.#send({ type: "output", stream, encoding, data });
  }

  decoration(label: string, detail?: string): void {
    const event: Record<string, unknown> = { type: "decoration", label: text("progress.decoration() label", label) };
    if (detail !== undefined) event["detail"] = text("progress.decoration() detail", detail, true);
    if (this.decorationEnabled) this.#send(event);
  }

  partialResult(result: ToolReturn): void {
    if (this.#link.api !== "0.4" || this.#scope.method !== "tool/call") {
      throw new Error(
        `progress.partialResult() needs API 0.4 and a tool/call handler (this is API ${this.#link.api}, ` +
          `${this.#scope.method})`,
      );
    }
    this.#send({ type: "partial_result", result: toToolResult(result, "0.4") });
  }

  #send(event: Record<string, unknown>): void {
    const scope = this.#scope;
    if (!this.enabled || !scope.active) return;
    this.#link.peer.notify("$/progress", { request_id: scope.id, sequence: scope.nextSequence(), event });
  }
}

/**
 * ext.progress: the progress of the request whose handler is running. Outside any request there
 * is no request to report on, which is a mistake worth hearing about: it throws.
 */
export class AmbientProgress implements Progress {
  readonly #current: () => Progress | undefined;
  readonly #features: () => ReadonlySet<string>;

  constructor(current: () => Progress | undefined, features: () => ReadonlySet<string>) {
    this.#current = current;
    this.#features = features;
  }

  get enabled(): boolean {
    return this.#features().has("request_progress");
  }

  get decorationEnabled(): boolean {
    return this.enabled && this.#features().has("progress_decoration");
  }

  status(message: string, options?: ProgressStatusOptions): void {
    this.#request("status").status(message, options);
  }

  output(data: string, options?: ProgressOutputOptions): void {
    this.#request("output").output(data, options);
  }

  decoration(label: string, detail?: string): void {
    this.#request("decoration").decoration(label, detail);
  }

  partialResult(result: ToolReturn): void {
    this.#request("partialResult").partialResult(result);
  }

  #request(what: string): Progress {
    const progress = this.#current();
    if (!progress)
      throw new Error(
        `ext.progress.${what}() was called outside a request handler; progress belongs to a host request`,
      );
    return progress;
  }
}

function text(what: string, value: unknown, allowEmpty = false): string {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${typeof value}`);
  if (!allowEmpty && value.trim() === "") throw new TypeError(`${what} must not be empty`);
  return value;
}
