/**
 * One generation's verified artifacts (ART-04, ART-07..15, CALL-18, CALL-19): publication
 * (decode or secure read, then exact size, SHA-256, media signature), the per-generation quotas,
 * and lookup by the host-derived owner. The store lives and dies with its generation, so an id
 * is unknown after a reload or restart without any bookkeeping (ART-15); within a generation the
 * owner triple recorded at publication must match the one asking (ART-14).
 *
 * What it leaves out: the wire (artifacts-service.ts), parameter shapes (@octet/protocol), and
 * the file-system rules of a path source (scratch-read.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  artifactKind,
  bounds,
  type ArtifactKind,
  type ArtifactMimeType,
  type ArtifactPublishParams,
  type ContentPart,
  type ResourceOwner,
} from "@octet/protocol";
import { mediaSignatureProblem } from "./media-signature.js";
import { readScratchFile, ScratchRefusal } from "./scratch-read.js";

/** The quotas of one store. Embedders may lower them, never raise them past the spec's defaults. */
export interface ArtifactLimits {
  /** Bytes of one artifact (ART-12). */
  artifactBytes: number;
  /** Bytes all artifacts of a generation hold together (ART-12). */
  generationBytes: number;
  /** Artifacts one generation may publish (ART-12). */
  generationArtifacts: number;
  /** Media one result may reference, repeats counted each time (CALL-19). */
  resultMediaBytes: number;
}

export const DEFAULT_ARTIFACT_LIMITS: Readonly<ArtifactLimits> = {
  artifactBytes: bounds.MAX_ARTIFACT_BYTES,
  generationBytes: bounds.MAX_GENERATION_ARTIFACT_BYTES,
  generationArtifacts: bounds.MAX_GENERATION_ARTIFACTS,
  resultMediaBytes: bounds.MAX_RESULT_MEDIA_BYTES,
};

/** The given limits, each clamped to [0, default]: a configuration can only tighten. */
export function artifactLimits(partial: Partial<ArtifactLimits> = {}): ArtifactLimits {
  const out = { ...DEFAULT_ARTIFACT_LIMITS };
  for (const key of Object.keys(out) as (keyof ArtifactLimits)[]) {
    const v = partial[key];
    if (typeof v === "number" && Number.isFinite(v))
      out[key] = Math.max(0, Math.min(Math.floor(v), DEFAULT_ARTIFACT_LIMITS[key]));
  }
  return out;
}

/** A verified artifact as the embedder reads it. `bytes` is the host's snapshot: do not modify it. */
export interface Artifact {
  readonly artifact_id: string;
  readonly mime_type: ArtifactMimeType;
  readonly kind: ArtifactKind;
  readonly size: number;
  readonly sha256: string;
  readonly bytes: Uint8Array;
}

/** One media part of a result, resolved: `part` is its index in the result's content. */
export interface ResolvedMedia extends Artifact {
  readonly part: number;
}

export type MediaResolution = { ok: true; media: ResolvedMedia[] } | { ok: false; problem: string };

/** A refused publication; the message names the value and the limit (it becomes a -32602). */
export class ArtifactRefusal extends Error {}

interface Entry {
  artifact: Artifact;
  owner: string;
}

export class ArtifactStore {
  readonly limits: ArtifactLimits;
  readonly #scratchDir: () => string | null;
  readonly #entries = new Map<string, Entry>();
  /** Bytes and count held, including publications still being read (reserved before reading). */
  #bytes = 0;
  #count = 0;
  #cleared = false;

  constructor(scratchDir: () => string | null, limits: Partial<ArtifactLimits> = {}) {
    this.#scratchDir = scratchDir;
    this.limits = artifactLimits(limits);
  }

