/**
 * Loading one pi-extension.json: the trust gate, the bounded read, the parse and the launch
 * checks, in that order, so an untrusted project's manifest is not even read and nothing is
 * launched from a manifest that failed any step (RPI-02, RPI-13..16). Where manifests are found
 * (packages, settings.json) is the caller's concern.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { entryKind, errnoCode } from "./fs-facts.js";
import { RPI_MANIFEST_FILE, parseRpiManifest } from "./rpi-manifest.js";
import type { RpiManifest, RpiManifestError } from "./rpi-manifest.js";
import { resolveRpiLaunch, untrustedProjectMessage } from "./resolve-launch.js";
import type { RpiLaunch, RpiLaunchOptions } from "./resolve-launch.js";

/** A manifest is a few hundred bytes; 64 KiB leaves room for long argv without letting a file stall the host. */
export const RPI_MAX_MANIFEST_BYTES = 64 * 1024;

export type RpiLoadResult =
  | { ok: true; manifestPath: string; manifest: RpiManifest; launch: RpiLaunch }
  | { ok: false; manifestPath: string; errors: RpiManifestError[] };

const fileError = (file: string, text: string): { error: RpiManifestError } => ({
  error: { file, key: "", message: `${file}: ${text}` },
});

/**
 * Reads at most RPI_MAX_MANIFEST_BYTES + 1 bytes of a manifest: the size is checked on the open
 * handle before reading, and the read stops one byte past the bound in case the file grows. The
 * open is non-blocking so a FIFO cannot stall the host; only a regular file of valid UTF-8 passes
 * (a leading UTF-8 BOM is dropped by the decoder).
 */
export async function readRpiManifestFile(file: string): Promise<{ text: string } | { error: RpiManifestError }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") {
      return fileError(
        file,
        `no ${RPI_MANIFEST_FILE} here: every rpi extension needs an explicit ${RPI_MANIFEST_FILE} manifest, and one ` +
          `without it is not loaded`,
      );
    }
    return fileError(file, `cannot open the manifest (${code})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return fileError(file, `the manifest must be a regular file, but it is ${entryKind(st)}`);
    const limit = RPI_MAX_MANIFEST_BYTES;
    const tooBig = (n: number): { error: RpiManifestError } =>
      fileError(file, `the manifest is ${n} bytes, over the ${limit}-byte (64 KiB) manifest limit`);
    if (st.size > limit) return tooBig(st.size);
    const buf = new Uint8Array(limit + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > limit) return tooBig(filled);
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, filled)) };
    } catch {
      return fileError(file, "the manifest is not valid UTF-8");
    }
  } catch (err) {
    return fileError(file, `cannot read the manifest (${errnoCode(err)})`);
  } finally {
    await handle.close();
  }
}

/**
 * Loads the manifest at `manifestPath` (made absolute, so every message names it unambiguously)
 * and checks it for launch. Each step's problems fail the load; only the parse reports several
 * problems at once, the other steps stop at their first.
 */
export async function loadRpiManifest(manifestPath: string, options: RpiLaunchOptions): Promise<RpiLoadResult> {
  const file = path.resolve(manifestPath);
  if (options.source === "project" && !options.projectTrusted) {
    return { ok: false, manifestPath: file, errors: [{ file, key: "", message: untrustedProjectMessage(file) }] };
  }
  const read = await readRpiManifestFile(file);
  if ("error" in read) return { ok: false, manifestPath: file, errors: [read.error] };
  const parsed = parseRpiManifest(read.text, file);
  if (!parsed.ok) return { ok: false, manifestPath: file, errors: parsed.errors };
  const resolved = await resolveRpiLaunch(parsed.manifest, file, options);
  if (!resolved.ok)
    return { ok: false, manifestPath: file, errors: [{ file, key: resolved.key, message: resolved.error }] };
  return { ok: true, manifestPath: file, manifest: parsed.manifest, launch: resolved.launch };
}
