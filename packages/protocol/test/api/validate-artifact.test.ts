import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ARTIFACT_MIME_TYPES,
  artifactKind,
  validateArtifactPublishParams,
  validateArtifactPublishResult,
} from "../../src/api/validate-artifact.js";
import {
  MAX_ARTIFACT_BYTES,
  MAX_ARTIFACT_ID_BYTES,
  MAX_ARTIFACT_INLINE_BYTES,
  MAX_ARTIFACT_PATH_BYTES,
  MAX_ARTIFACT_PATH_COMPONENTS,
} from "../../src/bounds.js";
import { accepted, refused } from "../helpers/checked.js";

const SHA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/** Base64 of n zero bytes, without Buffer (the protocol tests run on the pure package). */
const b64 = (n: number): string =>
  "A".repeat(Math.floor(n / 3) * 4) + (n % 3 === 1 ? "AA==" : n % 3 === 2 ? "AAA=" : "");
const inline = (n: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  parent_request_id: 2,
  mime_type: "image/png",
  size: n,
  sha256: SHA,
  data: { encoding: "base64", data: b64(n) },
  ...extra,
});
const byPath = (path: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  parent_request_id: 2,
  mime_type: "audio/wav",
  size: 10,
  sha256: SHA,
  path,
  ...extra,
});

test("ART-02, ART-04: the spec's inline and path publications are accepted; the answer is {artifact_id}", () => {
  const v = accepted(validateArtifactPublishParams(inline(1234)));
  assert.deepEqual(v, {
    parent_request_id: 2,
    mime_type: "image/png",
    size: 1234,
    sha256: SHA,
    source: { kind: "inline", data: b64(1234) },
  });
  const p = accepted(validateArtifactPublishParams(byPath("screenshots/result.png")));
  assert.deepEqual(p.source, { kind: "path", path: "screenshots/result.png" });
  assert.deepEqual(accepted(validateArtifactPublishResult({ artifact_id: "art_x" })), { artifact_id: "art_x" });
  refused(validateArtifactPublishResult({ artifact_id: "" }), "artifact_id", "must not be empty");
  refused(validateArtifactPublishResult({ artifact_id: "a", extra: 1 }), "extra", "unknown member");
  assert.equal(validateArtifactPublishResult({ artifact_id: "a".repeat(MAX_ARTIFACT_ID_BYTES) }).ok, true);
  refused(
    validateArtifactPublishResult({ artifact_id: "a".repeat(MAX_ARTIFACT_ID_BYTES + 1) }),
    "artifact_id",
    `${MAX_ARTIFACT_ID_BYTES + 1} bytes`,
    `${MAX_ARTIFACT_ID_BYTES}-byte limit`,
  );
});

test(
  "ART-02: parent_request_id, mime_type, size and sha256 are required; data is a closed {encoding: " + "base64, data}",
  () => {
    for (const key of ["parent_request_id", "mime_type", "size", "sha256"]) {
      const v = inline(3);
      delete v[key];
      refused(validateArtifactPublishParams(v), key, "missing");
    }
    refused(
      validateArtifactPublishParams(inline(3, { data: { encoding: "hex", data: "00" } })),
      "data.encoding",
      '"hex" is not one of "base64"',
    );
    refused(
      validateArtifactPublishParams(inline(3, { data: { encoding: "base64", data: "AAAA", more: 1 } })),
      "data.more",
      "unknown member",
    );
    refused(
      validateArtifactPublishParams(inline(3, { data: { encoding: "base64", data: "AA*A" } })),
      "data.data",
      "not valid base64",
      "*",
    );
    refused(validateArtifactPublishParams(inline(3, { data: "AAAA" })), "data", "expected an object, got string");
    refused(validateArtifactPublishParams(inline(3, { size: 4 })), "size", "4 does not match the 3 bytes of data");
    assert.equal(
      validateArtifactPublishParams(inline(3, { unknown_member: true })).ok,
      true,
      "params are open (FRAME-15)",
    );
  },
);

test("ART-03: both sources, or neither, is refused", () => {
  refused(validateArtifactPublishParams(inline(3, { path: "a.png" })), "both data and path", "exactly one source");
  const none = inline(3);
  delete none["data"];
  refused(validateArtifactPublishParams(none), "neither data nor path", "exactly one source");
  assert.equal(validateArtifactPublishParams(inline(3, { path: null })).ok, true, "a null path reads as absent");
});

test("ART-12, ART-13: inline data is at most 256 KiB decoded (base64 text may be longer); one past is refused", () => {
  const at = accepted(validateArtifactPublishParams(inline(MAX_ARTIFACT_INLINE_BYTES)));
  assert.equal(at.size, MAX_ARTIFACT_INLINE_BYTES);
  assert.ok(
    (at.source as { data: string }).data.length > MAX_ARTIFACT_INLINE_BYTES,
    "the base64 text is over 256 KiB: the bound is on decoded bytes",
  );
  refused(
    validateArtifactPublishParams(inline(MAX_ARTIFACT_INLINE_BYTES + 1)),
    "data.data",
    `${MAX_ARTIFACT_INLINE_BYTES + 1} decoded bytes`,
    `${MAX_ARTIFACT_INLINE_BYTES}-byte inline limit`,
  );
});

