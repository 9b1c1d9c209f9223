/**
 * The fault-injection suite, process rows (reliability.md's fault table): crashes, shutdown
 * ladders, containment, floods and a host killed with SIGKILL. The runner and its four common
 * checks are in fault-scenario.ts; the wire rows are in fault-suite.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeExtensions, processesMentioning, startHostRunner, waitUntil } from "./helpers.js";
import { environOf, rssMiB, runScenario, type Scenario } from "./fault-scenario.js";

const scenarios: Scenario[] = [
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
      await waitUntil(
        () => t.events.some((e) => e.type === "stderr" && e.extension === "faulty" && /setsid grandchild/.test(e.line)),
        5_000,
        "the grandchild to start",
      );
      if (t.faulty().containment !== "pid-namespace") {
        // The documented fallback: a process-group host cannot reach it. Say so, and clean up.
        const strays = processesMentioning(faultyDir);
        for (const pid of strays) process.kill(pid, "SIGKILL");
        console.log(`# containment is ${t.faulty().containment}: the setsid grandchild is not contained here`);
        return;
      }
      const old = t.faulty().generation;
      const ofOld = (): number[] =>
        processesMentioning(faultyDir).filter((pid) => environOf(pid).includes(`OCTET_PROCESS_GENERATION=${old}\0`));
      assert.ok(ofOld().length >= 3, "launcher, extension and the escaped grandchild of the old generation");
      await t.host.reload("faulty"); // stops the generation that started it
      await waitUntil(
        () => ofOld().length === 0,
        5_000,
        "every process of the old generation, the setsid grandchild included, to be gone",
      );
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
      console.log(
        `# stdout flood: host RSS ${before} MiB -> ${after} MiB, ` +
          `peak ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
      );
      assert.ok(after - before < 128, `host RSS grew ${after - before} MiB`);
    },
  },
  {
    title: "FRAME-06 (P5): an extension that stops reading stdin is terminated once 8 MiB wait for it",
    behaviour: "no-read",
    run: async (t) => {
      const big = "y".repeat(900_000);
      const calls = Array.from({ length: 12 }, () =>
        t.host.callTool("f_echo", { big }).then(
          () => "answered",
          (e: Error) => e.message,
        ),
      );
      const outcomes = await Promise.all(calls);
      assert.ok(
        outcomes.every((o) => o !== "answered"),
        "no call was answered",
      );
      await t.expectTerminated(/not reading its stdin/);
    },
  },
];

for (const s of scenarios) test(s.title, () => runScenario(s));

test(
  "ENV-09 (P15): when the host is killed with SIGKILL its extensions " +
    "do not live on, setsid grandchildren included",
  async () => {
    const { dir, cleanup } = await makeExtensions([
      { name: "plain", behaviour: "good" },
      { name: "escaper", behaviour: "setsid-grandchild", tools: ["e_echo", "e_slow"] },
    ]);
    try {
      const { runner, line } = await startHostRunner(dir);
      const started = JSON.parse(line) as { name: string; state: string; containment: string }[];
      assert.deepEqual(
        started.map((s) => s.state),
        ["ready", "ready"],
      );
      // The extension, its grandchild and (in a namespace) the launcher.
      const expected = started[0]!.containment === "pid-namespace" ? 3 : 2;
      await waitUntil(
        () => processesMentioning(join(dir, "escaper")).length >= expected,
        5_000,
        "the escaper's grandchild to start",
      );
      runner.kill("SIGKILL");
      const survivors = (): number[] => processesMentioning(dir);
      if (started[0]!.containment === "pid-namespace") {
        await waitUntil(() => survivors().length === 0, 5_000, "every extension process to die with the host");
      } else {
        // Fallback tier: the SDK-style exit on stdin EOF ends the extensions; the setsid grandchild
        // is beyond reach (documented), so it is cleaned up here and the rest is checked.
        await waitUntil(
          () => processesMentioning(join(dir, "plain")).length === 0,
          5_000,
          "the plain extension to exit on stdin EOF",
        );
        for (const pid of survivors()) process.kill(pid, "SIGKILL");
        console.log("# containment is process-group: setsid grandchildren survive a SIGKILLed host here");
      }
    } finally {
      for (const pid of processesMentioning(dir)) process.kill(pid, "SIGKILL");
      await cleanup();
    }
  },
);
