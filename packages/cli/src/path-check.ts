/**
 * The one way a path named on the command line or in the home config is looked at before use:
 * statSync, or a UsageError that names where the path was given and why it cannot be used.
 */
import { statSync, type Stats } from "node:fs";
import { UsageError } from "./usage-error.js";

/**
 * statSync(path), or a UsageError "`label`: no such `missing` (path)" when nothing is there, or
 * "`label`: cannot read path (code)" when it cannot be looked at.
 */
export function statForUsage(path: string, label: string, missing: string): Stats {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? `no such ${missing} (${path})` : `cannot read ${path} (${code ?? String(err)})`;
    throw new UsageError(`${label}: ${why}`);
  }
}
