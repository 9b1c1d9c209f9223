/**
 * Reading a path-source artifact out of the extension's scratch directory (ART-06, ART-07,
 * reliability A1..A6, A8 and section 4.7). The extension controls that directory and may race
 * us, so every decision is made on the opened descriptor, never on the path:
 *
 * - the leaf is opened with O_NOFOLLOW (a symlink fails with ELOOP, A1) and O_NONBLOCK (a FIFO
 *   opens at once instead of blocking a threadpool thread until a writer comes, A4);
 * - intermediate components are refused when lstat shows a symlink, and after the open the
 *   descriptor's real path (/proc/self/fd/N) must still lie under the real scratch root, which
 *   also catches a directory swapped in between the lstat and the open (A2, A3);
 * - fstat of the descriptor: a regular file (A4), exactly one link (a hard link could name a
 *   file outside the scratch directory, A6), the declared size, within the bound (A8);
 * - exactly `size` bytes are read into a private buffer and one more read must be EOF: a file
 *   that grows or shrinks meanwhile is refused, and later writes cannot change what we hold (A5).
 */
import { constants } from "node:fs";
import { lstat, open, readlink, realpath } from "node:fs/promises";
import { join, sep } from "node:path";

/**
 * Tests only: runs after the descriptor checks and before the read, exactly where a racing
 * writer would act, so the grow/shrink refusals can be shown without timing luck.
 */
export type RaceHook = () => Promise<void> | void;

/** A refusal of the source: the message names what was wrong (it becomes the -32602 message). */
export class ScratchRefusal extends Error {}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * The bytes of `rel` (already checked by the protocol's path grammar: relative, no "." or "..")
 * under `root`, which must be exactly `size` bytes and at most `maxBytes`.
 */
export async function readScratchFile(
  root: string,
  rel: string,
  size: number,
  maxBytes: number,
  signal?: AbortSignal,
  race?: RaceHook,
): Promise<Buffer> {
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch {
    throw new ScratchRefusal("the scratch directory (OCTET_EXTENSION_SCRATCH) does not exist");
  }
  const segments = rel.split("/");
  for (let i = 1; i < segments.length; i++) {
    const dir = segments.slice(0, i).join("/");
    const st = await lstat(join(rootReal, dir)).catch(() => null);
    if (st === null)
      throw new ScratchRefusal(
        `path ${JSON.stringify(rel)}: directory ${JSON.stringify(dir)} does not exist in the scratch directory`,
      );
    if (st.isSymbolicLink())
      throw new ScratchRefusal(
        `path ${JSON.stringify(rel)}: component ${JSON.stringify(dir)} is a symbolic link; links are not followed`,
      );
    if (!st.isDirectory())
      throw new ScratchRefusal(`path ${JSON.stringify(rel)}: component ${JSON.stringify(dir)} is not a directory`);
  }
  signal?.throwIfAborted();
  const full = join(rootReal, rel);
  let fh;
  try {
    fh = await open(full, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP")
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} is a symbolic link; links are not followed`);
    if (code === "ENOENT")
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} does not exist in the scratch directory`);
    if (code === "ENXIO" || code === "EISDIR")
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} is not a regular file`);
    throw new ScratchRefusal(`path ${JSON.stringify(rel)} cannot be opened (${code ?? "error"})`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ScratchRefusal(`path ${JSON.stringify(rel)} is not a regular file (${kindOf(st)})`);
    if (st.nlink !== 1)
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} has ${st.nlink} hard links; exactly 1 is required`);
    if (st.size > maxBytes)
      throw new ScratchRefusal(
        `path ${JSON.stringify(rel)} is ${st.size} bytes, over the ${maxBytes}-byte artifact limit`,
      );
    if (st.size !== size)
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} is ${st.size} bytes, not the declared size ${size}`);
    await checkContained(fh.fd, rootReal, full, st, rel);
    await race?.();
    signal?.throwIfAborted();
    const buf = Buffer.alloc(size);
    let off = 0;
    while (off < size) {
      const { bytesRead } = await fh.read(buf, off, size - off, off);
      if (bytesRead === 0)
        throw new ScratchRefusal(
          `path ${JSON.stringify(rel)} shrank while it was read: ${off} of the declared ${size} bytes`,
        );
      off += bytesRead;
    }
    const { bytesRead: extra } = await fh.read(Buffer.alloc(1), 0, 1, size);
    if (extra !== 0)
      throw new ScratchRefusal(
        `path ${JSON.stringify(rel)} grew while it was read: more than the declared ${size} bytes`,
      );
    return buf;
  } finally {
    await fh.close();
  }
}

/**
 * The opened file must lie under the real scratch root. Linux says where a descriptor points in
 * /proc/self/fd; elsewhere the path is re-checked to name the same (dev, ino) as the descriptor.
 */
async function checkContained(
  fd: number,
  rootReal: string,
  full: string,
  st: { dev: number; ino: number },
  rel: string,
): Promise<void> {
  let target: string | null = null;
  try {
    target = await readlink(`/proc/self/fd/${fd}`);
  } catch {
    target = null;
  }
  if (target !== null) {
    if (!target.startsWith(rootReal + sep))
      throw new ScratchRefusal(`path ${JSON.stringify(rel)} resolves outside the scratch directory`);
    return;
  }
  const now = await lstat(full).catch(() => null);
  if (now === null || now.dev !== st.dev || now.ino !== st.ino)
    throw new ScratchRefusal(`path ${JSON.stringify(rel)} changed while it was opened`);
}

function kindOf(st: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a file";
}
