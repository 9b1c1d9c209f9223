/**
 * File helpers the write and edit tools share: an atomic replace (a reader sees the old content or
 * the new, never half of it, and a crash leaves the old file and at most a stray temp file) and a
 * whole-file text read that refuses what is not UTF-8 text.
 */
import { randomBytes } from "node:crypto";
import { open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { describeFsError } from "./types.js";

/** Writes `data` to `file` through a temp file in the same folder, fsynced, then renamed over it. */
export async function writeFileAtomic(file: string, data: Uint8Array, mode?: number): Promise<void> {
  const dir = path.dirname(file);
  // Same folder: rename is atomic only within one file system. A dot name keeps it out of listings.
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.octet-tmp`);
  const handle = await open(temp, "wx", 0o666);
  try {
    try {
      await handle.writeFile(data);
      // An existing file keeps its mode (an executable script stays executable); open's mode is umasked.
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  // The rename is durable once the folder is synced; a folder that cannot be opened for it is no error.
  const folder = await open(dir, "r").catch(() => undefined);
  if (folder !== undefined)
    await folder
      .sync()
      .catch(() => undefined)
      .finally(() => folder.close());
}

export type TextFile = { ok: true; text: string; mode: number; bytes: number } | { ok: false; error: string };

/** Reads a whole UTF-8 text file of at most `maxBytes`; `shown` names it in errors. */
export async function readTextFile(file: string, shown: string, maxBytes: number): Promise<TextFile> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") return { ok: false, error: `file not found: ${shown}` };
    return { ok: false, error: `cannot read ${shown}: ${describeFsError(err)}` };
  }
  if (info.isDirectory()) return { ok: false, error: `${shown} is a directory, not a file` };
  if (!info.isFile()) return { ok: false, error: `${shown} is not a regular file` };
  if (info.size > maxBytes) {
    return { ok: false, error: `${shown} is ${info.size} bytes, over the ${maxBytes}-byte limit for this tool` };
  }
  let bytes: Buffer;
  try {
    const handle = await open(file, "r");
    try {
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (err) {
    return { ok: false, error: `cannot read ${shown}: ${describeFsError(err)}` };
  }
  if (bytes.length > maxBytes) {
    return { ok: false, error: `${shown} is ${bytes.length} bytes, over the ${maxBytes}-byte limit for this tool` };
  }
  if (bytes.includes(0)) return { ok: false, error: `${shown} is a binary file (it contains NUL bytes), not text` };
  try {
    // ignoreBOM keeps a byte-order mark in the text, so an edit writes it back.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return { ok: true, text, mode: info.mode, bytes: bytes.length };
  } catch {
    return { ok: false, error: `${shown} is not UTF-8 text` };
  }
}
