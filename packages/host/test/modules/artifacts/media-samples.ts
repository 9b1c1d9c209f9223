/**
 * Small, structurally real samples of every supported medium, built here byte by byte (there is
 * no encoder on the test machines): a zlib-compressed PNG with CRCs, a baseline JPEG segment
 * layout, the classic 1x1 GIF, lossless WebP, PCM WAV, MPEG-1 Layer III frames, ADTS AAC frames,
 * FLAC with STREAMINFO and a frame sync, Ogg Opus header pages, and an M4A box tree.
 */
import { deflateSync } from "node:zlib";
import type { ArtifactMimeType } from "@octet/protocol";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const be32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const le32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const le16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};

function pngChunk(type: string, data: Buffer): Buffer {
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  return Buffer.concat([be32(data.length), td, be32(crc32(td))]);
}

export function png(width = 4, height = 3): Buffer {
  const ihdr = Buffer.concat([be32(width), be32(height), Buffer.from([8, 2, 0, 0, 0])]);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width * 3; x++) rows[y * (width * 3 + 1) + 1 + x] = (x * 40 + y * 60) & 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(rows)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

export function jpeg(): Buffer {
  const seg = (marker: number, body: number[]): number[] => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  return Buffer.from([
    0xff,
    0xd8,
    ...seg(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...seg(0xdb, [0x00, ...Array<number>(64).fill(1)]),
    ...seg(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]),
    ...seg(0xc4, [0x00, 1, ...Array<number>(15).fill(0), 0]),
    ...seg(0xda, [1, 1, 0x00, 0, 63, 0]),
    0x12,
    0xff,
    0x00,
    0x34,
    0xff,
    0xd0,
    0x56, // entropy data with a stuffed 0xFF and a restart marker
    0xff,
    0xd9,
  ]);
}

export function gif(): Buffer {
  return Buffer.from([
    ...Buffer.from("GIF89a", "latin1"),
    1,
    0,
    1,
    0,
    0x80,
    0,
    0,
    0,
    0,
    0,
    0xff,
    0xff,
    0xff,
    0x21,
    0xf9,
    4,
    0,
    0,
    0,
    0,
    0, // graphic control extension
    0x2c,
    0,
    0,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    2,
    2,
    0x44,
    0x01,
    0,
    0x3b,
  ]);
}

function riff(form: string, chunks: [string, Buffer][]): Buffer {
  const body = Buffer.concat(
    chunks.flatMap(([id, data]) => [
      Buffer.from(id, "latin1"),
      le32(data.length),
      data,
      data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0),
    ]),
  );
  return Buffer.concat([Buffer.from("RIFF", "latin1"), le32(body.length + 4), Buffer.from(form, "latin1"), body]);
}

export function webp(): Buffer {
  return riff("WEBP", [
    ["VP8L", Buffer.from([0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00])],
  ]);
}

export function wav(samples = 800, rate = 8000): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const fmt = Buffer.concat([le16(1), le16(1), le32(rate), le32(rate * 2), le16(2), le16(16)]);
  return riff("WAVE", [
    ["fmt ", fmt],
    ["data", data],
  ]);
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417-byte frames. */
export function mp3(frames = 3, id3 = true): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  const tag = id3 ? Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0]) : Buffer.alloc(0);
  return Buffer.concat([tag, ...Array.from({ length: frames }, () => frame)]);
}

/** ADTS AAC-LC, 44.1 kHz stereo, 24-byte frames without CRC. */
export function aac(frames = 3): Buffer {
  const len = 24;
  const frame = Buffer.alloc(len);
  frame.set([0xff, 0xf1, 0x50, 0x80 | ((len >> 11) & 3), (len >> 3) & 0xff, ((len & 7) << 5) | 0x1f, 0xfc]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

export function flac(): Buffer {
  const info = Buffer.alloc(34);
  info.set([0x10, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0x0a, 0xc4, 0x42, 0xf0, 0, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from("fLaC", "latin1"),
    Buffer.from([0x80, 0, 0, 34]),
    info,
    Buffer.from([0xff, 0xf8, 0x69, 0x08, 0x00, 0x00, 0x00]),
  ]);
}

function oggPage(headerType: number, sequence: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(27);
  h.write("OggS", 0, "latin1");
  h[5] = headerType;
  h.writeUInt32LE(0x1234, 14);
  h.writeUInt32LE(sequence, 18);
  h[26] = 1;
  return Buffer.concat([h, Buffer.from([payload.length]), payload]);
}

export function opus(): Buffer {
  const head = Buffer.concat([
    Buffer.from("OpusHead", "latin1"),
    Buffer.from([1, 1]),
    le16(312),
    le32(48000),
    le16(0),
    Buffer.from([0]),
  ]);
  const tags = Buffer.concat([Buffer.from("OpusTags", "latin1"), le32(5), Buffer.from("octet", "latin1"), le32(0)]);
  return Buffer.concat([
    oggPage(0x02, 0, head),
    oggPage(0x00, 1, tags),
    oggPage(0x04, 2, Buffer.from([0xf8, 0xff, 0xfe])),
  ]);
}

function box(type: string, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([be32(body.length + 8), Buffer.from(type, "latin1"), body]);
}

export function m4a(handler = "soun"): Buffer {
  const hdlr = box(
    "hdlr",
    Buffer.alloc(4),
    Buffer.alloc(4),
    Buffer.from(handler, "latin1"),
    Buffer.alloc(12),
    Buffer.from([0]),
  );
  return Buffer.concat([
    box("ftyp", Buffer.from("M4A ", "latin1"), be32(0), Buffer.from("M4A isom", "latin1")),
    box("moov", box("trak", box("mdia", hdlr))),
    box("mdat", Buffer.from([1, 2, 3, 4])),
  ]);
}

/** One valid sample per canonical MIME type. */
export const SAMPLES: Record<ArtifactMimeType, () => Buffer> = {
  "image/png": () => png(),
  "image/jpeg": jpeg,
  "image/gif": gif,
  "image/webp": webp,
  "audio/wav": () => wav(),
  "audio/mpeg": () => mp3(),
  "audio/flac": flac,
  "audio/opus": opus,
  "audio/aac": () => aac(),
  "audio/mp4": () => m4a(),
};
