/**
 * The media signature check of artifact/publish (ART-09, ART-10, reliability A7): do these bytes
 * have the structure of the declared format, and nothing after it? Each checker walks the
 * container to its declared end rather than testing a few magic bytes, because a prefix match is
 * what lets polyglots through (a PNG with a ZIP appended, an MP3 that is one frame sync in front
 * of anything: file-type #210). Where the container states its own length (RIFF, MP4 boxes,
 * PNG/GIF/Ogg/ADTS/MPEG framing, the JPEG end marker) the walk must end exactly at the last byte.
 *
 * This is a structural check, not a decoder: it proves the bytes are laid out as the format
 * says, not that every sample decodes. Why hand-written and not a detection library: see
 * docs/decisions.md ("Artifacts").
 */
import type { ArtifactMimeType } from "@octet/protocol";

type Checker = (b: Uint8Array) => string | null;

/** Why `bytes` are not a well-formed `mimeType`, or null when they are. */
export function mediaSignatureProblem(bytes: Uint8Array, mimeType: ArtifactMimeType): string | null {
  return CHECKERS[mimeType](bytes);
}

const CHECKERS: Record<ArtifactMimeType, Checker> = {
  "image/png": png,
  "image/jpeg": jpeg,
  "image/gif": gif,
  "image/webp": webp,
  "audio/wav": wav,
  "audio/mpeg": mpeg,
  "audio/flac": flac,
  "audio/opus": opus,
  "audio/aac": aac,
  "audio/mp4": mp4,
};

const u16be = (b: Uint8Array, o: number): number => (b[o]! << 8) | b[o + 1]!;
const u16le = (b: Uint8Array, o: number): number => b[o]! | (b[o + 1]! << 8);
const u32be = (b: Uint8Array, o: number): number =>
  ((b[o]! << 24) >>> 0) + ((b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!);
const u32le = (b: Uint8Array, o: number): number =>
  ((b[o + 3]! << 24) >>> 0) + ((b[o + 2]! << 16) | (b[o + 1]! << 8) | b[o]!);
const ascii = (b: Uint8Array, o: number, n: number): string => String.fromCharCode(...b.subarray(o, o + n));
const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const fourcc = (b: Uint8Array, o: number): boolean =>
  o + 4 <= b.length && [0, 1, 2, 3].every((i) => b[o + i]! >= 0x20 && b[o + i]! < 0x7f);
const trailing = (what: string, end: number, length: number): string =>
  `${length - end} bytes after the end of the ${what} data (a polyglot or a corrupt file)`;

/** PNG: signature, IHDR first, chunks walked to IEND, which must be the last byte; at least one IDAT. */
function png(b: Uint8Array): string | null {
  if (!startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return "not a PNG: the 8-byte PNG signature is missing";
  let o = 8;
  let idat = false;
  for (let first = true; ; first = false) {
    if (o + 12 > b.length) return "truncated PNG: a chunk header runs past the end";
    const len = u32be(b, o);
    const type = ascii(b, o + 4, 4);
    if (!/^[A-Za-z]{4}$/.test(type)) return `not a PNG: invalid chunk type at byte ${o + 4}`;
    if (first && (type !== "IHDR" || len !== 13)) return "not a PNG: the first chunk is not a 13-byte IHDR";
    if (o + 12 + len > b.length) return `truncated PNG: chunk ${type} runs past the end`;
    if (type === "IDAT") idat = true;
    o += 12 + len;
    if (type === "IEND") break;
  }
  if (!idat) return "not a PNG image: no IDAT chunk";
  return o === b.length ? null : trailing("PNG", o, b.length);
}

/**
 * JPEG: SOI, marker segments with their lengths, a frame header (SOF) before the first scan,
 * entropy-coded data skipped to the next marker, and EOI as the last two bytes.
 */
function jpeg(b: Uint8Array): string | null {
  if (!startsWith(b, [0xff, 0xd8, 0xff])) return "not a JPEG: the SOI marker is missing";
  let o = 2;
  let frame = false;
  while (o < b.length) {
    if (b[o] !== 0xff) return `not a JPEG: expected a marker at byte ${o}`;
    while (b[o] === 0xff) o++; // fill bytes
    if (o >= b.length) break;
    const m = b[o++]!;
    if (m === 0xd9)
      return frame ? (o === b.length ? null : trailing("JPEG", o, b.length)) : "not a JPEG image: EOI before any frame";
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) continue; // standalone markers
    if (o + 2 > b.length) break;
    const len = u16be(b, o);
    if (len < 2 || o + len > b.length)
      return `truncated JPEG: segment 0xFF${m.toString(16).toUpperCase()} runs past the end`;
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) frame = true;
    o += len;
    if (m === 0xda) {
      if (!frame) return "not a JPEG: a scan before any frame header";
      // Entropy-coded data: 0xFF is followed by 0x00 (stuffing) or a restart marker inside it.
      while (o + 1 < b.length && !(b[o] === 0xff && b[o + 1] !== 0x00 && !(b[o + 1]! >= 0xd0 && b[o + 1]! <= 0xd7)))
        o++;
    }
  }
  return "truncated JPEG: no EOI marker at the end";
}