test("ART-12: size is an integer from 1 to 20 MiB; one past is refused", () => {
  assert.equal(
    accepted(validateArtifactPublishParams(byPath("a.wav", { size: MAX_ARTIFACT_BYTES }))).size,
    MAX_ARTIFACT_BYTES,
  );
  refused(
    validateArtifactPublishParams(byPath("a.wav", { size: MAX_ARTIFACT_BYTES + 1 })),
    "size",
    `${MAX_ARTIFACT_BYTES + 1} bytes`,
    `${MAX_ARTIFACT_BYTES}-byte artifact limit`,
  );
  refused(validateArtifactPublishParams(byPath("a.wav", { size: 0 })), "size", "0 is below the minimum 1");
  refused(validateArtifactPublishParams(byPath("a.wav", { size: 1.5 })), "size", "expected an integer, got 1.5");
});

test("ART-08: sha256 must be 64 lowercase hex digits", () => {
  refused(
    validateArtifactPublishParams(byPath("a.wav", { sha256: SHA.toUpperCase() })),
    "sha256",
    "uppercase",
    "expected lowercase",
  );
  refused(
    validateArtifactPublishParams(byPath("a.wav", { sha256: SHA.slice(1) })),
    "sha256",
    "not 64 lowercase hex digits",
  );
  refused(
    validateArtifactPublishParams(byPath("a.wav", { sha256: `${SHA}0` })),
    "sha256",
    "not 64 lowercase hex digits",
  );
  refused(
    validateArtifactPublishParams(byPath("a.wav", { sha256: SHA.replace("0", "g") })),
    "sha256",
    "not 64 lowercase hex digits",
  );
});

test(
  "ART-10, ART-11: exactly the ten canonical MIME types; aliases are refused as non-canonical, naming the " +
    "canonical one",
  () => {
    assert.deepEqual(Object.keys(ARTIFACT_MIME_TYPES), [
      "image/png",
      "image/jpeg",
      "image/gif",
      "image/webp",
      "audio/wav",
      "audio/mpeg",
      "audio/flac",
      "audio/opus",
      "audio/aac",
      "audio/mp4",
    ]);
    for (const mime of Object.keys(ARTIFACT_MIME_TYPES)) {
      assert.equal(accepted(validateArtifactPublishParams(byPath("a", { mime_type: mime }))).mime_type, mime);
      assert.equal(artifactKind(mime), mime.split("/")[0]);
    }
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "image/jpg" })),
      "mime_type",
      '"image/jpg" is not canonical',
      '"image/jpeg"',
    );
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "audio/mp3" })),
      "mime_type",
      "not canonical",
      '"audio/mpeg"',
    );
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "audio/x-wav" })),
      "mime_type",
      "not canonical",
      '"audio/wav"',
    );
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "IMAGE/PNG" })),
      "mime_type",
      "not canonical",
      '"image/png"',
    );
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "image/png; charset=x" })),
      "mime_type",
      "not a supported artifact type",
    );
    refused(
      validateArtifactPublishParams(byPath("a", { mime_type: "video/mp4" })),
      "mime_type",
      '"video/mp4" is not a supported artifact type',
    );
    assert.equal(artifactKind("image/jpg"), undefined);
    assert.equal(artifactKind("toString"), undefined, "inherited names are not types");
  },
);

test("ART-06: the path is relative, at most 4096 bytes and 64 components; one past each is refused", () => {
  const atBytes = `${"d/".repeat(63)}${"f".repeat(MAX_ARTIFACT_PATH_BYTES - 126)}`;
  assert.equal(atBytes.length, MAX_ARTIFACT_PATH_BYTES);
  assert.equal(accepted(validateArtifactPublishParams(byPath(atBytes))).source.kind, "path");
  refused(
    validateArtifactPublishParams(byPath(`${atBytes}f`)),
    "path",
    `${MAX_ARTIFACT_PATH_BYTES + 1} bytes`,
    `${MAX_ARTIFACT_PATH_BYTES}-byte path limit`,
  );
  const components = (n: number): string => Array.from({ length: n }, (_, i) => `c${i}`).join("/");
  assert.equal(validateArtifactPublishParams(byPath(components(MAX_ARTIFACT_PATH_COMPONENTS))).ok, true);
  refused(
    validateArtifactPublishParams(byPath(components(MAX_ARTIFACT_PATH_COMPONENTS + 1))),
    "path",
    `${MAX_ARTIFACT_PATH_COMPONENTS + 1} components`,
    `${MAX_ARTIFACT_PATH_COMPONENTS}-component limit`,
  );
});

test("ART-06: absolute paths, parent traversal and ambiguous spellings are refused on the raw string", () => {
  refused(validateArtifactPublishParams(byPath("/etc/passwd")), "path", "is absolute");
  refused(validateArtifactPublishParams(byPath("../x.png")), "path", '".." component', "parent traversal");
  refused(validateArtifactPublishParams(byPath("a/../../x.png")), "path", '".." component');
  refused(validateArtifactPublishParams(byPath("a/./x.png")), "path", '"." component');
  refused(validateArtifactPublishParams(byPath("%2e%2E/x.png")), "path", '"%2e%2E" component');
  refused(validateArtifactPublishParams(byPath("a//x.png")), "path", "empty component");
  refused(validateArtifactPublishParams(byPath("a/")), "path", "empty component");
  refused(validateArtifactPublishParams(byPath("a\\..\\x.png")), "path", "backslash");
  refused(validateArtifactPublishParams(byPath("a\u0000.png")), "path", "control character U+0000");
  refused(validateArtifactPublishParams(byPath("")), "path", "must not be empty");
  refused(validateArtifactPublishParams(byPath(7)), "path", "expected a string, got number");
  assert.equal(
    validateArtifactPublishParams(byPath("..hidden/x..png")).ok,
    true,
    "dots inside a name are ordinary characters",
  );
});
