/**
 * The artifacts service against real processes: artifact/publish on the wire (fake-ext-v2.mjs
 * sends exactly what a test asks), media parts of results and partial results resolved through
 * the generation's store, owner and generation fencing across extensions and reloads, and the
 * media example through the TypeScript SDK.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ExtensionHost, type HostEvent, type ToolCallOutcome } from "@octet/host";
import type { ProgressEvent } from "@octet/protocol";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, processesMentioning, runCli } from "./helpers.js";
import { REQUIRED, json, withRuntime, type Runtime } from "./runtime-helpers.js";

/** A real 1x1 PNG (IHDR, IDAT, IEND). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const text = (t: string): { type: "text"; text: string } => ({ type: "text", text: t });
const WITH_ARTIFACTS = { features: [...REQUIRED, "request_progress", "artifacts"] };

function publishParams(bytes: Buffer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    parent_request_id: "self",
    mime_type: "image/png",
    size: bytes.length,
    sha256: sha(bytes),
    data: { encoding: "base64", data: bytes.toString("base64") },
    ...extra,
  };
}

/** Sends artifact/publish from inside a tool call of `tool` extension; returns the host's answer. */
async function publish(
  rt: Runtime,
  params: Record<string, unknown>,
): Promise<{ result?: { artifact_id: string }; error?: { code: number; message: string } }> {
  return json(await rt.host.callTool("ask", { method: "artifact/publish", params }));
}

async function resultWith(rt: Runtime, content: unknown[]): Promise<ToolCallOutcome> {
  return rt.host.callTool("result", { result: { content, is_error: false } });
}

test(
  "ART-01, ART-04, CALL-18: a published artifact gets an opaque id, and a result naming it carries the verified " +
    "bytes",
  async () => {
    await withRuntime([{ name: "art", config: WITH_ARTIFACTS }], { services: { artifacts: true } }, async (rt) => {
      const offered = rt.received("art", "initialize")[0]!.params.protocol.optional_features as string[];
      assert.ok(offered.includes("artifacts"), "the bound service makes the host offer artifacts");
      const answer = await publish(rt, publishParams(PNG));
      assert.ok(answer.result, JSON.stringify(answer));
      const id = answer.result.artifact_id;
      assert.match(id, /^art_[A-Za-z0-9_-]+$/);
      assert.deepEqual(Object.keys(answer.result), ["artifact_id"]);
      const outcome = await resultWith(rt, [
        text("a pixel"),
        { type: "image", artifact_id: id, mime_type: "image/png", alt: "one pixel" },
      ]);
      assert.equal(outcome.is_error, false, outcome.text);
      assert.equal(outcome.media?.length, 1);
      assert.deepEqual(Buffer.from(outcome.media![0]!.bytes), PNG);
      assert.equal(outcome.media![0]!.part, 1);
      assert.equal(outcome.media![0]!.sha256, sha(PNG));
      assert.deepEqual(
        Buffer.from(rt.host.artifact("art", id)!.bytes),
        PNG,
        "the embedder can look the artifact up by id",
      );
      assert.equal(rt.host.artifact("art", "art_unknown"), undefined);
    });
  },
);

test(
  "ART-01: artifact/publish is refused when artifacts was not " + "negotiated, and the feature is not offered unbound",
  async () => {
    await withRuntime([{ name: "plain" }], { services: { artifacts: true } }, async (rt) => {
      const answer = await publish(rt, publishParams(PNG));
      assert.equal(answer.error?.code, -32601);
      assert.match(
        answer.error!.message,
        /^unsupported_feature artifact\/publish needs the artifacts feature, which was not negotiated/,
      );
    });
    await withRuntime([{ name: "unbound" }], {}, async (rt) => {
      const offered = rt.received("unbound", "initialize")[0]!.params.protocol.optional_features as string[];
      assert.equal(offered.includes("artifacts"), false);
      const answer = await publish(rt, publishParams(PNG));
      assert.equal(answer.error?.code, -32601);
    });
  },
);

