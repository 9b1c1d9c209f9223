/**
 * Frame encoding: one JSON object on one line, LF-terminated, within the frame bound. The bound
 * is checked here so an oversized message fails before any byte is written (FRAME-09: oversized
 * values fail rather than being truncated).
 */
import { MAX_FRAME_BYTES } from "../bounds.js";
import { OctetError } from "../errors.js";
import { utf8ByteLength } from "../validate/kit.js";

/**
 * Serializes a message to its frame text including the trailing LF. Throws OctetError:
 * frame_too_large over the bound, frame_invalid when the value has no JSON text (undefined, a
 * function, a BigInt, a cycle, a throwing toJSON), so callers see one local error family.
 */
export function encodeFrame(message: unknown, maxFrameBytes: number = MAX_FRAME_BYTES): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (err) {
    throw new OctetError(
      "frame_invalid",
      `message is not serializable as JSON: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`,
      { cause: err },
    );
  }
  if (typeof text !== "string") throw new OctetError("frame_invalid", "message is not serializable as JSON");
  return boundedFrame(text, maxFrameBytes);
}

/**
 * The frame of a request whose params are JSON text already (spliced by the caller from parts
 * encoded once, such as a generation's execution context): the frame encodeFrame makes of
 * {jsonrpc, id, method, params}, under the same bound. The caller guarantees `paramsText` is
 * one JSON value.
 */
export function encodeRequestFrame(
  id: number,
  method: string,
  paramsText: string,
  maxFrameBytes: number = MAX_FRAME_BYTES,
): string {
  const text = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsText}}`;
  return boundedFrame(text, maxFrameBytes);
}

/** `text` and its LF, or frame_too_large when its UTF-8 bytes are over the bound. */
function boundedFrame(text: string, maxFrameBytes: number): string {
  const frame = text + "\n";
  // Cheap pre-check: a UTF-16 length within max/3 cannot exceed max bytes. Otherwise the frame
  // itself is measured, not the text before its LF: V8 returns a large stringify result unflattened,
  // and measuring flattens what it measures, so the stream then writes that flat copy instead of
  // flattening the text + LF concatenation a second time.
  if (text.length * 3 > maxFrameBytes) {
    const n = utf8ByteLength(frame) - 1;
    if (n > maxFrameBytes)
      throw new OctetError("frame_too_large", `outbound frame is ${n} bytes, over the ${maxFrameBytes}-byte limit`);
  }
  return frame;
}