/** GIF: header, screen descriptor and color table, blocks walked to the 0x3B trailer as the last byte. */
function gif(b: Uint8Array): string | null {
  const header = b.length >= 6 ? ascii(b, 0, 6) : "";
  if (header !== "GIF87a" && header !== "GIF89a") return "not a GIF: the GIF87a/GIF89a header is missing";
  if (b.length < 13) return "truncated GIF: no logical screen descriptor";
  let o = 13 + ((b[10]! & 0x80) !== 0 ? 3 * 2 ** ((b[10]! & 7) + 1) : 0);
  let images = 0;
  const subBlocks = (): boolean => {
    for (;;) {
      if (o >= b.length) return false;
      const n = b[o++]!;
      if (n === 0) return true;
      o += n;
    }
  };
  while (o < b.length) {
    const block = b[o++]!;
    if (block === 0x3b) {
      if (images === 0) return "not a GIF image: no image block";
      return o === b.length ? null : trailing("GIF", o, b.length);
    }
    if (block === 0x21) {
      o++; // label
      if (!subBlocks()) return "truncated GIF: an extension block runs past the end";
    } else if (block === 0x2c) {
      if (o + 9 > b.length) return "truncated GIF: an image descriptor runs past the end";
      const packed = b[o + 8]!;
      o += 9 + ((packed & 0x80) !== 0 ? 3 * 2 ** ((packed & 7) + 1) : 0) + 1; // + LZW minimum code size
      if (!subBlocks()) return "truncated GIF: image data runs past the end";
      images++;
    } else return `not a GIF: unknown block 0x${block.toString(16)} at byte ${o - 1}`;
  }
  return "truncated GIF: no trailer";
}

/** RIFF container of `form`: exact declared size, chunks walked to the end. Returns the chunk list. */
function riff(
  b: Uint8Array,
  form: string,
  what: string,
): { chunks: { id: string; at: number; size: number }[] } | string {
  if (b.length < 12 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== form)
    return `not a ${what}: the RIFF/${form} header is missing`;
  const declared = u32le(b, 4) + 8;
  if (declared !== b.length)
    return declared > b.length
      ? `truncated ${what}: RIFF declares ${declared} bytes, got ${b.length}`
      : trailing(what, declared, b.length);
  const chunks: { id: string; at: number; size: number }[] = [];
  let o = 12;
  while (o < b.length) {
    if (o + 8 > b.length || !fourcc(b, o)) return `not a ${what}: invalid chunk header at byte ${o}`;
    const size = u32le(b, o + 4);
    if (o + 8 + size > b.length) return `truncated ${what}: chunk ${JSON.stringify(ascii(b, o, 4))} runs past the end`;
    chunks.push({ id: ascii(b, o, 4), at: o + 8, size });
    o += 8 + size + (size & 1);
  }
  return o === b.length ? { chunks } : `truncated ${what}: the last chunk's padding byte is missing`;
}

