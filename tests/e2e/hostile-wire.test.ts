/**
 * Issue 13, "what hostile extensions broke", the wire and process items, through real processes:
 * a fake extension (tests/fixtures/fake-ext.mjs) misbehaves next to a good one, and the host must
 * refuse or end it at the cause while the good one goes on answering.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ExtensionHost, type HostEvent, type SupervisorClock } from "@octet/host";
import { CLI, makeExtensions, processesMentioning, ROOT, waitUntil } from "./helpers.js";

/** Restarts are scheduled but never fired: the ended generation stays visible. */
const held: SupervisorClock = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };

async function withFaulty(behaviour: string, run: (host: ExtensionHost, diagnostics: () => string[], faultyDir: string) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const { dir, cleanup } = await makeExtensions([
    { name: "good", behaviour: "good", tools: ["echo", "slow"] },
    { name: "faulty", behaviour, tools: ["f_echo", "f_slow"] },
  ]);
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["good", "faulty"], onEvent: (e) => events.push(e), supervision: { clock: held }, env: { ...process.env, ...env } });
  const faultyDir = join(dir, "faulty");
  try {
    assert.equal(host.status().find((x) => x.name === "faulty")?.state, "ready");
    await run(host, () => events.flatMap((e) => (e.type === "diagnostic" && e.extension === "faulty" ? [e.message] : [])), faultyDir);
    assert.equal((await host.callTool("echo", { still: "up" })).text, '{"still":"up"}');
  } finally {
    await host.shutdown();
    assert.deepEqual(processesMentioning(faultyDir), [], "no process of the faulty extension is left");
    await cleanup();
  }
}

function faultyStatus(host: ExtensionHost): ReturnType<ExtensionHost["status"]>[number] {
  return host.status().find((x) => x.name === "faulty")!;
}

test("issue 13.13: an answer whose real id is spelled \"\\u0069d\" after a decoy id is refused, not taken as the answer", async () => {
  await withFaulty("escaped-id", async (host, diagnostics) => {
    await assert.rejects(host.callTool("f_echo", {}));
    await waitUntil(() => faultyStatus(host).state === "crashed", 10_000, "the faulty generation to be terminated");
    assert.match(faultyStatus(host).lastError ?? "", /member "id" appears more than once/);
    assert.ok(diagnostics().some((d) => /protocol violation: .*member "id" appears more than once/.test(d)));
  });
});

test("issue 13.13: an answer whose id is written 2.00000000000000001 is refused, not aliased to id 2", async () => {
  await withFaulty("fractional-id", async (host) => {
    await assert.rejects(host.callTool("f_echo", {}));
    await waitUntil(() => faultyStatus(host).state === "crashed", 10_000, "the faulty generation to be terminated");
    assert.match(faultyStatus(host).lastError ?? "", /id \d+\.00000000000000001 is not written as an integer/);
  });
});

// Both tiers: behind the namespace launcher the pipe never reads EOF (the launcher holds it open).
for (const tier of ["default containment", "process-group"]) {
  test(`issue 13.13: an extension that closes stdout but keeps running is stopped at once (${tier}): calls fail with the cause, not a timeout`, async () => {
    await withFaulty("close-stdout", async (host, diagnostics, faultyDir) => {
      // Without a timeout of its own the call could wait the full 60 s default; it must end with the transport.
      const outcome = await host.callTool("f_echo", {}).then(() => "answered", (err: Error) => err.message);
      assert.match(outcome, /closed its stdout/);
      await waitUntil(() => faultyStatus(host).state === "crashed", 10_000, "the faulty generation to be terminated");
      assert.match(faultyStatus(host).lastError ?? "", /transport ended: the extension closed its stdout but kept running/);
      assert.ok(diagnostics().some((d) => /closed its stdout but kept running; terminating it/.test(d)));
      assert.deepEqual(processesMentioning(faultyDir), [], "the still-running process was killed");
    }, tier === "process-group" ? { OCTET_CONTAINMENT: "process-group" } : {});
  });
}
