/**
 * Fault fixtures against the real host: each misbehaving extension runs beside a good one. After
 * each fault the host is still up, the good extension still answers, the diagnostic is clear and
 * bounded, and no process of the faulty extension is alive.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { makeExtensions, groupMembers, processesMentioning, waitUntil } from "./helpers.js";

async function withPair(
  behaviour: string,
  body: (host: ExtensionHost, events: HostEvent[], dir: string) => Promise<void>,
): Promise<void> {
  const { dir, cleanup } = await makeExtensions([
    { name: "good", behaviour: "good", tools: ["echo", "slow"] },
    { name: "faulty", behaviour, tools: ["echo_faulty", "slow_faulty"] },
  ]);
  const events: HostEvent[] = [];
  // Supervision off: each test looks at one fault, not at the restart that would follow it
  // (tests/e2e/supervision.test.ts and fault-suite.test.ts cover restarts).
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["good", "faulty"],
    onEvent: (e) => events.push(e),
    timeouts: { initializeMs: 5_000 },
    supervision: { enabled: false },
  });
  try {
    await body(host, events, dir);
  } finally {
    await host.shutdown();
    await cleanup();
  }
}

function faultyStatus(host: ExtensionHost) {
  const s = host.status().find((x) => x.name === "faulty");
  assert.ok(s, "faulty extension is listed");
  return s;
}

function assertNoProcessLeft(dir: string): void {
  assert.deepEqual(processesMentioning(dir), [], `no process of ${dir} is alive`);
}

test("LIFE-01, SUP-10: an extension that crashes on start is parked with its stderr; the other one works", async () => {
  await withPair("crash-on-start", async (host, events, dir) => {
    const s = faultyStatus(host);
    assert.equal(s.state, "parked");
    assert.equal(s.generation, 0);
    assert.equal(s.health, "failed");
    assert.match(s.lastError ?? "", /exited with code 1|transport|closed/);
    const good = await host.callTool("echo", { a: 1 });
    assert.equal(good.text, '{"a":1}');
    assert.ok(
      events.some((e) => e.type === "diagnostic" && e.extension === "faulty" && /could not start/.test(e.message)),
    );
    assertNoProcessLeft(dir + "/faulty");
  });
});

for (const [behaviour, pattern] of [
  ["oversize", /oversized frame: frame exceeds the 1048576-byte limit/],
  ["invalid-json", /stdout is not JSON/],
  ["crlf", /CR in a frame/],
] as const) {
  test(
    `FRAME-10, FRAME-09: a ${behaviour} line from the extension ` + `terminates it with a clear, bounded diagnostic`,
    async () => {
      await withPair(behaviour, async (host, events, dir) => {
        assert.equal(faultyStatus(host).state, "ready");
        const pid = faultyStatus(host).pgid!;
        await assert.rejects(host.callTool("echo_faulty", { x: 1 }), /closed|ended|violation/);
        await waitUntil(() => faultyStatus(host).state === "crashed", 5_000, "the faulty generation to be terminated");
        const diag = events.find((e) => e.type === "diagnostic" && e.extension === "faulty" && pattern.test(e.message));
        assert.ok(
          diag && diag.type === "diagnostic",
          `a diagnostic matching ${pattern}; got ${JSON.stringify(events.filter((e) => e.type === "diagnostic"))}`,
        );
        assert.ok(Buffer.byteLength(diag.message) <= 4096, "the diagnostic is at most 4 KiB");
        assert.ok((faultyStatus(host).lastError ?? "").length <= 1024, "last error is bounded");
        assert.deepEqual(groupMembers(pid), [], "no process of the faulty group is alive");
        assertNoProcessLeft(dir + "/faulty");
        const good = await host.callTool("echo", { still: "up" });
        assert.equal(good.text, '{"still":"up"}');
      });
    },
  );
}

test("FRAME-03: banner text on stdout before initialize is a protocol violation, not skipped", async () => {
  await withPair("banner", async (host, events, dir) => {
    const s = faultyStatus(host);
    assert.notEqual(s.state, "ready");
    assert.ok(
      events.some(
        (e) =>
          e.type === "diagnostic" &&
          e.extension === "faulty" &&
          /Welcome to fake-ext/.test(e.message) &&
          /log to stderr/.test(e.message),
      ),
    );
    assertNoProcessLeft(dir + "/faulty");
    assert.equal((await host.callTool("echo", {})).text, "{}");
  });
});

test(
  "SHUT-03, SHUT-04, SHUT-05, SHUT-06: an extension that ignores shutdown gets 2 s for the ack, 2 s to exit, then " +
    "its group is killed",
  async () => {
    await withPair("hang-shutdown", async (host, events, dir) => {
      const first = faultyStatus(host).pgid!;
      const firstGen = faultyStatus(host).generation;
      // A reload stops the old generation with the full per-stage timeouts.
      await host.reload("faulty");
      const stages = events.flatMap((e) =>
        e.type === "diagnostic" && e.extension === "faulty" && e.generation === firstGen ? [e.message] : [],
      );
      assert.match(stages[0] ?? "", /no shutdown acknowledgement: shutdown \(id \d+\) got no response within 2000 ms/);
      assert.match(stages[1] ?? "", /did not exit within 2000 ms of the shutdown request; killing its process group/);
      assert.deepEqual(groupMembers(first), [], "the old group is gone");
      // The product shutdown runs inside the 3 s aggregate: the exit stage gets what is left.
      const second = faultyStatus(host).pgid!;
      const secondGen = faultyStatus(host).generation;
      await host.shutdown();
      const last = events.flatMap((e) =>
        e.type === "diagnostic" && e.extension === "faulty" && e.generation === secondGen ? [e.message] : [],
      );
      assert.match(last[0] ?? "", /got no response within 2000 ms/);
      const exitWait = Number(/did not exit within (\d+) ms/.exec(last[1] ?? "")?.[1]);
      assert.ok(exitWait <= 1000, `the exit stage was cut to the rest of the 3 s aggregate (${exitWait} ms)`);
      assert.deepEqual(groupMembers(second), []);
      assertNoProcessLeft(dir + "/faulty");
    });
  },
);

test("ENV-09, SHUT-05: a grandchild in the extension's process group that ignores SIGTERM is killed too", async () => {
  await withPair("grandchild", async (host, _events, dir) => {
    const pid = faultyStatus(host).pgid!;
    await waitUntil(() => groupMembers(pid).length >= 2, 5_000, "the grandchild to start");
    await host.shutdown();
    await waitUntil(() => groupMembers(pid).length === 0, 3_000, "the whole group to be gone");
    assertNoProcessLeft(dir + "/faulty");
  });
});

test("LIFE-01: an extension that exits in the middle of a call fails that call; the host stays up", async () => {
  await withPair("exit-mid-call", async (host, events, dir) => {
    await assert.rejects(host.callTool("echo_faulty", {}), /exited with code 3|closed/);
    await waitUntil(() => faultyStatus(host).state === "crashed", 5_000, "crashed state");
    assert.match(faultyStatus(host).lastError ?? "", /exited with code 3/);
    assert.ok(events.some((e) => e.type === "state" && e.extension === "faulty" && e.state === "crashed"));
    assertNoProcessLeft(dir + "/faulty");
    assert.equal((await host.callTool("echo", { ok: true })).text, '{"ok":true}');
  });
});

test("INIT-08: an initialize response with an undeclared tool is rejected and the child killed", async () => {
  await withPair("bad-init", async (host, _events, dir) => {
    const s = faultyStatus(host);
    assert.equal(s.state, "parked");
    assert.match(s.lastError ?? "", /undeclared/);
    assertNoProcessLeft(dir + "/faulty");
  });
});
