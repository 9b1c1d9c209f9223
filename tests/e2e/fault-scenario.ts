/**
 * The fault-injection suite's scenario runner (reliability.md's fault table): one fake extension,
 * a real process, misbehaves on command next to a good one. Every scenario checks the same four
 * things besides its own outcome: the host is up and the good extension still answers; the
 * outcome the spec requires; every diagnostic is bounded (at most 4 KiB each, and a bounded
 * count); and no process of the faulty extension is left (supervision uses timers the test holds,
 * so a crash is followed by a scheduled restart that never fires). Floods print the host's RSS.
 * The scenarios are in fault-suite.test.ts (wire rows) and fault-suite-process.test.ts (process
 * rows): two files that run side by side, each in its own process, so no flood's memory figure
 * sees another's.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionHost, type HostEvent, type SupervisorClock } from "@octet/host";
import { makeExtensions, processesMentioning, waitUntil } from "./helpers.js";

/** Restarts are scheduled but only ever fired by hand (never, here). */
const held: SupervisorClock = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };

export interface Scenario {
  /** Requirement IDs and the fault, for the title. */
  title: string;
  behaviour: string;
  api?: "0.1" | "0.2" | "0.4";
  timeouts?: { frameAssemblyMs?: number };
  /** Drives the fault and checks its outcome; `faulty` is the faulty extension's status. */
  run: (t: Ctx) => Promise<void>;
  /** The faulty extension's processes must be gone after run() (before shutdown); default true. */
  goneAfterRun?: boolean;
}

export interface Ctx {
  host: ExtensionHost;
  events: HostEvent[];
  dir: string;
  faulty: () => ReturnType<ExtensionHost["status"]>[number];
  diagnostics: () => string[];
  /** The faulty generation ends, as a crash or a violation; the supervisor schedules a restart. */
  expectTerminated: (why: RegExp) => Promise<void>;
}

export async function runScenario(s: Scenario): Promise<void> {
  const { dir, cleanup } = await makeExtensions([
    { name: "good", behaviour: "good", tools: ["echo", "slow"] },
    {
      name: "faulty",
      behaviour: s.behaviour,
      api: s.api ?? "0.1",
      tools: ["f_echo", "f_slow"],
      extraToml: s.behaviour === "confirm-flood" ? "confirmations = true" : "",
    },
  ]);
  const events: HostEvent[] = [];
  const started = Date.now();
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["good", "faulty"],
    onEvent: (e) => events.push(e),
    timeouts: { initializeMs: 5_000, ...s.timeouts },
    supervision: { clock: held },
    services: { confirm: async () => new Promise<boolean>(() => undefined) },
  });
  const faultyDir = join(dir, "faulty");
  const ctx: Ctx = {
    host,
    events,
    dir,
    faulty: () => host.status().find((x) => x.name === "faulty")!,
    diagnostics: () => events.flatMap((e) => (e.type === "diagnostic" && e.extension === "faulty" ? [e.message] : [])),
    expectTerminated: async (why) => {
      await waitUntil(
        () => ctx.faulty().supervision === "backoff",
        10_000,
        "the faulty generation to end and a restart to be scheduled",
      );
      assert.equal(ctx.faulty().state, "crashed");
      assert.match(ctx.faulty().lastError ?? "", why);
      assert.ok(
        ctx.diagnostics().some((d) => why.test(d)),
        `a diagnostic says ${why}; got ${JSON.stringify(ctx.diagnostics().slice(0, 5))}`,
      );
    },
  };
  try {
    assert.equal(ctx.faulty().state, "ready", `faulty started: ${ctx.faulty().lastError}`);
    await s.run(ctx);
    // The host is up and the other extension unaffected.
    assert.equal((await host.callTool("echo", { still: "up" })).text, '{"still":"up"}');
    assert.equal(host.status().find((x) => x.name === "good")!.state, "ready");
    // Bounded diagnostics: each at most 4 KiB, and not one per bad line.
    const diags = ctx.diagnostics();
    for (const d of diags) assert.ok(Buffer.byteLength(d) <= 4096, `diagnostic of ${Buffer.byteLength(d)} bytes`);
    // The host's bound is a rate (generation.ts: 20 a second, plus one "N more suppressed" line a
    // second), so a flood's count grows with its length, which a loaded machine stretches: 60, or
    // 21 for each second the scenario took if that is more. One per bad line is far beyond either.
    const bound = Math.max(60, 21 * Math.ceil((Date.now() - started) / 1000));
    assert.ok(diags.length <= bound, `${diags.length} diagnostics, over the bound of ${bound}`);
    assert.ok(Buffer.byteLength(ctx.faulty().lastError ?? "") <= 1024, "last error is bounded");
    if (s.goneAfterRun !== false)
      await waitUntil(() => processesMentioning(faultyDir).length === 0, 5_000, "no process of the faulty extension");
  } finally {
    await host.shutdown();
    try {
      assert.deepEqual(processesMentioning(faultyDir), [], "no process of the faulty extension after shutdown");
    } finally {
      await cleanup();
    }
  }
}

export function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return "";
  }
}

export const rssMiB = (): number => Math.round(process.memoryUsage().rss / 2 ** 20);
