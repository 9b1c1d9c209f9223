/**
 * `-e PATH` (and `extensions = [...]` in the home config): one extension to load and enable. A
 * folder with an extension.toml or a pi-extension.json is an extension folder (added as an
 * --extension-dir and enabled by the name its manifest gives); anything else is a pi extension
 * file or folder, as --pi-extension (which enables it by its id). Only the manifest's name is
 * read here: the host validates the rest and reports it as usual.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { UsageError } from "../usage-error.js";
import { statForUsage } from "../path-check.js";

export type ExtensionPlan = { kind: "folder"; dir: string; name: string; path: string } | { kind: "pi"; path: string };

const PI_ENTRIES = ["package.json", "index.ts", "index.mts", "index.js", "index.mjs"];
/** A manifest is a few KiB; past this the name is not looked for (the host's reader reports the size). */
const MAX_NAME_READ_BYTES = 1_048_576;

/** What `path` (absolute) is; `label` names where it was given, e.g. "-e ./my-ext", for errors. */
export function planExtensionPath(path: string, label: string): ExtensionPlan {
  const st = statForUsage(path, label, "file or folder");
  // `-e my-ext/extension.toml` means the folder.
  if (st.isFile() && (basename(path) === "extension.toml" || basename(path) === "pi-extension.json"))
    return planExtensionPath(dirname(path), label);
  if (!st.isDirectory()) return { kind: "pi", path };
  const toml = join(path, "extension.toml");
  if (existsSync(toml)) return { kind: "folder", dir: path, name: manifestName(toml, "name") ?? basename(path), path };
  const json = join(path, "pi-extension.json");
  if (existsSync(json)) return { kind: "folder", dir: path, name: manifestName(json, "id") ?? basename(path), path };
  if (PI_ENTRIES.some((f) => existsSync(join(path, f)))) return { kind: "pi", path };
  throw new UsageError(
    `${label}: ${path} holds no extension.toml, pi-extension.json, package.json or index.ts/.js; -e loads one ` +
      "extension: for a folder of extensions use --extension-dir",
  );
}

/**
 * The name the manifest gives, as discovery will read it; null when it cannot be read, so the
 * folder's name is enabled and the host's own message about the broken manifest is what is shown.
 */
function manifestName(file: string, key: "name" | "id"): string | null {
  try {
    if (statSync(file).size > MAX_NAME_READ_BYTES) return null;
    const text = readFileSync(file, "utf8");
    const doc = (key === "name" ? parseToml(text) : JSON.parse(text)) as Record<string, unknown>;
    const name = doc[key];
    return typeof name === "string" && name !== "" ? name : null;
  } catch {
    return null;
  }
}
