/**
 * `octet check`, the conformance kit for any extension (any language, any runtime): three runs of
 * the extension as the host launches it, each check reported by requirement ID (report.ts). The
 * first checks what every extension must do whatever its tools (wire-pass.ts), then sends bad
 * frames, a cancel storm and a shutdown under load (hostile-pass.ts); the second an oversize
 * frame, the third stdin EOF, each of which may end the extension (hostile-pass.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DiscoveredExtension } from "../manifest/discovery.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import { launchForCheck, type CheckLaunch } from "./launch.js";
import type { FrameTrace } from "../transport/frame-trace.js";
import { Recorder, type CheckReport } from "./report.js";
import { edgePass, eofPass, hostilePass } from "./hostile-pass.js";
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
  /** Every frame both ways, as --trace FILE writes the host's (transport/frame-trace.ts). */
  trace?: FrameTrace;
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
  const run = async (g: number, rec: Recorder, pass: (l: CheckLaunch) => Promise<void>): Promise<void> => {
    let l: CheckLaunch;
    try {
      l = await launchForCheck(found, { workspace, env, number: g, trace: o.trace });
    } catch (err) {
      rec.fail("INIT-01", "the extension starts", "a running extension", (err as Error).message);
      return;
    }
    try {
      await pass(l);
    } finally {
      await l.close();
    }
  };
  try {
    // One extension for the wire and hostile passes (a start is most of a check's time), one for
    // the oversize frame and one for stdin EOF, each of which may end it; all three at once.
    const edge = new Recorder();
    const eof = new Recorder();
    await Promise.all([
      run(1, r, async (l) => {
        const tools = await wirePass(l, r, 1);
        if (tools !== null) await hostilePass(l, r, 1, tools);
      }),
      run(2, edge, async (l) => {
        if (await startedFor(l, edge, "oversize")) await edgePass(l, edge);
      }),
      run(3, eof, async (l) => {
        if (await startedFor(l, eof, "EOF")) await eofPass(l, eof);
      }),
    ]);
    // An extension that does not start is reported once, by the first pass.
    if (!r.results.some((c) => c.id === "INIT-01" && c.outcome === "fail"))
      r.results.push(...edge.results, ...eof.results);
  } finally {
    if (o.workspace === undefined) await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
  }
  return report(found.manifest.api_version);
}

/** Initializes a later pass's extension; a failure here is one the first pass did not see. */
async function startedFor(l: CheckLaunch, r: Recorder, pass: string): Promise<boolean> {
  const answered = await initialize(l, null);
  if (!answered)
    r.fail(
      "INIT-01",
      `initialize is answered (${pass} pass)`,
      "the same answer as the first pass",
      withStderr(l.probe, "none"),
    );
  return answered !== null;
}