test(
  "ART-02, ART-03, ART-05, ART-06, ART-08, ART-09: malformed or rejected publications answer -32602 naming the " +
    "value; no active parent answers -32002",
  async () => {
    await withRuntime([{ name: "art", config: WITH_ARTIFACTS }], { services: { artifacts: true } }, async (rt) => {
      const invalid = async (params: Record<string, unknown>, pattern: RegExp): Promise<void> => {
        const answer = await publish(rt, params);
        assert.equal(answer.error?.code, -32602, JSON.stringify(answer));
        assert.match(answer.error!.message, pattern);
      };
      await invalid(
        publishParams(PNG, { path: "a.png" }),
        /both data and path are given; exactly one source is required/,
      );
      const { data: _data, ...neither } = publishParams(PNG);
      await invalid(neither, /neither data nor path/);
      await invalid(publishParams(PNG, { data: undefined, path: "../outside.png" }), /parent traversal/);
      await invalid(publishParams(PNG, { data: undefined, path: "/etc/hostname" }), /is absolute/);
      await invalid(
        publishParams(PNG, { data: undefined, path: "missing.png" }),
        /"missing\.png" does not exist in the scratch directory/,
      );
      await invalid(publishParams(PNG, { sha256: sha(Buffer.from("x")) }), /sha256 mismatch/);
      await invalid(publishParams(PNG, { sha256: sha(PNG).toUpperCase() }), /uppercase/);
      await invalid(publishParams(PNG, { mime_type: "image/gif" }), /do not match the declared mime_type image\/gif/);
      await invalid(publishParams(PNG, { mime_type: "image/jpg" }), /"image\/jpg" is not canonical; use "image\/jpeg"/);
      const unavailable = async (params: Record<string, unknown>): Promise<void> => {
        const answer = await publish(rt, params);
        assert.equal(answer.error?.code, -32002, JSON.stringify(answer));
      };
      await unavailable(publishParams(PNG, { parent_request_id: undefined }));
      await unavailable(publishParams(PNG, { parent_request_id: 999_999 }));
      assert.equal(rt.host.status()[0]!.state, "ready");
    });
  },
);

test(
  "CALL-18: unknown ids, a wrong MIME type or a wrong kind turn " + "the result into a tool error with the reason",
  async () => {
    await withRuntime([{ name: "art", config: WITH_ARTIFACTS }], { services: { artifacts: true } }, async (rt) => {
      const id = (await publish(rt, publishParams(PNG))).result!.artifact_id;
      const refused = async (content: unknown[], pattern: RegExp): Promise<void> => {
        const outcome = await resultWith(rt, content);
        assert.equal(outcome.is_error, true);
        assert.match(outcome.text, /^Tool result returned an invalid result: /);
        assert.match(outcome.text, pattern);
        assert.equal(outcome.media, undefined);
      };
      await refused(
        [text("x"), { type: "image", artifact_id: "art_made_up", mime_type: "image/png" }],
        /content\[1\]: unknown artifact "art_made_up"/,
      );
      await refused(
        [text("x"), { type: "image", artifact_id: id, mime_type: "image/webp" }],
        /mime_type "image\/webp" does not match artifact/,
      );
      await refused(
        [text("x"), { type: "audio", artifact_id: id, mime_type: "image/png" }],
        /an audio part names image artifact/,
      );
    });
  },
);

test(
  "ART-14: another extension's process never resolves an id it " + "learned; ART-15: a reload makes every id unknown",
  async () => {
    await withRuntime(
      [
        { name: "a", config: WITH_ARTIFACTS, tools: ["ask", "result"] },
        { name: "b", config: WITH_ARTIFACTS, tools: ["typed"] },
      ],
      { services: { artifacts: true } },
      async (rt) => {
        const id = (await publish(rt, publishParams(PNG))).result!.artifact_id;
        assert.equal(
          (await resultWith(rt, [text("mine"), { type: "image", artifact_id: id, mime_type: "image/png" }])).is_error,
          false,
        );
        // b's only tool answers what it is told: here a result naming a's artifact.
        const foreign = await rt.host.callTool("typed", {
          result: {
            content: [text("stolen"), { type: "image", artifact_id: id, mime_type: "image/png" }],
            structured_content: { count: 1 },
          },
        });
        assert.equal(foreign.is_error, true);
        assert.match(foreign.text, /unknown artifact/);
        assert.equal(rt.host.artifact("b", id), undefined, "the other extension's lookup sees nothing");

        await rt.host.reload("a");
        const stale = await resultWith(rt, [
          text("after reload"),
          { type: "image", artifact_id: id, mime_type: "image/png" },
        ]);
        assert.equal(stale.is_error, true);
        assert.match(stale.text, /unknown artifact/);
        assert.equal(rt.host.artifact("a", id), undefined);
      },
    );
  },
);

test(
  "CALL-18, PROG-12: a partial_result's media resolve through the store too; an unknown one is ignored with a " +
    "diagnostic",
  async () => {
    const features = { features: [...REQUIRED, "request_progress", "artifacts"] };
    await withRuntime([{ name: "p", api: "0.4", config: features }], { services: { artifacts: true } }, async (rt) => {
      const id = (await publish(rt, publishParams(PNG))).result!.artifact_id;
      const partial = (sequence: number, artifact: string) => ({
        sequence,
        event: {
          type: "partial_result",
          result: { content: [text("so far"), { type: "image", artifact_id: artifact, mime_type: "image/png" }] },
        },
      });
      const events: ProgressEvent[] = [];
      await rt.host.callTool(
        "progress",
        { steps: [partial(1, id), partial(2, "art_nope")] },
        { onProgress: (e) => events.push(e) },
      );
      assert.equal(events.length, 1, rt.diagnostics().join("\n"));
      assert.equal(events[0]!.type, "partial_result");
      await rt.waitDiagnostic(/ignored partial_result for request \d+: content\[1\]: unknown artifact "art_nope"/);
    });
  },
);

