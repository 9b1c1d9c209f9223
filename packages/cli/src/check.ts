/**
 * `octet check [MANIFEST_OR_FOLDER...]`: the conformance kit (checkExtension in @octet/host) run
 * against extensions named by their extension.toml or pi-extension.json, their folder, or a
 * folder of them (default: the current folder). Reports each check by requirement ID; exit 1 on any failure.
 */
import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { checkExtension, discoverExtensions, type CheckReport, type DiscoveredExtension } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import type { GlobalOptions } from "./args.js";
import { EXIT_OK, EXIT_TOOL_ERROR } from "./exit-codes.js";
import { paint, terminalSafe } from "./output.js";
import { UsageError } from "./usage-error.js";
import { frameTrace } from "./trace-file.js";
import { mcpRuntime } from "./mcp/mcp-runtime.js";

const MANIFEST_FILES = new Set(["extension.toml", "pi-extension.json", "mcp-server.json"]);

export async function checkCommand(options: GlobalOptions, args: string[]): Promise<number> {
  const found: DiscoveredExtension[] = [];
  for (const arg of args.length > 0 ? args : ["."]) found.push(...(await extensionsAt(arg, options)));
  const reports: CheckReport[] = [];
  for (const d of found) {
    const report = await checkExtension(d, options.trace !== null ? { trace: frameTrace(options.trace) } : {});
    reports.push(report);
    if (!options.json) process.stdout.write(describe(report, options.verbose));
  }
  const ok = reports.every((r) => r.ok);
  if (options.json) process.stdout.write(`${JSON.stringify({ ok, reports }, null, 2)}\n`);
  else if (reports.length > 1) {
    const failed = reports.filter((r) => !r.ok).map((r) => r.extension);
    process.stdout.write(
      failed.length === 0 ? `all ${reports.length} extensions pass\n` : `failed: ${failed.join(", ")}\n`,
    );
  }
  return ok ? EXIT_OK : EXIT_TOOL_ERROR;
}

/** One extension's report: a line per check, failures with what was expected and seen. */
function describe(report: CheckReport, verbose: boolean): string {
  const out = process.stdout;
  const lines = [`${paint("bold", report.extension || "(unnamed)", out)} (API ${report.api}) ${report.manifestPath}`];
  for (const c of report.results) {
    const mark =
      c.outcome === "pass"
        ? paint("green", "pass", out)
        : c.outcome === "skip"
          ? paint("dim", "skip", out)
          : paint("red", "FAIL", out);
    lines.push(`  ${mark} ${c.id.padEnd(9)} ${c.title}`);
    if (c.outcome === "fail") {
      lines.push(`       expected: ${terminalSafe(c.expected)}`);
      lines.push(`       seen:     ${terminalSafe(c.seen)}`);
    } else if (c.outcome === "skip" || verbose) lines.push(`       ${terminalSafe(c.seen)}`);
  }
  const failed = report.results.filter((c) => c.outcome === "fail").length;
  const passed = report.results.filter((c) => c.outcome === "pass").length;
  const skipped = report.results.length - failed - passed;
  lines.push(`  ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
  return `${lines.join("\n")}\n`;
}

/** The extensions a MANIFEST_OR_FOLDER argument names: its own, or every one a level down. */
async function extensionsAt(arg: string, options: GlobalOptions): Promise<DiscoveredExtension[]> {
  const target = resolve(arg);
  let dir = target;
  try {
    const st = statSync(target);
    if (st.isFile()) {
      if (!MANIFEST_FILES.has(basename(target)))
        throw new UsageError(`check ${arg}: expected extension.toml, pi-extension.json, mcp-server.json or a folder`);
      dir = dirname(target);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`check ${arg}: no such file or folder (${target})`);
  }
  const found = (
    await discoverExtensions({
      workspace: options.workspace,
      extensionDirs: [dir],
      // Every kind of extension folder the CLI serves: pi extensions and MCP servers too.
      runtimes: [rpiRuntime({ mode: "print", piRuntime: options.piRuntime }), mcpRuntime()],
    })
  ).filter((d) => d.source === "explicit" && d.shadowedBy === null);
  if (found.length === 0)
    throw new UsageError(`check ${arg}: no extension in ${dir} (expected a manifest there or one level down)`);
  return found;
}
