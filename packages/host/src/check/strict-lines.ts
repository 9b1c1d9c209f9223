/**
 * An extension's stdout read the way a strict host reads it (FRAME-02, FRAME-03, FRAME-09): split
 * on LF only, and every line one UTF-8 JSON object of at most 1 MiB, without CR; no blank line,
 * no bytes after the last LF at the end. Anything else is reported, never skipped. Shared by
 * `octet check` (wire-probe.ts) and the conformance runner (tests/conformance/extension-process.ts),
 * which add their own envelope rules on the objects it hands over.
 */
import { MAX_FRAME_BYTES } from "@octet/protocol";

export class StrictLines {
  readonly #onObject: (value: Record<string, unknown>) => void;
  readonly #onViolation: (text: string) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(onObject: (value: Record<string, unknown>) => void, onViolation: (text: string) => void) {
    this.#onObject = onObject;
    this.#onViolation = onViolation;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.#pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.#pending);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#line(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#pending.push(Buffer.from(chunk.subarray(start)));
      this.#pendingBytes += chunk.length - start;
    }
    if (this.#pendingBytes > MAX_FRAME_BYTES) {
      this.#onViolation(
        `a line of more than ${this.#pendingBytes} bytes without LF, over the ${MAX_FRAME_BYTES}-byte frame bound`,
      );
      this.#pending = [];
      this.#pendingBytes = 0;
    }
  }

  /** stdout ended: bytes after the last LF are a torn frame. */
  end(): void {
    if (this.#pendingBytes > 0)
      this.#onViolation(`stdout ended inside a frame (${this.#pendingBytes} bytes after the last LF)`);
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #line(bytes: Buffer): void {
    const head = bytes.subarray(0, 160).toString("latin1");
    if (bytes.length === 0) return this.#onViolation("a blank line on stdout");
    if (bytes.length > MAX_FRAME_BYTES)
      return this.#onViolation(`a line of ${bytes.length} bytes, over the ${MAX_FRAME_BYTES}-byte frame bound`);
    if (bytes.includes(0x0d)) return this.#onViolation(`a CR in a line on stdout: ${head}`);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (err) {
      return this.#onViolation(
        `a line on stdout that is not UTF-8 JSON (${(err as Error).message.slice(0, 80)}): ${head}`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return this.#onViolation(`a line on stdout that is not a JSON object: ${head}`);
    this.#onObject(value as Record<string, unknown>);
  }
}
