/**
 * The fault-injection suite (reliability.md's fault table, wire and process rows): one fake
 * extension, a real process, misbehaves on command next to a good one. Every scenario checks the
 * same four things besides its own outcome: the host is up and the good extension still answers;
 * the outcome the spec requires; every diagnostic is bounded (at most 4 KiB each, and a bounded
 * count); and no process of the faulty extension is left (supervision uses timers the test holds,
 * so a crash is followed by a scheduled restart that never fires). Floods print the host's RSS.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionHost, type HostEvent, type SupervisorClock } from "@octet/host";
import { makeExtensions, processesMentioning, waitUntil } from "./helpers.js";

/** Restarts are scheduled but only ever fired by hand (never, here). */
const held: SupervisorClock = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };

interface Scenario {
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

interface Ctx {
  host: ExtensionHost;
  events: HostEvent[];
  dir: string;
  faulty: () => ReturnType<ExtensionHost["status"]>[number];
  diagnostics: () => string[];
  /** The faulty generation ends, as a crash or a violation; the supervisor schedules a restart. */
  expectTerminated: (why: RegExp) => Promise<void>;
}

async function runScenario(s: Scenario): Promise<void> {
  const { dir, cleanup } = await makeExtensions([
    { name: "good", behaviour: "good", tools: ["echo", "slow"] },
    { name: "faulty", behaviour: s.behaviour, api: s.api ?? "0.1", tools: ["f_echo", "f_slow"], extraToml: s.behaviour === "confirm-flood" ? "confirmations = true" : "" },
  ]);
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir, extensionDirs: [dir], enable: ["good", "faulty"], onEvent: (e) => events.push(e),
    timeouts: { initializeMs: 5_000, ...s.timeouts }, supervision: { clock: held },
    services: { confirm: async () => new Promise<boolean>(() => undefined) },
  });
  const faultyDir = join(dir, "faulty");
  const ctx: Ctx = {
    host, events, dir,
    faulty: () => host.status().find((x) => x.name === "faulty")!,
    diagnostics: () => events.flatMap((e) => (e.type === "diagnostic" && e.extension === "faulty" ? [e.message] : [])),
    expectTerminated: async (why) => {
      await waitUntil(() => ctx.faulty().supervision === "backoff", 10_000, "the faulty generation to end and a restart to be scheduled");
      assert.equal(ctx.faulty().state, "crashed");
      assert.match(ctx.faulty().lastError ?? "", why);
      assert.ok(ctx.diagnostics().some((d) => why.test(d)), `a diagnostic says ${why}; got ${JSON.stringify(ctx.diagnostics().slice(0, 5))}`);
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
    assert.ok(diags.length <= 60, `${diags.length} diagnostics`);
    assert.ok(Buffer.byteLength(ctx.faulty().lastError ?? "") <= 1024, "last error is bounded");
    if (s.goneAfterRun !== false) await waitUntil(() => processesMentioning(faultyDir).length === 0, 5_000, "no process of the faulty extension");
  } finally {
    await host.shutdown();
    try {
      assert.deepEqual(processesMentioning(faultyDir), [], "no process of the faulty extension after shutdown");
    } finally {
      await cleanup();
    }
  }
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return "";
  }
}

const rssMiB = (): number => Math.round(process.memoryUsage().rss / 2 ** 20);

