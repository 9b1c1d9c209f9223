/**
 * ArtifactStore: verification of each publication (size, digest, MIME signature), the
 * per-generation quotas at their limits, owner fencing, clearing, and media resolution of results.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  bounds,
  type ArtifactMimeType,
  type ArtifactPublishParams,
  type ContentPart,
  type ResourceOwner,
} from "@octet/protocol";
import { ArtifactRefusal, ArtifactStore, artifactLimits } from "../../../src/modules/artifacts/artifact-store.js";
import { SAMPLES, gif, png, wav } from "./media-samples.js";

const OWNER: ResourceOwner = { session_id: "s-1", extension_instance_id: "i-1", process_generation: 1 };
const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const MiB = 1_048_576;

function inline(
  bytes: Buffer,
  mime: ArtifactMimeType,
  over: Partial<ArtifactPublishParams> = {},
): ArtifactPublishParams {
  return {
    parent_request_id: 1,
    mime_type: mime,
    size: bytes.length,
    sha256: sha(bytes),
    source: { kind: "inline", data: bytes.toString("base64") },
    ...over,
  };
}

function scratch(): { dir: string; put: (name: string, b: Buffer) => ArtifactPublishParams; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "octet-store-"));
  return {
    dir,
    put: (name, b) => {
      writeFileSync(join(dir, name), b);
      return {
        parent_request_id: 1,
        mime_type: "audio/wav",
        size: b.length,
        sha256: sha(b),
        source: { kind: "path", path: name },
      };
    },
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A valid WAV of exactly n bytes (silence), for the quota tests. */
function wavOf(n: number): Buffer {
  const b = wav(Math.floor((n - 44) / 2));
  assert.equal(b.length, n);
  return b;
}

async function refused(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: Error) => err instanceof ArtifactRefusal && pattern.test(err.message));
}

test("ART-04, ART-09: every supported format is published inline and read back under an opaque id", async () => {
  const store = new ArtifactStore(() => null);
  const ids = new Set<string>();
  for (const mime of Object.keys(SAMPLES) as ArtifactMimeType[]) {
    const bytes = SAMPLES[mime]();
    const id = await store.publish(inline(bytes, mime), OWNER);
    assert.match(id, /^art_[A-Za-z0-9_-]{22}$/, "opaque: says nothing about the owner, the generation or the content");
    ids.add(id);
    const a = store.get(id, OWNER)!;
    assert.deepEqual(Buffer.from(a.bytes), bytes);
    assert.equal(a.mime_type, mime);
    assert.equal(a.kind, mime.split("/")[0]);
    assert.equal(a.sha256, sha(bytes));
  }
  assert.equal(ids.size, 10);
  assert.deepEqual(store.usage.artifacts, 10);
});

test("ART-08: a size or SHA-256 that does not match the bytes is refused, naming both values", async () => {
  const s = scratch();
  const store = new ArtifactStore(() => s.dir);
  const bytes = png();
  await refused(
    store.publish(inline(bytes, "image/png", { sha256: sha(Buffer.from("other")) }), OWNER),
    new RegExp(`sha256 mismatch: the bytes hash to ${sha(bytes)}, not the declared ${sha(Buffer.from("other"))}`),
  );
  await refused(
    store.publish(inline(bytes, "image/png", { size: bytes.length + 1 }), OWNER),
    new RegExp(`got ${bytes.length} bytes, not the declared size ${bytes.length + 1}`),
  );
  try {
    const p = s.put("a.wav", wav());
    await refused(store.publish({ ...p, size: p.size - 1 }, OWNER), /is \d+ bytes, not the declared size/);
    await refused(store.publish({ ...p, sha256: "0".repeat(64) }, OWNER), /sha256 mismatch/);
  } finally {
    s.done();
  }
  assert.deepEqual(store.usage, { artifacts: 0, bytes: 0 }, "refused publications release their reservation");
});