  /** Artifacts held (or being read) and their bytes. */
  get usage(): { artifacts: number; bytes: number } {
    return { artifacts: this.#count, bytes: this.#bytes };
  }

  /**
   * Verifies and stores one publication for `owner`; resolves to its new opaque id. The quota is
   * reserved from the declared size before any byte is read (A8), so concurrent publications
   * cannot overshoot it together, and released if verification fails.
   */
  async publish(params: ArtifactPublishParams, owner: ResourceOwner, signal?: AbortSignal): Promise<string> {
    const { size, mime_type: mimeType } = params;
    const l = this.limits;
    if (this.#cleared) throw new ArtifactRefusal("the generation has ended; its artifacts are gone");
    if (size > l.artifactBytes)
      throw new ArtifactRefusal(`size ${size} bytes is over the ${l.artifactBytes}-byte artifact limit`);
    if (this.#count + 1 > l.generationArtifacts)
      throw new ArtifactRefusal(
        `this generation already holds ${this.#count} artifacts, the limit is ${l.generationArtifacts}`,
      );
    if (this.#bytes + size > l.generationBytes) {
      throw new ArtifactRefusal(
        `size ${size} bytes would bring this generation to ${this.#bytes + size} artifact bytes, over the ` +
          `${l.generationBytes}-byte limit`,
      );
    }
    this.#count++;
    this.#bytes += size;
    let stored = false;
    try {
      const bytes = await this.#read(params, signal);
      if (bytes.length !== size) throw new ArtifactRefusal(`got ${bytes.length} bytes, not the declared size ${size}`);
      const digest = createHash("sha256").update(bytes).digest("hex");
      if (digest !== params.sha256)
        throw new ArtifactRefusal(`sha256 mismatch: the bytes hash to ${digest}, not the declared ${params.sha256}`);
      const problem = mediaSignatureProblem(bytes, mimeType);
      if (problem !== null)
        throw new ArtifactRefusal(`the bytes do not match the declared mime_type ${mimeType}: ${problem}`);
      if (this.#cleared) throw new ArtifactRefusal("the generation ended while the artifact was read");
      const id = `art_${randomBytes(16).toString("base64url")}`;
      const artifact: Artifact = {
        artifact_id: id,
        mime_type: mimeType,
        kind: artifactKind(mimeType)!,
        size,
        sha256: digest,
        bytes,
      };
      this.#entries.set(id, { artifact, owner: ownerKey(owner) });
      stored = true;
      return id;
    } finally {
      if (!stored && !this.#cleared) {
        this.#count--;
        this.#bytes -= size;
      }
    }
  }

  /** The artifact `id` if `owner` published it in this generation; anyone else sees nothing (ART-14). */
  get(id: string, owner: ResourceOwner): Artifact | undefined {
    const e = this.#entries.get(id);
    return e && e.owner === ownerKey(owner) ? e.artifact : undefined;
  }

  /**
   * Resolves the image and audio parts of a result for `owner` (CALL-18, CALL-19): each must name
   * a stored artifact of that owner whose MIME type and kind match the part, and all references
   * together, repeats counted, must stay within the result bound. Text parts are skipped.
   */
  resolve(parts: readonly ContentPart[], owner: ResourceOwner): MediaResolution {
    const media: ResolvedMedia[] = [];
    let total = 0;
    for (const [i, part] of parts.entries()) {
      if (part.type === "text") continue;
      const where = `content[${i}]`;
      const a = this.get(part.artifact_id, owner);
      if (!a)
        return {
          ok: false,
          problem:
            `${where}: unknown artifact ${JSON.stringify(part.artifact_id.slice(0, 64))}; an artifact ` +
            `is valid only for the session owner and process generation that published it`,
        };
      if (a.kind !== part.type)
        return {
          ok: false,
          problem:
            `${where}: an ${part.type} part names ${a.kind} artifact ${JSON.stringify(a.artifact_id)} ` +
            `(${a.mime_type})`,
        };
      if (a.mime_type !== part.mime_type)
        return {
          ok: false,
          problem:
            `${where}: mime_type ${JSON.stringify(part.mime_type.slice(0, 64))} does not match ` +
            `artifact ${JSON.stringify(a.artifact_id)}, which is ${a.mime_type}`,
        };
      total += a.size;
      media.push({ ...a, part: i });
    }
    if (total > this.limits.resultMediaBytes) {
      return {
        ok: false,
        problem:
          `the result references ${total} bytes of media, over the ` +
          `${this.limits.resultMediaBytes}-byte limit per result (repeated references count each time)`,
      };
    }
    return { ok: true, media };
  }

  /** Drops every artifact: the generation ended (ART-15). Later publications are refused. */
  clear(): void {
    this.#cleared = true;
    this.#entries.clear();
    this.#bytes = 0;
    this.#count = 0;
  }

  async #read(params: ArtifactPublishParams, signal: AbortSignal | undefined): Promise<Buffer> {
    if (params.source.kind === "inline") return Buffer.from(params.source.data, "base64");
    const root = this.#scratchDir();
    if (root === null) throw new ArtifactRefusal("this generation has no scratch directory");
    try {
      return await readScratchFile(root, params.source.path, params.size, this.limits.artifactBytes, signal);
    } catch (err) {
      if (err instanceof ScratchRefusal) throw new ArtifactRefusal(err.message);
      throw err;
    }
  }
}

/** The owner triple as one comparable key; every member takes part (ART-14). */
function ownerKey(o: ResourceOwner): string {
  return JSON.stringify([o.session_id, o.extension_instance_id, o.process_generation]);
}
