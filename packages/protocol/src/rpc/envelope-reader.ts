/**
 * Bytes in, envelopes out: the JSONL decoder followed by the closed envelope validator. Both the
 * host and the SDKs read their peer through this, so a frame is judged the same way on each side.
 * It reports every refused line; what a refusal means (reply, diagnose, terminate) is the caller's.
 */
import { JsonlDecoder, type FrameError } from "../jsonl/decoder.js";
import { parseEnvelope, type Envelope, type JsonRpcId } from "../jsonrpc.js";

export type ReadEvent =
  | { kind: "envelope"; envelope: Envelope }
  | { kind: "frame_error"; error: FrameError }
  | { kind: "invalid_envelope"; reason: string; id: JsonRpcId | null };

export class EnvelopeReader {
  readonly #decoder: JsonlDecoder;

  constructor(options: { maxFrameBytes?: number } = {}) {
    this.#decoder = new JsonlDecoder(options);
  }

  get failed(): boolean {
    return this.#decoder.failed;
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
  return parsed.ok ? { kind: "envelope", envelope: parsed.envelope } : { kind: "invalid_envelope", reason: parsed.reason, id: parsed.id };
}
