/**
 * The fault-injection suite, wire rows (reliability.md's fault table): framing, envelopes,
 * responses and cancellation. The runner and its four common checks are in fault-scenario.ts; the
 * process rows are in fault-suite-process.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "./helpers.js";
import { rssMiB, runScenario, type Scenario } from "./fault-scenario.js";

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
      assert.ok(
        t.diagnostics().some((d) => /input ended inside a frame/.test(d)),
        JSON.stringify(t.diagnostics()),
      );
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
      assert.ok(
        t.diagnostics().some((d) => /more diagnostics suppressed/.test(d)) || t.diagnostics().length < 25,
        "the flood is summarized",
      );
    },
  },
  {
    title: "CANCEL-06 (R2): the same response twice settles the call once; the second is diagnosed",
    behaviour: "answer-twice",
    goneAfterRun: false,
    run: async (t) => {
      assert.equal((await t.host.callTool("f_echo", {})).text, "first");
      await waitUntil(
        () => t.diagnostics().some((d) => /late response|unknown request/.test(d)),
        2_000,
        "a diagnostic for the second answer",
      );
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
      await waitUntil(
        () => t.diagnostics().some((d) => /late response/.test(d)),
        3_000,
        "the late answer's diagnostic",
      );
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
      await assert.rejects(
        t.host.callTool("f_echo", {}, { timeoutMs: 300 }),
        (e: Error & { code?: string }) => e.code === "request_timeout" || /within 300 ms/.test(e.message),
      );
      assert.equal(t.faulty().state, "ready");
    },
  },
  {
    title:
      "REV-04 (R7): 200 confirmation requests at once: 128 wait, the rest are refused; nothing queues without bound",
    behaviour: "confirm-flood",
    goneAfterRun: false,
    run: async (t) => {
      const counts = JSON.parse((await t.host.callTool("f_echo", {})).text) as Record<string, number>;
      assert.equal(counts["-32002"], 72);
    },
  },
];

for (const s of scenarios) test(s.title, () => runScenario(s));
