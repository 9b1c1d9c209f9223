/**
 * The one frame trace of a CLI run (--trace FILE or $OCTET_TRACE): opened on first use and shared
 * by every host the command starts, so a reload or a second host appends to the same file.
 */
import { FrameTrace } from "@octet/host";
import { UsageError } from "./usage-error.js";

let open: FrameTrace | null = null;

export function frameTrace(path: string): FrameTrace {
  if (open?.path === path) return open;
  try {
    open = new FrameTrace(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new UsageError(`--trace ${path}: cannot open the trace file for appending (${code})`);
  }
  return open;
}
