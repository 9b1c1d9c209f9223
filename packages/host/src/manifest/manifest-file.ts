/**
 * The bounded read of one manifest file (MAN-08): product discovery never reads more than
 * MAX_MANIFEST_BYTES + 1 bytes of a manifest, never blocks on a FIFO, and hands on only valid UTF-8.
 */
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import { open } from "node:fs/promises";
import { bounds } from "@octet/protocol";
import type { ManifestError } from "./manifest-error.js";

/** "ENOENT: no such file or directory" without the path Node appends (the message already names it). */
function ioReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/, \w+ '.*'$/s, "");
}

function fileError(file: string, rule: string, text: string): { error: ManifestError } {
  return { error: { file, key: "", rule, message: `${file}: ${text}`, code: "manifest_invalid" } };
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * Reads one manifest with the product discovery bound (MAN-08): at most MAX_MANIFEST_BYTES + 1
 * bytes are ever read, so an oversized file is refused without reading it. The open is
 * non-blocking so a FIFO cannot stall discovery; anything but a regular file is refused, and the
 * text must be valid UTF-8.
 */
export async function readManifestFile(path: string): Promise<{ text: string } | { error: ManifestError }> {
  const limit = bounds.MAX_MANIFEST_BYTES;
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return fileError(path, "read", `cannot open manifest (${ioReason(err)})`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile())
      return fileError(path, "not_regular_file", `manifest must be a regular file, but it is ${kindOf(st)}`);
    const buf = new Uint8Array(limit + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > limit) {
      return fileError(
        path,
        "bound",
        `manifest is ${Math.max(st.size, filled)} bytes, over the ${limit}-byte (256 KiB) manifest limit`,
      );
    }
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, filled)) };
    } catch {
      return fileError(path, "utf8", "manifest is not valid UTF-8");
    }
  } catch (err) {
    return fileError(path, "read", `cannot read manifest (${ioReason(err)})`);
  } finally {
    await handle.close();
  }
}