test(
  "ART-07, CALL-18: the media example returns a PNG published inline and a WAV published from its scratch " +
    "directory, through the SDK",
  async () => {
    const events: HostEvent[] = [];
    const host = await ExtensionHost.start({
      workspace: EXAMPLES,
      extensionDirs: [EXAMPLES],
      enable: ["media"],
      services: { artifacts: true },
      onEvent: (e) => events.push(e),
    });
    try {
      assert.equal(host.status().find((s) => s.name === "media")?.state, "ready");
      const image = await host.callTool("gradient_png", { width: 20, height: 10 });
      assert.equal(image.is_error, false, image.text);
      assert.equal(image.parts[1]?.type, "image");
      const png = Buffer.from(image.media![0]!.bytes);
      assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from("PNG")]);
      assert.equal(png.readUInt32BE(16), 20, "IHDR width");
      assert.equal(png.readUInt32BE(20), 10, "IHDR height");
      const tone = await host.callTool("tone_wav", { ms: 250, hz: 330 });
      assert.equal(tone.is_error, false, tone.text);
      const wav = Buffer.from(tone.media![0]!.bytes);
      assert.equal(tone.media![0]!.mime_type, "audio/wav");
      assert.equal(wav.toString("latin1", 8, 12), "WAVE");
      assert.equal(wav.length, 44 + 2 * 4000, "250 ms at 16 kHz, 16-bit mono");
    } finally {
      await host.shutdown();
    }
    assert.deepEqual(processesMentioning("examples/media"), []);
  },
);

test(
  "ART-01: without a bound artifacts service the SDK refuses publishArtifact locally, and the tool fails with the " +
    "reason",
  async () => {
    const host = await ExtensionHost.start({ workspace: EXAMPLES, extensionDirs: [EXAMPLES], enable: ["media"] });
    try {
      const r = await host.callTool("gradient_png", {});
      assert.equal(r.is_error, true);
      assert.match(r.text, /publishArtifact\(\) needs the artifacts feature, which this host did not offer/);
    } finally {
      await host.shutdown();
    }
  },
);

test(
  "CALL-18: octet call saves a result's media to --media-dir, " + "never overwriting, and --json lists the paths",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-media-"));
    try {
      const base = ["--extension-dir", EXAMPLES, "--enable-extension", "media", "--media-dir", dir];
      const first = await runCli([...base, "--json", "call", "gradient_png", '{"width":8,"height":4}']);
      assert.equal(first.code, 0, first.stderr);
      const out = JSON.parse(first.stdout) as {
        media: { path: string; mime_type: string; size: number; sha256: string; part: number }[];
      };
      assert.equal(out.media.length, 1);
      const saved = out.media[0]!;
      assert.equal(saved.path, join(dir, "gradient_png-1.png"));
      assert.equal(saved.mime_type, "image/png");
      assert.equal(saved.part, 1);
      const bytes = await readFile(saved.path);
      assert.equal(bytes.length, saved.size);
      assert.equal(sha(bytes), saved.sha256);
      assert.match(
        first.stderr,
        new RegExp(`saved image/png \\(${saved.size} bytes\\) to ${saved.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
      );
      const second = await runCli([...base, "call", "tone_wav", '{"ms":20}']);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /A 20 ms 440 Hz tone/);
      assert.match(second.stderr, /saved audio\/wav \(\d+ bytes\) to .*tone_wav-1\.wav/);
      const third = await runCli([...base, "call", "gradient_png", "{}"]);
      assert.match(third.stderr, /gradient_png-2\.png/, "an existing file is not overwritten");
      assert.deepEqual(sha(await readFile(saved.path)), saved.sha256);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

test(
  "ENV-02: an artifact path is resolved in the generation's OCTET_EXTENSION_SCRATCH, never in the workspace (the " +
    "child's cwd)",
  async () => {
    const workspace = await mkdtemp(join(tmpdir(), "octet-env02-"));
    // Decoys in the workspace under every name the example could pick: a host resolving against the
    // cwd would read one of these (not a WAV) instead of the file the extension wrote to scratch.
    for (let id = 0; id < 50; id++) await writeFile(join(workspace, `tone-${id}.wav`), "not a wav, from the workspace");
    const host = await ExtensionHost.start({
      workspace,
      extensionDirs: [EXAMPLES],
      enable: ["media"],
      services: { artifacts: true },
    });
    try {
      const tone = await host.callTool("tone_wav", { ms: 100, hz: 440 });
      assert.equal(tone.is_error, false, tone.text);
      const wav = Buffer.from(tone.media![0]!.bytes);
      assert.equal(wav.toString("latin1", 0, 4), "RIFF");
      assert.equal(wav.length, 44 + 2 * 1600, "the 100 ms WAV the extension wrote to its scratch directory");
    } finally {
      await host.shutdown();
      await rm(workspace, { recursive: true, force: true });
    }
  },
);
