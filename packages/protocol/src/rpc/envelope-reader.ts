/**
 * Bytes in, envelopes out: the JSONL decoder followed by the closed envelope validator. Both the
 * host and the SDKs read their peer through this, so a frame is judged the same way on each side.
 * It reports every refused line; what a refusal means (reply, diagnose, terminate) is the caller's.
 */
import { JsonlDecoder, type FrameError } from "../jsonl/decoder.js";
import { parseEnvelope, type Envelope, type JsonRpcId } from "../jsonrpc.js";
import { envelopeTextProblem } from "./envelope-text.js";

export type ReadEvent =
  | { kind: "envelope"; envelope: Envelope }
  | { kind: "frame_error"; error: FrameError }
  | { kind: "invalid_envelope"; reason: string; id: JsonRpcId | null };

export class EnvelopeReader {
  readonly #decoder: JsonlDecoder;

  /** `borrowChunks`: see JsonlDecoder (the caller never reuses a pushed chunk's memory). */
  constructor(options: { maxFrameBytes?: number; borrowChunks?: boolean } = {}) {
    this.#decoder = new JsonlDecoder(options);
  }

  get failed(): boolean {
    return this.#decoder.failed;
  }

  /** Bytes of an unfinished frame held since its first byte arrived (0 between frames). */
  get buffered(): number {
    return this.#decoder.buffered;
  }

  push(chunk: Uint8Array): ReadEvent[] {
    return this.#decoder.push(chunk).map(toEvent);
  }

  end(): ReadEvent[] {
    return this.#decoder.end().map(toEvent);
  }
}

function toEvent(frame: ReturnType<JsonlDecoder["push"]>[number]): ReadEvent {
  if (!frame.ok) return { kind: "frame_error", error: frame.error };
  const parsed = parseEnvelope(frame.value);
  if (parsed.ok) {
    const message = parsed.envelope.message as { id?: unknown };
    const problem = envelopeTextProblem(frame.text, typeof message.id === "number", message);
    // No id is reported: which of the duplicates (or what number) is "the" id cannot be trusted.
    if (problem !== null) return { kind: "invalid_envelope", reason: problem, id: null };
  }
  return parsed.ok
    ? { kind: "envelope", envelope: parsed.envelope }
    : { kind: "invalid_envelope", reason: parsed.reason, id: parsed.id };
}