const scenarios: Scenario[] = [
  {
    title: "FRAME-10 (F2): a blank line on stdout terminates the generation",
    behaviour: "blank",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/blank line/);
    },
  },
  {
    title: "FRAME-09 (F4): a frame of exactly 1 MiB is accepted",
    behaviour: "frame-1mib",
    goneAfterRun: false,
    run: async (t) => {
      const out = await t.host.callTool("f_echo", {});
      assert.ok(out.text.length > 1_048_000 && out.text.length < 1_048_576, `${out.text.length} characters`);
      assert.equal(t.faulty().state, "ready");
    },
  },
  {
    title: "FRAME-09 (F4): a frame of 1 MiB + 1 is refused at the byte past the bound",
    behaviour: "oversize",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/frame exceeds the 1048576-byte limit/);
    },
  },
  {
    title: "FRAME-09 (F5): 1 GiB without a newline is cut off at 1 MiB; host memory stays flat",
    behaviour: "gib-no-newline",
    run: async (t) => {
      const before = rssMiB();
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/frame exceeds the 1048576-byte limit/);
      const after = rssMiB();
      console.log(`# 1 GiB without newline: host RSS ${before} MiB -> ${after} MiB`);
      assert.ok(after - before < 64, `host RSS grew ${after - before} MiB`);
    },
  },
  {
    title: "FRAME-10 (F8): half a frame, then exit: a truncated frame, the call fails",
    behaviour: "partial-exit",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await waitUntil(() => t.faulty().supervision === "backoff", 5_000, "backoff");
      assert.ok(t.diagnostics().some((d) => /input ended inside a frame/.test(d)), JSON.stringify(t.diagnostics()));
    },
  },
  {
    title: "FRAME-10 (F8): half a frame, then silence: the assembly deadline terminates it",
    behaviour: "partial-stall",
    timeouts: { frameAssemblyMs: 300 },
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/left unfinished for 300 ms/);
    },
  },
  {
    title: "FRAME-10 (F9): invalid JSON terminates the generation",
    behaviour: "invalid-json",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/not JSON/);
    },
  },
  {
    title: "FRAME-10 (F9): invalid UTF-8 terminates the generation",
    behaviour: "invalid-utf8",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/UTF-8/);
    },
  },
  {
    title: "FRAME-03 (F3): a CR-terminated frame terminates the generation",
    behaviour: "crlf",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/CR in a frame/);
    },
  },
  {
    title: "FRAME-01 (F10): a batch array is refused, not unpacked",
    behaviour: "batch",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/invalid JSON-RPC message.*batch/i);
    },
  },
  {
    title: "FRAME-01 (F12): a duplicated envelope member is refused",
    behaviour: "duplicate-keys",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}));
      await t.expectTerminated(/member "id" appears more than once/);
    },
  },
  {
    title: "FRAME-05 (R1): 10,000 responses to unknown ids: rate-limited diagnostics, the real answer still arrives",
    behaviour: "unknown-id",
    goneAfterRun: false,
    run: async (t) => {
      assert.equal((await t.host.callTool("f_echo", {})).text, "answered after 10,000 strays");
      assert.equal(t.faulty().state, "ready");
      assert.ok(t.diagnostics().some((d) => /unknown request id/.test(d)));
      assert.ok(t.diagnostics().some((d) => /more diagnostics suppressed/.test(d)) || t.diagnostics().length < 25, "the flood is summarized");
    },
  },
  {
    title: "CANCEL-06 (R2): the same response twice settles the call once; the second is diagnosed",
    behaviour: "answer-twice",
    goneAfterRun: false,
    run: async (t) => {
      assert.equal((await t.host.callTool("f_echo", {})).text, "first");
      await waitUntil(() => t.diagnostics().some((d) => /late response|unknown request/.test(d)), 2_000, "a diagnostic for the second answer");
      assert.equal(t.faulty().state, "ready");
    },
  },
  {
    title: "CANCEL-06 (R3): a result arriving after the cancellation is ignored with a diagnostic; the extension stays",
    behaviour: "late-answer",
    api: "0.2",
    goneAfterRun: false,
    run: async (t) => {
      const controller = new AbortController();
      const call = t.host.callTool("f_echo", {}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user cancelled")), 50);
      await assert.rejects(call, /cancel/i);
      await waitUntil(() => t.diagnostics().some((d) => /late response/.test(d)), 3_000, "the late answer's diagnostic");
      await new Promise((r) => setTimeout(r, 2_200));
      assert.equal(t.faulty().state, "ready", "it settled within the grace period");
    },
  },
  {
    title: "CANCEL-07 (R4): a cancellation ignored past the 2 s grace terminates the generation",
    behaviour: "ignore-cancel",
    api: "0.2",
    run: async (t) => {
      const controller = new AbortController();
      const call = t.host.callTool("f_echo", {}, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user cancelled")), 50);
      await assert.rejects(call, /cancel/i);
      await t.expectTerminated(/did not settle cancelled tool\/call request/);
    },
  },
  {
    title: "CALL-24 (R6): a call never answered fails at its deadline; an API 0.1 extension is not cancelled and stays",
    behaviour: "ignore-cancel",
    goneAfterRun: false,
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}, { timeoutMs: 300 }), (e: Error & { code?: string }) => e.code === "request_timeout" || /within 300 ms/.test(e.message));
      assert.equal(t.faulty().state, "ready");
    },
  },
  {
    title: "REV-04 (R7): 200 confirmation requests at once: 128 wait, the rest are refused; nothing queues without bound",
    behaviour: "confirm-flood",
    goneAfterRun: false,
    run: async (t) => {
      const counts = JSON.parse((await t.host.callTool("f_echo", {})).text) as Record<string, number>;
      assert.equal(counts["-32002"], 72);
    },
  },
  {
    title: "LIFE-01 (R11): a crash mid-request fails that call (see supervision.test.ts: never replayed)",
    behaviour: "exit-mid-call",
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}), /exited with code 3|closed/);
      await t.expectTerminated(/exited with code 3/);
    },
  },
  {
    title: "SHUT-05 (P10, P11): an extension that ignores shutdown and SIGTERM is killed within the aggregate deadline",
    behaviour: "hang-shutdown",
    goneAfterRun: false,
    run: async (t) => {
      const started = Date.now();
      await t.host.reload("faulty"); // the old generation goes through the whole ladder
      const took = Date.now() - started;
      assert.ok(took < 6_000, `the ladder is bounded (${took} ms)`);
      assert.ok(t.diagnostics().some((d) => /killing its process group/.test(d)));
    },
  },
  {
    title: "SHUT-04 (P10): an extension that acknowledges shutdown but never exits is killed after 2 s",
    behaviour: "ack-no-exit",
    goneAfterRun: false,
    run: async (t) => {
      await t.host.reload("faulty");
      assert.ok(t.diagnostics().some((d) => /did not exit within 2000 ms/.test(d)));
    },
  },
  {
    title: "SHUT-05 (P11): a SIGSTOPped extension is still killed: SIGKILL works on a stopped process",
    behaviour: "sigstop",
    goneAfterRun: false,
    run: async (t) => {
      await assert.rejects(t.host.callTool("f_echo", {}, { timeoutMs: 300 }));
      const started = Date.now();
      await t.host.reload("faulty");
      assert.ok(Date.now() - started < 6_000);
    },
  },
  {
    title: "ENV-09 (P13): a grandchild that leaves the group with setsid is contained by the PID namespace",
    behaviour: "setsid-grandchild",
    goneAfterRun: false,
    run: async (t) => {
      const faultyDir = join(t.dir, "faulty");
      await waitUntil(() => t.events.some((e) => e.type === "stderr" && e.extension === "faulty" && /setsid grandchild/.test(e.line)), 5_000, "the grandchild to start");
      if (t.faulty().containment !== "pid-namespace") {
        // The documented fallback: a process-group host cannot reach it. Say so, and clean up.
        const strays = processesMentioning(faultyDir);
        for (const pid of strays) process.kill(pid, "SIGKILL");
        console.log(`# containment is ${t.faulty().containment}: the setsid grandchild is not contained here`);
        return;
      }
      const old = t.faulty().generation;
      const ofOld = (): number[] => processesMentioning(faultyDir).filter((pid) => environOf(pid).includes(`OCTET_PROCESS_GENERATION=${old}\0`));
      assert.ok(ofOld().length >= 3, "launcher, extension and the escaped grandchild of the old generation");
      await t.host.reload("faulty"); // stops the generation that started it
      await waitUntil(() => ofOld().length === 0, 5_000, "every process of the old generation, the setsid grandchild included, to be gone");
    },
  },
  {
    title: "FRAME-04 (P6): 16 MiB of stderr neither blocks the extension nor grows the host",
    behaviour: "stderr-flood",
    goneAfterRun: false,
    run: async (t) => {
      assert.equal((await t.host.callTool("f_echo", { a: 1 })).text, '{"a":1}');
      const peak = Math.round(process.resourceUsage().maxRSS / 1024);
      console.log(`# stderr flood: host peak RSS ${peak} MiB`);
      assert.ok(t.faulty().stderrTail.length > 0);
    },
  },
  {
    title: "FRAME-05 (R10): 200,000 notifications: bounded diagnostics, the answer arrives, host memory bounded",
    behaviour: "stdout-flood",
    goneAfterRun: false,
    run: async (t) => {
      const before = rssMiB();
      assert.equal((await t.host.callTool("f_echo", {})).text, "flooded");
      const after = rssMiB();
      console.log(`# stdout flood: host RSS ${before} MiB -> ${after} MiB, peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
      assert.ok(after - before < 128, `host RSS grew ${after - before} MiB`);
    },
  },
  {
    title: "FRAME-06 (P5): an extension that stops reading stdin is terminated once 8 MiB wait for it",
    behaviour: "no-read",
    run: async (t) => {
      const big = "y".repeat(900_000);
      const calls = Array.from({ length: 12 }, () => t.host.callTool("f_echo", { big }).then(() => "answered", (e: Error) => e.message));
      const outcomes = await Promise.all(calls);
      assert.ok(outcomes.every((o) => o !== "answered"), "no call was answered");
      await t.expectTerminated(/not reading its stdin/);
    },
  },
];

for (const s of scenarios) test(s.title, () => runScenario(s));

test("ENV-09 (P15): when the host is killed with SIGKILL its extensions do not live on, setsid grandchildren included", async () => {
  const { spawn } = await import("node:child_process");
  const { ROOT } = await import("./helpers.js");
  const { dir, cleanup } = await makeExtensions([
    { name: "plain", behaviour: "good" },
    { name: "escaper", behaviour: "setsid-grandchild", tools: ["e_echo", "e_slow"] },
  ]);
  try {
    const runner = spawn(process.execPath, [join(ROOT, "tests", "fixtures", "host-runner.mjs"), dir], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      runner.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      runner.once("exit", (code) => reject(new Error(`host-runner exited early (${code})`)));
    });
    const started = JSON.parse(line) as { name: string; state: string; containment: string }[];
    assert.deepEqual(started.map((s) => s.state), ["ready", "ready"]);
    // The extension, its grandchild and (in a namespace) the launcher.
    const expected = started[0]!.containment === "pid-namespace" ? 3 : 2;
    await waitUntil(() => processesMentioning(join(dir, "escaper")).length >= expected, 5_000, "the escaper's grandchild to start");
    runner.kill("SIGKILL");
    const survivors = (): number[] => processesMentioning(dir);
    if (started[0]!.containment === "pid-namespace") {
      await waitUntil(() => survivors().length === 0, 5_000, "every extension process to die with the host");
    } else {
      // Fallback tier: the SDK-style exit on stdin EOF ends the extensions; the setsid grandchild
      // is beyond reach (documented), so it is cleaned up here and the rest is checked.
      await waitUntil(() => processesMentioning(join(dir, "plain")).length === 0, 5_000, "the plain extension to exit on stdin EOF");
      for (const pid of survivors()) process.kill(pid, "SIGKILL");
      console.log("# containment is process-group: setsid grandchildren survive a SIGKILLed host here");
    }
  } finally {
    for (const pid of processesMentioning(dir)) process.kill(pid, "SIGKILL");
    await cleanup();
  }
});
