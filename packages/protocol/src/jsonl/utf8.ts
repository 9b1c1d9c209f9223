/**
 * Strict UTF-8 for the JSONL codec: decode whole lines (fatal on any malformed sequence) and
 * encode strings, using the platform's TextDecoder/TextEncoder when present and pure code in
 * runtimes without them.
 */
import { platformUtf8Decoder, platformUtf8Encoder } from "../platform.js";

const native = platformUtf8Decoder();
const nativeEncoder = platformUtf8Encoder();

export class Utf8Error extends Error {
  override readonly name = "Utf8Error";
}

/** Decodes bytes as UTF-8, throwing Utf8Error on any invalid sequence, overlong form or surrogate. */
export function decodeUtf8(bytes: Uint8Array): string {
  if (native) {
    try {
      return native.decode(bytes);
    } catch {
      throw new Utf8Error("invalid UTF-8");
    }
  }
  return decodeUtf8Pure(bytes);
}

export function decodeUtf8Pure(bytes: Uint8Array): string {
  let out = "";
  const codes: number[] = [];
  const flush = (): void => {
    out += String.fromCharCode(...codes);
    codes.length = 0;
  };
  let i = 0;
  while (i < bytes.length) {
    const b0 = bytes[i]!;
    let cp: number;
    let need: number;
    let min: number;
    if (b0 < 0x80) {
      cp = b0;
      need = 0;
      min = 0;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      cp = b0 & 0x1f;
      need = 1;
      min = 0x80;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      cp = b0 & 0x0f;
      need = 2;
      min = 0x800;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      cp = b0 & 0x07;
      need = 3;
      min = 0x10000;
    } else throw new Utf8Error(`invalid UTF-8 lead byte 0x${b0.toString(16)} at offset ${i}`);
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k];
      if (b === undefined || (b & 0xc0) !== 0x80) throw new Utf8Error(`invalid UTF-8 continuation at offset ${i + k}`);
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      throw new Utf8Error(`invalid UTF-8 code point at offset ${i}`);
    if (cp >= 0x10000) {
      const v = cp - 0x10000;
      codes.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    } else codes.push(cp);
    if (codes.length >= 8192) flush();
    i += need + 1;
  }
  flush();
  return out;
}

/** Encodes a string as UTF-8 (lone surrogates become U+FFFD, as TextEncoder does). */
export function encodeUtf8(s: string): Uint8Array {
  if (nativeEncoder) return nativeEncoder.encode(s);
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Uint8Array.from(out);
}
