/**
 * `octet check`, the conformance kit for any extension (any language, any runtime): two runs of
 * the extension as the host launches it, each check reported by requirement ID (report.ts). The
 * first checks what every extension must do whatever its tools (wire-pass.ts), then sends bad
 * frames, a cancel storm and a shutdown under load (hostile-pass.ts); the second an oversize
 * frame and stdin EOF, either of which may end the extension (hostile-pass.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DiscoveredExtension } from "../manifest/discovery.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import { launchForCheck, type CheckLaunch } from "./launch.js";
import { Recorder, type CheckReport } from "./report.js";
import { edgePass, hostilePass } from "./hostile-pass.js";
import { initialize, wirePass, withStderr } from "./wire-pass.js";

export type { CheckReport, CheckResult } from "./report.js";

export interface CheckOptions {
  /** The environment the extension's own is built from, as the host's (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The workspace the extension runs in. Default: a fresh empty directory, removed afterwards,
   * so checking an extension never touches the caller's files.
   */
  workspace?: string;
}

/** Runs every check against one discovered extension; never throws for the extension's faults. */
export async function checkExtension(d: DiscoveredExtension, o: CheckOptions = {}): Promise<CheckReport> {
  const r = new Recorder();
  const report = (api: string): CheckReport => ({
    extension: d.name,
    manifestPath: d.manifestPath,
    api,
    ok: r.results.every((c) => c.outcome !== "fail"),
    results: r.results,
  });
  if (d.manifest === null || d.errors.length > 0) {
    const why = d.errors.map((e) => e.message).join("; ") || "no valid manifest";
    r.fail("MAN-01", "the manifest is valid", "a valid manifest (octet extensions validate)", why);
    return report("?");
  }
  const found = d as DiscoveredExtension & { manifest: ExtensionManifest };
  const workspace = o.workspace ?? (await mkdtemp(join(tmpdir(), "octet-check-")));
  const env = o.env ?? process.env;
  let generation = 0;
  const run = async (pass: (l: CheckLaunch, g: number) => Promise<void>): Promise<boolean> => {
    generation++;
    let l: CheckLaunch;
    try {
      l = await launchForCheck(found, { workspace, env, number: generation });
    } catch (err) {
      r.fail("INIT-01", "the extension starts", "a running extension", (err as Error).message);
      return false;
    }
    try {
      await pass(l, generation);
      return true;
    } finally {
      await l.close();
    }
  };
  try {
    // One extension for the wire and hostile passes (a start is most of a check's time), a
    // second one for the oversize frame, which may legitimately end it.
    await run(async (l, g) => {
      const tools = await wirePass(l, r, g);
      if (tools !== null) await hostilePass(l, r, g, tools);
    });
    if (r.results.some((c) => c.id === "INIT-01" && c.outcome === "fail")) return report(found.manifest.api_version);
    await run(async (l) => {
      if (await startedFor(l, r, "oversize")) await edgePass(l, r);
    });
  } finally {
    if (o.workspace === undefined) await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
  }
  return report(found.manifest.api_version);
}

/** Initializes a later pass's extension; a failure here is one the first pass did not see. */
async function startedFor(l: CheckLaunch, r: Recorder, pass: string): Promise<boolean> {
  const answered = await initialize(l, null);
  if (!answered)
    r.fail("INIT-01", `initialize is answered (${pass} pass)`, "the same answer as the first pass", withStderr(l.probe, "none"));
  return answered !== null;
}