test("ART-09: bytes that are not the declared MIME type, or a polyglot, are refused", async () => {
  const store = new ArtifactStore(() => null);
  await refused(
    store.publish(inline(png(), "image/gif"), OWNER),
    /do not match the declared mime_type image\/gif: not a GIF/,
  );
  await refused(store.publish(inline(gif(), "image/png"), OWNER), /declared mime_type image\/png: not a PNG/);
  await refused(store.publish(inline(wav(), "audio/mpeg"), OWNER), /declared mime_type audio\/mpeg/);
  const polyglot = Buffer.concat([png(), Buffer.from("PK\u0003\u0004zip", "latin1")]);
  await refused(store.publish(inline(polyglot, "image/png"), OWNER), /bytes after the end of the PNG data/);
});

test("ART-07: a path source goes through the secure scratch read; no scratch directory refuses it", async () => {
  const s = scratch();
  try {
    const store = new ArtifactStore(() => s.dir);
    const bytes = wav();
    const id = await store.publish(s.put("tone.wav", bytes), OWNER);
    writeFileSync(join(s.dir, "tone.wav"), Buffer.alloc(bytes.length));
    assert.deepEqual(Buffer.from(store.get(id, OWNER)!.bytes), bytes, "the snapshot does not follow later writes");
    await refused(new ArtifactStore(() => null).publish(s.put("x.wav", bytes), OWNER), /no scratch directory/);
  } finally {
    s.done();
  }
});

test("ART-12: at most 64 artifacts per generation; the 65th is refused", async () => {
  const store = new ArtifactStore(() => null);
  const bytes = gif();
  for (let i = 0; i < bounds.MAX_GENERATION_ARTIFACTS; i++) await store.publish(inline(bytes, "image/gif"), OWNER);
  await refused(
    store.publish(inline(bytes, "image/gif"), OWNER),
    new RegExp(
      `already holds ${bounds.MAX_GENERATION_ARTIFACTS} artifacts, the limit is ${bounds.MAX_GENERATION_ARTIFACTS}`,
    ),
  );
});

test(
  "ART-12: 20 MiB per artifact and 64 MiB per generation, exactly at the limits; one byte past " + "is refused",
  async () => {
    const s = scratch();
    try {
      const store = new ArtifactStore(() => s.dir);
      const big = wavOf(bounds.MAX_ARTIFACT_BYTES);
      for (let i = 0; i < 3; i++) await store.publish(s.put(`big${i}.wav`, big), OWNER);
      const rest = bounds.MAX_GENERATION_ARTIFACT_BYTES - 3 * bounds.MAX_ARTIFACT_BYTES;
      const last = s.put("rest.wav", wavOf(rest));
      const overByOne = s.put("over.wav", wavOf(rest + 2));
      await refused(
        store.publish(overByOne, OWNER),
        new RegExp(
          `would bring this generation to ${bounds.MAX_GENERATION_ARTIFACT_BYTES + 2} artifact bytes, over the ` +
            `${bounds.MAX_GENERATION_ARTIFACT_BYTES}-byte limit`,
        ),
      );
      await store.publish(last, OWNER);
      assert.deepEqual(store.usage, { artifacts: 4, bytes: 64 * MiB });
      await refused(store.publish(inline(gif(), "image/gif"), OWNER), /over the 67108864-byte limit/);
      const tooBig = new ArtifactStore(() => s.dir);
      await refused(
        tooBig.publish({ ...s.put("huge.wav", big), size: bounds.MAX_ARTIFACT_BYTES + 1 }, OWNER),
        /over the 20971520-byte artifact limit/,
      );
    } finally {
      s.done();
    }
  },
);

test(
  "ART-12: concurrent publications reserve their bytes before reading, so together they cannot pass " + "the quota",
  async () => {
    const store = new ArtifactStore(() => null, { generationArtifacts: 3 });
    const bytes = gif();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => store.publish(inline(bytes, "image/gif"), OWNER)),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 3);
    assert.equal(results.filter((r) => r.status === "rejected").length, 2);
  },
);

test("ART-12: an embedder may lower the limits, never raise them", () => {
  const l = artifactLimits({ artifactBytes: 1024, generationArtifacts: 1_000_000, resultMediaBytes: -5 });
  assert.equal(l.artifactBytes, 1024);
  assert.equal(l.generationArtifacts, bounds.MAX_GENERATION_ARTIFACTS, "raising is clamped to the spec's default");
  assert.equal(l.resultMediaBytes, 0);
  assert.equal(l.generationBytes, bounds.MAX_GENERATION_ARTIFACT_BYTES);
});

