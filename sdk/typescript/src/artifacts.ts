/**
 * ctx.publishArtifact (W 2.8): publishes image or audio bytes to the host and returns the id and
 * the content part that names it in a result. The SDK computes size and SHA-256 itself and picks
 * the source: bytes up to the 256 KiB inline bound travel inline as base64; larger bytes are
 * written to a private file in OCTET_EXTENSION_SCRATCH, published by path and removed once the
 * host answered (it keeps its own snapshot). A `{path}` source is a file the extension already
 * wrote under the scratch directory.
 *
 * Refused here, before anything is sent, with an error naming the value and the limit: API 0.1,
 * a host that did not negotiate `artifacts`, a non-canonical MIME type, an oversized artifact,
 * a bad path, or a call outside an active tool/call or command/execute.
 */
import { join } from "node:path";
import { nodeBuiltin } from "./node-builtin.js";
import {
  ErrorCode,
  WireError,
  artifactKind,
  bounds,
  validateArtifactPublishParams,
  validateArtifactPublishResult,
  type ContentPart,
} from "@octet/protocol";
import type { Link, RequestScope } from "./request-scope.js";
import { parentOf, send } from "./reverse-requests.js";
import type { ArtifactSourceInput, PublishArtifactOptions, PublishedArtifact } from "./types.js";

export async function publishArtifact(
  scope: RequestScope,
  link: Link,
  source: ArtifactSourceInput,
  mimeType: string,
  options: PublishArtifactOptions = {},
): Promise<PublishedArtifact> {
  if (link.api === "0.1")
    throw new Error("publishArtifact() needs API 0.2 or later (artifact/publish is not part of API 0.1)");
  if (!link.features.has("artifacts")) {
    throw new Error(
      "publishArtifact() needs the artifacts feature, which this host did not offer (a host offers it when " +
        "its embedder binds an artifacts service)",
    );
  }
  const parent = parentOf(scope, "publishArtifact");
  const kind = artifactKind(mimeType);
  if (kind === undefined) {
    const named = validateArtifactPublishParams({ mime_type: mimeType });
    const problem = named.ok ? "" : named.problems.find((p) => p.startsWith("mime_type"));
    throw new RangeError(`publishArtifact(): ${problem ?? `mime_type ${JSON.stringify(mimeType)} is not supported`}`);
  }
  // Loaded here, not at the SDK's import: node:crypto alone is about 6 ms of every extension's
  // start, and most extensions never publish an artifact. Synchronously: the bytes are still read
  // and the request sent in the caller's turn, as before.
  const { createHash, randomBytes } = nodeBuiltin<typeof import("node:crypto")>("node:crypto");
  const { readFile, unlink, writeFile } = nodeBuiltin<typeof import("node:fs/promises")>("node:fs/promises");
  let temp: string | null = null;
  try {
    let bytes: Uint8Array;
    let where: Record<string, unknown>;
    if (source instanceof Uint8Array) {
      bytes = source;
      checkSize(bytes.length);
      if (bytes.length <= bounds.MAX_ARTIFACT_INLINE_BYTES)
        where = {
          data: {
            encoding: "base64",
            data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
          },
        };
      else {
        const name = `.octet-artifact-${randomBytes(12).toString("hex")}`;
        // "wx": never write through a file someone else put there; 0o600: nobody else reads it.
        await writeFile(join(scratchDir(), name), bytes, { flag: "wx", mode: 0o600 });
        temp = name;
        where = { path: name };
      }
    } else if (typeof source === "object" && source !== null && typeof source.path === "string") {
      bytes = await readFile(join(scratchDir(), source.path));
      checkSize(bytes.length);
      where = { path: source.path };
    } else {
      throw new TypeError(
        "publishArtifact() takes the bytes (a Uint8Array or Buffer) or {path} relative to OCTET_EXTENSION_SCRATCH",
      );
    }
    const params = {
      parent_request_id: parent,
      mime_type: mimeType,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      ...where,
    };
    const checked = validateArtifactPublishParams(params);
    if (!checked.ok) throw new RangeError(`publishArtifact(): ${checked.problems.join("; ")}`);
    let answer: unknown;
    try {
      answer = await send(scope, link, "artifact/publish", params);
    } catch (err) {
      if (err instanceof WireError && err.code === ErrorCode.InvalidParams)
        throw new Error(`the host refused artifact/publish: ${err.message}`);
      throw err;
    }
    const result = validateArtifactPublishResult(answer);
    if (!result.ok)
      throw new Error(`the host answered artifact/publish with an invalid result: ${result.problems.join("; ")}`);
    const id = result.value.artifact_id;
    return { artifactId: id, mimeType, part: part(kind, id, mimeType, options) };
  } finally {
    if (temp !== null) await unlink(join(scratchDir(), temp)).catch(() => undefined);
  }
}

function part(kind: "image" | "audio", id: string, mimeType: string, options: PublishArtifactOptions): ContentPart {
  if (kind === "image")
    return options.alt === undefined
      ? { type: "image", artifact_id: id, mime_type: mimeType }
      : { type: "image", artifact_id: id, mime_type: mimeType, alt: options.alt };
  return options.transcript === undefined
    ? { type: "audio", artifact_id: id, mime_type: mimeType }
    : { type: "audio", artifact_id: id, mime_type: mimeType, transcript: options.transcript };
}

function checkSize(n: number): void {
  if (n > bounds.MAX_ARTIFACT_BYTES)
    throw new RangeError(`publishArtifact(): ${n} bytes, over the ${bounds.MAX_ARTIFACT_BYTES}-byte artifact limit`);
}

function scratchDir(): string {
  const dir = process.env["OCTET_EXTENSION_SCRATCH"];
  if (!dir)
    throw new Error(
      "publishArtifact() needs OCTET_EXTENSION_SCRATCH, which the host sets for every extension process; it is not set",
    );
  return dir;
}
