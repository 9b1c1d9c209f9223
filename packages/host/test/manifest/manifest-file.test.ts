import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bounds } from "@octet/protocol";
import { parseManifest } from "../../src/manifest/manifest.js";
import { readManifestFile } from "../../src/manifest/manifest-file.js";

const MANIFEST = 'name = "hello-tools"\nversion = "0.1.0"\napi_version = "0.4"\n[entrypoint]\ncommand = "python3"\n';

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), "octet-manifest-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A valid manifest padded with a trailing comment to exactly `size` bytes. */
function padded(size: number): string {
  const base = MANIFEST + "# ";
  return base + "x".repeat(size - Buffer.byteLength(base) - 1) + "\n";
}

test("MAN-08: a 256 KiB manifest is read, one byte more is refused naming the size bound", async () => {
  await withTemp(async (dir) => {
    const atPath = path.join(dir, "at.toml");
    await writeFile(atPath, padded(bounds.MAX_MANIFEST_BYTES));
    const at = await readManifestFile(atPath);
    if (!("text" in at)) assert.fail(at.error.message);
    assert.equal(Buffer.byteLength(at.text), 262_144);
    assert.equal(parseManifest(at.text, atPath).ok, true);

    const pastPath = path.join(dir, "past.toml");
    await writeFile(pastPath, padded(bounds.MAX_MANIFEST_BYTES + 1));
    const past = await readManifestFile(pastPath);
    if (!("error" in past)) assert.fail("expected a size error");
    assert.equal(past.error.rule, "bound");
    assert.equal(past.error.code, "manifest_invalid");
    assert.equal(past.error.file, pastPath);
    assert.equal(
      past.error.message,
      `${pastPath}: manifest is 262145 bytes, over the 262144-byte (256 KiB) manifest limit`,
    );
  });
});

test("MAN-08: a much larger manifest is refused without reading it all", async () => {
  await withTemp(async (dir) => {
    const p = path.join(dir, "huge.toml");
    await writeFile(p, Buffer.alloc(8 * 1_048_576, 0x61));
    const r = await readManifestFile(p);
    if (!("error" in r)) assert.fail("expected a size error");
    assert.match(r.error.message, /manifest is 8388608 bytes, over the 262144-byte/);
  });
});

test("MAN-08: directories, FIFOs, missing files and invalid UTF-8 are refused", async () => {
  await withTemp(async (dir) => {
    const sub = path.join(dir, "sub");
    await mkdir(sub);
    const d = await readManifestFile(sub);
    if (!("error" in d)) assert.fail("expected an error for a directory");
    assert.equal(d.error.rule, "not_regular_file");
    assert.equal(d.error.message, `${sub}: manifest must be a regular file, but it is a directory`);

    const fifo = path.join(dir, "fifo");
    let haveFifo = true;
    try {
      execFileSync("mkfifo", [fifo]);
    } catch {
      haveFifo = false;
    }
    if (haveFifo) {
      const f = await readManifestFile(fifo); // must not block waiting for a writer
      if (!("error" in f)) assert.fail("expected an error for a FIFO");
      assert.match(f.error.message, /it is a FIFO$/);
    }

    const missing = path.join(dir, "missing.toml");
    const m = await readManifestFile(missing);
    if (!("error" in m)) assert.fail("expected an error for a missing file");
    assert.equal(m.error.rule, "read");
    assert.equal(m.error.message, `${missing}: cannot open manifest (ENOENT: no such file or directory)`);

    const bad = path.join(dir, "bad.toml");
    await writeFile(bad, Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x20, 0x3d, 0x20, 0x22, 0xff, 0x22, 0x0a]));
    const b = await readManifestFile(bad);
    if (!("error" in b)) assert.fail("expected a UTF-8 error");
    assert.equal(b.error.rule, "utf8");
    assert.equal(b.error.message, `${bad}: manifest is not valid UTF-8`);
  });
});