test("ART-14: an artifact is visible only to the owner triple that published it", async () => {
  const store = new ArtifactStore(() => null);
  const id = await store.publish(inline(png(), "image/png"), OWNER);
  const parts: ContentPart[] = [
    { type: "text", text: "x" },
    { type: "image", artifact_id: id, mime_type: "image/png" },
  ];
  assert.ok(store.get(id, OWNER));
  for (const other of [
    { ...OWNER, session_id: "s-2" },
    { ...OWNER, extension_instance_id: "i-2" },
    { ...OWNER, process_generation: 2 },
  ]) {
    assert.equal(store.get(id, other), undefined);
    const r = store.resolve(parts, other);
    assert.ok(!r.ok && /content\[1\]: unknown artifact/.test(r.problem), "another owner sees an unknown artifact");
  }
});

test("ART-15: a cleared store (the generation ended) knows no artifact and accepts no more", async () => {
  const store = new ArtifactStore(() => null);
  const id = await store.publish(inline(png(), "image/png"), OWNER);
  store.clear();
  assert.equal(store.get(id, OWNER), undefined);
  await refused(store.publish(inline(png(), "image/png"), OWNER), /generation has ended/);
});

test("CALL-18: result media must name a known artifact whose kind and MIME type match the part", async () => {
  const store = new ArtifactStore(() => null);
  const img = await store.publish(inline(png(), "image/png"), OWNER);
  const snd = await store.publish(inline(wav(), "audio/wav"), OWNER);
  const text: ContentPart = { type: "text", text: "see" };
  const ok = store.resolve(
    [
      text,
      { type: "image", artifact_id: img, mime_type: "image/png" },
      { type: "audio", artifact_id: snd, mime_type: "audio/wav" },
    ],
    OWNER,
  );
  assert.ok(ok.ok);
  assert.deepEqual(
    ok.media.map((m) => [m.part, m.artifact_id, m.mime_type]),
    [
      [1, img, "image/png"],
      [2, snd, "audio/wav"],
    ],
  );
  const problem = (parts: ContentPart[]): string => {
    const r = store.resolve(parts, OWNER);
    assert.ok(!r.ok);
    return r.problem;
  };
  assert.match(
    problem([text, { type: "image", artifact_id: "art_nope", mime_type: "image/png" }]),
    /content\[1\]: unknown artifact "art_nope"/,
  );
  assert.match(
    problem([text, { type: "image", artifact_id: img, mime_type: "image/jpeg" }]),
    /content\[1\]: mime_type "image\/jpeg" does not match artifact .*, which is image\/png/,
  );
  assert.match(
    problem([text, { type: "audio", artifact_id: img, mime_type: "image/png" }]),
    /content\[1\]: an audio part names image artifact/,
  );
  assert.match(
    problem([text, { type: "image", artifact_id: snd, mime_type: "audio/wav" }]),
    /an image part names audio artifact/,
  );
});

test("CALL-19: referenced media total at most 64 MiB per result, repeated references counted each time", async () => {
  const s = scratch();
  try {
    const store = new ArtifactStore(() => s.dir);
    const id = await store.publish(s.put("q.wav", wavOf(16 * MiB)), OWNER);
    const refs = (n: number): ContentPart[] => [
      { type: "text", text: "x" },
      ...Array.from({ length: n }, () => ({ type: "audio" as const, artifact_id: id, mime_type: "audio/wav" })),
    ];
    const at = store.resolve(refs(4), OWNER);
    assert.ok(at.ok && at.media.length === 4, "4 x 16 MiB = 64 MiB is at the limit");
    const over = store.resolve(refs(5), OWNER);
    assert.ok(!over.ok);
    assert.match(
      over.problem,
      new RegExp(
        `references ${5 * 16 * MiB} bytes of media, over the ${bounds.MAX_RESULT_MEDIA_BYTES}-byte limit per result`,
      ),
    );
  } finally {
    s.done();
  }
});
