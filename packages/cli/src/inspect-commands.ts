/**
 * The read-only commands an extension author runs while writing one: `extensions validate`
 * (a manifest lint for CI, issue 13.7) and `tools` (every ready tool with its schemas as a
 * signature, issue 13.6).
 */
import { ExtensionHost, notReadyReasons, type ExtensionStatus, type HostTool } from "@octet/host";
import type { GlobalOptions } from "./args.js";
import { reportFailure } from "./commands.js";
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_UNAVAILABLE } from "./exit-codes.js";
import { terminalSafe } from "./output.js";
import { hostOptions, withHost } from "./session.js";
import { toolBlock, toolJson } from "./tool-signature.js";

interface Verdict {
  name: string;
  manifest_path: string;
  valid: boolean;
  errors: string[];
}

/**
 * `octet extensions validate [NAME...]`: checks the discovered manifests (or only NAMEs) without
 * starting anything. Each error names its file and key; exit 1 when any is invalid or a NAME was
 * not discovered, so CI can gate on it.
 */
export async function extensionsValidate(options: GlobalOptions, names: string[]): Promise<number> {
  const found = await ExtensionHost.discover(hostOptions(options));
  const verdicts: Verdict[] = [];
  for (const s of found) {
    if (names.length > 0 && !names.includes(s.name)) continue;
    verdicts.push({
      name: s.name === "" ? "-" : s.name,
      manifest_path: s.manifestPath,
      valid: s.errors.every((e) => /is shadowed by/.test(e)),
      errors: s.errors.map((e) => withFile(s, e)),
    });
  }
  const discovered = found.map((s) => s.name).filter((n) => n !== "");
  const missing = names.filter((n) => !discovered.includes(n));
  if (options.json) {
    const out = {
      valid: verdicts.every((v) => v.valid) && missing.length === 0,
      extensions: verdicts,
      not_discovered: missing,
    };
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
  } else {
    let text = "";
    const width = Math.max(0, ...verdicts.map((v) => v.name.length));
    for (const v of verdicts) {
      text += `${v.valid ? "ok     " : "INVALID"}  ${v.name.padEnd(width)}  ${v.manifest_path}\n`;
      for (const e of v.errors) text += `  ${terminalSafe(e)}\n`;
    }
    for (const n of missing)
      text +=
        `MISSING  ${n}: no extension of that name was discovered (discovered: ` +
        `${discovered.join(", ") || "none"})\n`;
    const bad = verdicts.filter((v) => !v.valid).length;
    text +=
      verdicts.length === 0 && missing.length === 0
        ? "No extensions found. Pass --extension-dir DIR or put one under ./.octet/extensions/.\n"
        : `${verdicts.length} checked, ${bad} ` +
          `invalid${missing.length > 0 ? `, ${missing.length} not discovered` : ""}\n`;
    process.stdout.write(text);
  }
  return verdicts.every((v) => v.valid) && missing.length === 0 ? EXIT_OK : EXIT_TOOL_ERROR;
}

/** Every error names its file: manifest errors do already, a foreign runtime's may not. */
function withFile(s: ExtensionStatus, error: string): string {
  return s.manifestPath !== "" && !error.includes(s.manifestPath) ? `${s.manifestPath}: ${error}` : error;
}

/**
 * `octet tools [TOOL...]`: starts the enabled extensions and shows each ready tool (or the named
 * ones) with its parameters and output schema; `--json` prints the definitions. A named tool
 * that no ready extension provides is reported with every enabled extension that is not ready.
 */
export async function tools(options: GlobalOptions, names: string[]): Promise<number> {
  const outcome = await withHost(
    (signal) => ExtensionHost.start(hostOptions(options, { signal })),
    async (host) => ({ tools: host.tools(), status: host.status() }),
  );
  if (outcome.error !== undefined) return reportFailure(options, outcome.error, outcome.interrupted);
  const { tools: all, status } = outcome.value!;
  const shown = names.length > 0 ? all.filter((t) => names.includes(t.name)) : all;
  const missing = names.filter((n) => !all.some((t) => t.name === n));
  const notReady = notReadyReasons(status, options.enable);
  const missingText = missing.map(
    (n) => `no ready extension provides tool "${n}" (available: ${all.map((t) => t.name).join(", ") || "none"})`,
  );
  // --json keeps its promise of one document: the definitions, or the error when a TOOL is missing.
  if (options.json)
    process.stdout.write(
      JSON.stringify(
        missing.length > 0
          ? { error: { code: "unknown_tool", message: [...missingText, ...notReady].join("\n") } }
          : shown.map(toolJson),
        null,
        2,
      ) + "\n",
    );
  else process.stdout.write(toolsText(shown));
  for (const m of missingText) process.stderr.write(`octet: ${m}\n`);
  if (notReady.length > 0)
    process.stderr.write(`octet: not ready:\n${notReady.map((r) => `  ${terminalSafe(r)}\n`).join("")}`);
  if (all.length === 0 && notReady.length === 0 && options.enable.length === 0)
    process.stderr.write("octet: no extension is enabled; enable one with --enable-extension NAME\n");
  return missing.length > 0 || notReady.length > 0 ? EXIT_UNAVAILABLE : EXIT_OK;
}

/** The tools as readable blocks, one blank line apart; "No tools." for none. */
export function toolsText(list: readonly HostTool[]): string {
  return list.length === 0 ? "No tools.\n" : list.map((t) => terminalSafe(toolBlock(t))).join("\n");
}
