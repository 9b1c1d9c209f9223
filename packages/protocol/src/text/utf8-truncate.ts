/**
 * Cutting text to a UTF-8 byte bound, the one way every package does it (the host's stderr lines
 * and diagnostics, the diagnostics projection, the rpi bridge's status text): the longest prefix
 * that fits with the marker, cut between characters, never inside a surrogate pair.
 */
import { utf8ByteLength } from "../validate/kit.js";

/**
 * `s` when it is at most `maxBytes` UTF-8 bytes, else its longest prefix (whole characters) that
 * fits together with `marker`, followed by the marker. A lone surrogate counts as the 3-byte
 * U+FFFD it encodes to, as utf8ByteLength counts it. Throws a RangeError when `maxBytes` is not
 * an integer at least the marker's size.
 */
export function truncateUtf8(s: string, maxBytes: number, marker = "..."): string {
  const markerBytes = utf8ByteLength(marker);
  if (!Number.isSafeInteger(maxBytes) || maxBytes < markerBytes) {
    throw new RangeError(
      `truncateUtf8: maxBytes must be an integer of at least ${markerBytes} (the marker's bytes); got ${maxBytes}`,
    );
  }
  // No code unit encodes to more than 3 bytes: short text needs no count.
  if (s.length * 3 <= maxBytes || utf8ByteLength(s) <= maxBytes) return s;
  const budget = maxBytes - markerBytes;
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let width = 3;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      width = 4;
      units = 2;
    }
    if (bytes + width > budget) break;
    bytes += width;
    i += units;
  }
  return s.slice(0, i) + marker;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
