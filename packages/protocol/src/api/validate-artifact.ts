/**
 * artifact/publish (W 2.8, ART-01..13): the params an extension sends, the answer it gets back,
 * and the media vocabulary (canonical MIME types and their kind). Owns shapes and the bounds a
 * message alone can show: one source, a decoded inline size, a scratch-relative path grammar, a
 * lowercase digest, a canonical MIME type. Left to the host: the parent's activity (-32002),
 * reading the scratch file safely, comparing size, digest and media signature with the bytes,
 * and the per-generation quotas.
 *
 * The params are open (FRAME-15: unknown members are ignored); the `data` object and the answer
 * are closed, since the text gives their members exactly.
 */
import {
  MAX_ARTIFACT_BYTES,
  MAX_ARTIFACT_ID_BYTES,
  MAX_ARTIFACT_INLINE_BYTES,
  MAX_ARTIFACT_PATH_BYTES,
  MAX_ARTIFACT_PATH_COMPONENTS,
} from "../bounds.js";
import {
  checkCount,
  isAbsent,
  member,
  quote,
  readInteger,
  readObject,
  readOneOf,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { Problems, utf8ByteLength, type Checked } from "../validate/kit.js";
import { base64Problem } from "./validate-progress.js";

/**
 * The canonical MIME type of every supported medium (ART-10; ART-11 GAP default). One string per
 * format: an alias such as image/jpg names the same bytes, but accepting it would let two
 * spellings of one type through every later comparison.
 */
export const ARTIFACT_MIME_TYPES = {
  "image/png": "image",
  "image/jpeg": "image",
  "image/gif": "image",
  "image/webp": "image",
  "audio/wav": "audio",
  "audio/mpeg": "audio",
  "audio/flac": "audio",
  "audio/opus": "audio",
  "audio/aac": "audio",
  "audio/mp4": "audio",
} as const;

export type ArtifactMimeType = keyof typeof ARTIFACT_MIME_TYPES;
export type ArtifactKind = "image" | "audio";

/** Common non-canonical spellings, so a refusal can say which canonical name was meant. */
const ALIASES: Readonly<Record<string, ArtifactMimeType>> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/mpeg3": "audio/mpeg",
  "audio/x-flac": "audio/flac",
  "audio/ogg": "audio/opus",
  "audio/x-aac": "audio/aac",
  "audio/aacp": "audio/aac",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
};

/** The kind (image or audio) of a canonical artifact MIME type, or undefined for any other string. */
export function artifactKind(mimeType: string): ArtifactKind | undefined {
  return Object.hasOwn(ARTIFACT_MIME_TYPES, mimeType) ? ARTIFACT_MIME_TYPES[mimeType as ArtifactMimeType] : undefined;
}

export type ArtifactSource = { kind: "inline"; data: string } | { kind: "path"; path: string };

export interface ArtifactPublishParams {
  parent_request_id: number;
  mime_type: ArtifactMimeType;
  size: number;
  sha256: string;
  source: ArtifactSource;
}

export interface ArtifactPublishResult {
  artifact_id: string;
}

const DATA_MEMBERS = new Set(["encoding", "data"]);
const RESULT_MEMBERS = new Set(["artifact_id"]);
const SHA256_HEX = /^[0-9a-f]{64}$/;
/** A path component that is, or percent-encodes, "." or "..". */
const DOT_SEGMENT = /^(?:\.|%2e)+$/i;

/**
 * artifact/publish params. Exactly one of `data` and `path` (ART-02, ART-03); the inline bound is
 * on decoded bytes (ART-13), computed from the base64 length so nothing is decoded to refuse it.
 */
export function validateArtifactPublishParams(value: unknown): Checked<ArtifactPublishParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const mimeType = readMimeType(p, "mime_type", member(obj, "mime_type"));
  const size = readSize(p, member(obj, "size"));
  const sha256 = readSha256(p, member(obj, "sha256"));
  const source = readSource(p, obj, size);
  if (
    !p.ok ||
    parent === undefined ||
    mimeType === undefined ||
    size === undefined ||
    sha256 === undefined ||
    source === undefined
  ) {
    return refuse(p);
  }
  return { ok: true, value: { parent_request_id: parent, mime_type: mimeType, size, sha256, source } };
}

/** The answer to artifact/publish (ART-04): exactly {artifact_id}, a non-empty bounded string. */
export function validateArtifactPublishResult(value: unknown): Checked<ArtifactPublishResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, RESULT_MEMBERS);
  const id = readString(p, "artifact_id", member(obj, "artifact_id"), {
    nonBlank: true,
    maxBytes: MAX_ARTIFACT_ID_BYTES,
  });
  if (!p.ok || id === undefined) return refuse(p);
  return { ok: true, value: { artifact_id: id } };
}

