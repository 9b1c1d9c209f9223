/**
 * Filesystem facts as messages name them: the errno code of a failed call, and what kind of
 * entry stands where a regular file was expected. Shared by the bounded read and the launch checks.
 */
import type { Stats } from "node:fs";

/** "ENOENT", "EACCES", ...; "error" when the failure carries no code. */
export function errnoCode(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? "error";
}

/** What a non-regular entry is, for "must be a regular file, but it is <kind>". */
export function entryKind(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  return "not a regular file";
}