/** WebP: RIFF/WEBP whose first chunk is VP8, VP8L or VP8X with that bitstream's own signature. */
function webp(b: Uint8Array): string | null {
  const r = riff(b, "WEBP", "WebP");
  if (typeof r === "string") return r;
  const first = r.chunks[0];
  if (!first) return "not a WebP image: no chunk";
  if (first.id === "VP8 ")
    return first.size >= 10 && startsWith(b, [0x9d, 0x01, 0x2a], first.at + 3)
      ? null
      : "not a WebP image: bad VP8 frame start code";
  if (first.id === "VP8L")
    return first.size >= 5 && b[first.at] === 0x2f ? null : "not a WebP image: bad VP8L signature";
  if (first.id === "VP8X")
    return first.size >= 10 && r.chunks.length > 1 ? null : "not a WebP image: VP8X without image data";
  return `not a WebP image: first chunk is ${JSON.stringify(first.id)}, not VP8, VP8L or VP8X`;
}

/** WAV: RIFF/WAVE with a fmt chunk (at least 16 bytes) before the data chunk. */
function wav(b: Uint8Array): string | null {
  const r = riff(b, "WAVE", "WAV");
  if (typeof r === "string") return r;
  const fmt = r.chunks.findIndex((c) => c.id === "fmt ");
  const data = r.chunks.findIndex((c) => c.id === "data");
  if (fmt === -1 || r.chunks[fmt]!.size < 16) return "not a WAV: no fmt chunk of at least 16 bytes";
  if (data === -1 || data < fmt) return "not a WAV: no data chunk after the fmt chunk";
  const at = r.chunks[fmt]!.at;
  if (u16le(b, at + 2) === 0 || u32le(b, at + 4) === 0)
    return "not a WAV: the fmt chunk declares no channels or no sample rate";
  return null;
}

/** The length of an ID3v2 tag at `o` (0 when there is none), or -1 when it is malformed. */
function id3v2(b: Uint8Array, o: number): number {
  if (!(b.length >= o + 10 && ascii(b, o, 3) === "ID3")) return 0;
  if ([6, 7, 8, 9].some((i) => b[o + i]! >= 0x80)) return -1;
  const size = (b[o + 6]! << 21) | (b[o + 7]! << 14) | (b[o + 8]! << 7) | b[o + 9]!;
  const total = 10 + size + ((b[o + 5]! & 0x10) !== 0 ? 10 : 0);
  return o + total <= b.length ? total : -1;
}

/** Walks frames from `o` with `frameAt` (a frame's length, or 0 when no frame starts there). */
function frames(
  b: Uint8Array,
  o: number,
  what: string,
  frameAt: (b: Uint8Array, o: number, first: number) => number,
): string | null {
  const start = o;
  let count = 0;
  while (o < b.length) {
    // An ID3v1 tag is the one trailer audio files commonly carry after their last frame.
    if (count >= 2 && b.length - o === 128 && ascii(b, o, 3) === "TAG") return null;
    const len = frameAt(b, o, start);
    if (len === 0) {
      if (count < 2)
        return `not ${what}: ${count === 0 ? "no frame header" : "no second consecutive frame header"} at byte ${o}`;
      return trailing(what, o, b.length);
    }
    if (o + len > b.length) return `truncated ${what}: frame at byte ${o} runs past the end`;
    o += len;
    count++;
  }
  return count >= 2 ? null : `not ${what}: fewer than 2 consecutive frames`;
}