/** A canonical artifact MIME type (ART-10, ART-11): aliases and other types are refused by name. */
export function readMimeType(p: Problems, path: string, v: unknown): ArtifactMimeType | undefined {
  const s = readString(p, path, v, { nonBlank: true });
  if (s === undefined) return undefined;
  if (artifactKind(s) !== undefined) return s as ArtifactMimeType;
  const canonical =
    ALIASES[s.toLowerCase()] ??
    (artifactKind(s.toLowerCase()) !== undefined ? (s.toLowerCase() as ArtifactMimeType) : undefined);
  if (canonical !== undefined) p.add(path, `${quote(s)} is not canonical; use ${quote(canonical)}`);
  else
    p.add(
      path,
      `${quote(s)} is not a supported artifact type; expected one of ${Object.keys(ARTIFACT_MIME_TYPES).join(", ")}`,
    );
  return undefined;
}

function readSize(p: Problems, v: unknown): number | undefined {
  const size = readInteger(p, "size", v, 1);
  if (size === undefined) return undefined;
  if (size > MAX_ARTIFACT_BYTES) {
    p.add("size", `${size} bytes, over the ${MAX_ARTIFACT_BYTES}-byte artifact limit`);
    return undefined;
  }
  return size;
}

function readSha256(p: Problems, v: unknown): string | undefined {
  const s = readString(p, "sha256", v);
  if (s === undefined) return undefined;
  if (SHA256_HEX.test(s)) return s;
  if (/^[0-9a-fA-F]{64}$/.test(s)) p.add("sha256", `${quote(s)} has uppercase hex digits; expected lowercase`);
  else p.add("sha256", `${quote(s)} is not 64 lowercase hex digits (SHA-256)`);
  return undefined;
}

function readSource(p: Problems, obj: Record<string, unknown>, size: number | undefined): ArtifactSource | undefined {
  const data = member(obj, "data");
  const path = member(obj, "path");
  if (!isAbsent(data) && !isAbsent(path)) {
    p.add("", "both data and path are given; exactly one source is required");
    return undefined;
  }
  if (isAbsent(data) && isAbsent(path)) {
    p.add("", "neither data nor path is given; exactly one source is required");
    return undefined;
  }
  if (!isAbsent(path)) {
    const rel = readArtifactPath(p, "path", path);
    return rel === undefined ? undefined : { kind: "path", path: rel };
  }
  const d = readObject(p, "data", data);
  if (d === undefined) return undefined;
  rejectUnknown(p, "data", d, DATA_MEMBERS);
  const encoding = readOneOf(p, "data.encoding", member(d, "encoding"), ["base64"] as const);
  const text = readString(p, "data.data", member(d, "data"));
  if (encoding === undefined || text === undefined) return undefined;
  const decoded = decodedLength(text);
  if (decoded > MAX_ARTIFACT_INLINE_BYTES) {
    p.add(
      "data.data",
      `${decoded} decoded bytes, over the ${MAX_ARTIFACT_INLINE_BYTES}-byte inline limit; publish larger media by path`,
    );
    return undefined;
  }
  const problem = base64Problem(text);
  if (problem !== undefined) {
    p.add("data.data", `not valid base64: ${problem}`);
    return undefined;
  }
  if (size !== undefined && decoded !== size) {
    p.add("size", `${size} does not match the ${decoded} bytes of data`);
    return undefined;
  }
  return { kind: "inline", data: text };
}

/**
 * A scratch-relative path (ART-06, reliability M4): refused on the raw string, before anything
 * normalises it, so no spelling can mean something else on disk. Absolute paths, backslashes,
 * NUL and other control characters, empty components (leading, trailing or doubled "/"), and "."
 * or ".." (also percent-encoded) are refused.
 */
export function readArtifactPath(p: Problems, path: string, v: unknown): string | undefined {
  const s = readString(p, path, v, { nonBlank: true });
  if (s === undefined) return undefined;
  const bytes = utf8ByteLength(s);
  if (bytes > MAX_ARTIFACT_PATH_BYTES) {
    p.add(path, `${bytes} bytes, over the ${MAX_ARTIFACT_PATH_BYTES}-byte path limit`);
    return undefined;
  }
  if (s.startsWith("/")) {
    p.add(path, `${quote(s)} is absolute; expected a path relative to OCTET_EXTENSION_SCRATCH`);
    return undefined;
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c || c < 0x20 || c === 0x7f) {
      p.add(
        path,
        `${quote(s)} has ` +
          `${c === 0x5c ? "a backslash" : `control character U+${c.toString(16).toUpperCase().padStart(4, "0")}`} ` +
          `at index ${i}`,
      );
      return undefined;
    }
  }
  const segments = s.split("/");
  if (!checkCount(p, path, segments.length, MAX_ARTIFACT_PATH_COMPONENTS, "component")) return undefined;
  const bad = segments.findIndex((seg) => seg === "" || DOT_SEGMENT.test(seg));
  if (bad !== -1) {
    const seg = segments[bad]!;
    p.add(
      path,
      seg === ""
        ? `${quote(s)} has an empty component`
        : `${quote(s)} has a ${quote(seg)} component; parent traversal is refused`,
    );
    return undefined;
  }
  return s;
}

/** Bytes that well-formed base64 text of this length decodes to (checked for form separately). */
function decodedLength(s: string): number {
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.floor((s.length * 3) / 4) - pad;
}