const MPEG_BITRATES: Record<string, readonly number[]> = {
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** The length of the MPEG audio frame at `o` (0 if none), consistent in version, layer and rate with the first. */
function mpegFrame(b: Uint8Array, o: number, first: number): number {
  if (o + 4 > b.length || b[o] !== 0xff || (b[o + 1]! & 0xe0) !== 0xe0) return 0;
  if (o !== first && ((b[o + 1]! ^ b[first + 1]!) & 0x1e) !== 0) return 0; // version and layer
  if (o !== first && ((b[o + 2]! ^ b[first + 2]!) & 0x0c) !== 0) return 0; // sample rate
  const version = (b[o + 1]! >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5, 1 reserved
  const layerBits = (b[o + 1]! >> 1) & 3; // 3 = I, 2 = II, 1 = III, 0 reserved
  const rateIndex = (b[o + 2]! >> 2) & 3;
  const bitrateIndex = b[o + 2]! >> 4;
  if (version === 1 || layerBits === 0 || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15) return 0;
  const layer = 4 - layerBits;
  const v1 = version === 3;
  const bitrate = MPEG_BITRATES[`${v1 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000;
  const rate = MPEG_RATES[version]![rateIndex]!;
  const pad = (b[o + 2]! >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate) / rate) + pad) * 4;
  return Math.floor(((layer === 3 && !v1 ? 72 : 144) * bitrate) / rate) + pad;
}

/** MPEG audio: an optional ID3v2 tag, then at least 2 consecutive frames walked to the end (A7). */
function mpeg(b: Uint8Array): string | null {
  const tag = id3v2(b, 0);
  if (tag < 0) return "not MPEG audio: malformed ID3v2 tag";
  return frames(b, tag, "MPEG audio", mpegFrame);
}

/** The length of the ADTS frame at `o` (0 if none), consistent in profile and rate with the first. */
function adtsFrame(b: Uint8Array, o: number, first: number): number {
  if (o + 7 > b.length || b[o] !== 0xff || (b[o + 1]! & 0xf6) !== 0xf0) return 0;
  if (((b[o + 2]! >> 2) & 0x0f) > 12) return 0;
  if (o !== first && ((b[o + 2]! ^ b[first + 2]!) & 0xfc) !== 0) return 0;
  const len = ((b[o + 3]! & 3) << 11) | (b[o + 4]! << 3) | (b[o + 5]! >> 5);
  const header = (b[o + 1]! & 1) === 1 ? 7 : 9;
  return len >= header ? len : 0;
}

/** AAC: ADTS, an optional ID3v2 tag, then at least 2 consecutive frames walked to the end. */
function aac(b: Uint8Array): string | null {
  const tag = id3v2(b, 0);
  if (tag < 0) return "not AAC: malformed ID3v2 tag";
  return frames(b, tag, "AAC (ADTS)", adtsFrame);
}

/** FLAC: "fLaC", STREAMINFO first, metadata blocks to the last one, then a frame sync code. */
function flac(b: Uint8Array): string | null {
  if (!(b.length >= 4 && ascii(b, 0, 4) === "fLaC")) return "not FLAC: the fLaC marker is missing";
  let o = 4;
  for (let first = true; ; first = false) {
    if (o + 4 > b.length) return "truncated FLAC: a metadata block header runs past the end";
    const type = b[o]! & 0x7f;
    const last = (b[o]! & 0x80) !== 0;
    const len = (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
    if (first && (type !== 0 || len !== 34)) return "not FLAC: the first metadata block is not a 34-byte STREAMINFO";
    if (type === 127) return "not FLAC: invalid metadata block type 127";
    o += 4 + len;
    if (o > b.length) return "truncated FLAC: a metadata block runs past the end";
    if (last) break;
  }
  if (!(o + 2 <= b.length && b[o] === 0xff && (b[o + 1]! & 0xfe) === 0xf8))
    return `not FLAC audio: no frame sync code after the metadata at byte ${o}`;
  return null;
}

/** Opus: Ogg pages walked to the end, the first (BOS) holding OpusHead and the second OpusTags. */
function opus(b: Uint8Array): string | null {
  let o = 0;
  let page = 0;
  while (o < b.length) {
    if (o + 27 > b.length || ascii(b, o, 4) !== "OggS" || b[o + 4] !== 0)
      return page === 0 ? "not Ogg Opus: the OggS page header is missing" : `not Ogg Opus: no Ogg page at byte ${o}`;
    const segments = b[o + 26]!;
    if (o + 27 + segments > b.length) return "truncated Ogg: a segment table runs past the end";
    let body = 0;
    for (let i = 0; i < segments; i++) body += b[o + 27 + i]!;
    const payload = o + 27 + segments;
    if (payload + body > b.length) return `truncated Ogg: page ${page} runs past the end`;
    if (page === 0) {
      if ((b[o + 5]! & 0x02) === 0) return "not Ogg Opus: the first page is not a beginning-of-stream page";
      if (
        !(body >= 19 && ascii(b, payload, 8) === "OpusHead" && (b[payload + 8]! & 0xf0) === 0 && b[payload + 9]! >= 1)
      )
        return "not Ogg Opus: no OpusHead header";
    }
    if (page === 1 && !(body >= 8 && ascii(b, payload, 8) === "OpusTags"))
      return "not Ogg Opus: the second page has no OpusTags header";
    o = payload + body;
    page++;
  }
  return page >= 2 ? null : "not Ogg Opus: fewer than the 2 header pages";
}

/** Top-level or nested ISO-BMFF boxes of b[from..to): their types and extents, or a problem. */
function boxes(b: Uint8Array, from: number, to: number): { type: string; at: number; end: number }[] | string {
  const out: { type: string; at: number; end: number }[] = [];
  let o = from;
  while (o < to) {
    if (o + 8 > to || !fourcc(b, o + 4)) return `not MP4: invalid box header at byte ${o}`;
    let size = u32be(b, o);
    let header = 8;
    if (size === 1) {
      if (o + 16 > to || u32be(b, o + 8) !== 0) return `not MP4: invalid 64-bit box size at byte ${o}`;
      size = u32be(b, o + 12);
      header = 16;
    } else if (size === 0) size = to - o;
    if (size < header || o + size > to)
      return `truncated MP4: box ${JSON.stringify(ascii(b, o + 4, 4))} runs past the end`;
    out.push({ type: ascii(b, o + 4, 4), at: o + header, end: o + size });
    o += size;
  }
  return out;
}

/** MP4 audio: ftyp first, boxes walked to the end, a moov whose tracks include sound and no video. */
function mp4(b: Uint8Array): string | null {
  const top = boxes(b, 0, b.length);
  if (typeof top === "string") return top;
  if (top[0]?.type !== "ftyp" || top[0].end - top[0].at < 8) return "not MP4: the first box is not ftyp";
  const moov = top.find((x) => x.type === "moov");
  if (!moov) return "not MP4 audio: no moov box";
  const handlers: string[] = [];
  const tracks = boxes(b, moov.at, moov.end);
  if (typeof tracks === "string") return tracks;
  for (const trak of tracks.filter((x) => x.type === "trak")) {
    const t = boxes(b, trak.at, trak.end);
    const mdia = typeof t === "string" ? undefined : t.find((x) => x.type === "mdia");
    const m = mdia ? boxes(b, mdia.at, mdia.end) : "";
    const hdlr = typeof m === "string" ? undefined : m.find((x) => x.type === "hdlr");
    if (hdlr && hdlr.end - hdlr.at >= 12) handlers.push(ascii(b, hdlr.at + 8, 4));
  }
  if (handlers.includes("vide")) return "not MP4 audio: it has a video track";
  return handlers.includes("soun") ? null : "not MP4 audio: no sound track";
}
