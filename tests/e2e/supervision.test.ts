/**
 * Supervision against real processes (fake-ext.mjs): crashes, crash loops, permanent errors,
 * shutdown during backoff, manual reloads racing restarts. Backoff uses an injected clock: either
 * timers the test fires by hand, or real timers with random() = 0 (every delay 0 ms), so the
 * suite never waits out a real backoff.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ExtensionHost, type HostEvent, type SupervisorClock } from "@octet/host";
import { makeExtensions, processesMentioning, waitUntil, type FakeSpec } from "./helpers.js";

/** Timers that fire only when the test says so; time is the real clock. */
class HandTimers implements SupervisorClock {
  pending: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  now(): number {
    return Date.now();
  }
  random(): number {
    return 0.5;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const t = { fn, ms, cancelled: false };
    this.pending.push(t);
    return () => {
      t.cancelled = true;
    };
  }
  live(): { fn: () => void; ms: number; cancelled: boolean }[] {
    return this.pending.filter((t) => !t.cancelled);
  }
  fire(): void {
    const due = this.live();
    assert.equal(due.length, 1, "exactly one restart is scheduled");
    due[0]!.cancelled = true;
    due[0]!.fn();
  }
}

/** Real timers, zero delay: the fastest honest crash loop. */
const instant: SupervisorClock = {
  now: () => Date.now(),
  random: () => 0,
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

interface Ctx {
  host: ExtensionHost;
  events: HostEvent[];
  dir: string;
  status: (name?: string) => ReturnType<ExtensionHost["status"]>[number];
  /** fake-ext.log lines of one extension (default the first), without the name: "spawn GEN", "call GEN TOOL ARGS". */
  log: (name?: string) => string[];
}

async function withSupervised(
  specs: FakeSpec[],
  clock: SupervisorClock,
  body: (ctx: Ctx) => Promise<void>,
  markers: string[] = ["fake-ext-log"],
): Promise<void> {
  const { dir, cleanup } = await makeExtensions(specs);
  for (const m of markers) await writeFile(join(dir, m), "");
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: specs.map((s) => s.name),
    onEvent: (e) => events.push(e),
    supervision: { clock },
    timeouts: { initializeMs: 5_000 },
  });
  const ctx: Ctx = {
    host,
    events,
    dir,
    status: (name = specs[0]!.name) => {
      const s = host.status().find((x) => x.name === name);
      assert.ok(s, `${name} is listed`);
      return s;
    },
    log: (name = specs[0]!.name) => {
      const all = existsSync(join(dir, "fake-ext.log"))
        ? readFileSync(join(dir, "fake-ext.log"), "utf8").trim().split("\n")
        : [];
      return all.flatMap((line) => {
        const [kind, ext, ...rest] = line.split(" ");
        return ext === name ? [[kind, ...rest].join(" ")] : [];
      });
    },
  };
  try {
    await body(ctx);
  } finally {
    await host.shutdown();
    try {
      assert.deepEqual(processesMentioning(dir), [], "no process of the test is left");
    } finally {
      await cleanup();
    }
  }
}

const supervision = (events: HostEvent[], name: string): string[] =>
  events.flatMap((e) => (e.type === "supervision" && e.extension === name ? [e.action] : []));

test(
  "SUP-01, SUP-02, SUP-13, SUP-20, CANCEL-08, LIFE-01: a crash mid-call fails that call, removes the tools, and a " +
    "restart brings generation 2 (the unsafe call is not replayed)",
  async () => {
    const timers = new HandTimers();
    await withSupervised(
      [
        { name: "crashy", behaviour: "good", tools: ["c_echo", "c_slow"] },
        { name: "bystander", behaviour: "good" },
      ],
      timers,
      async ({ host, events, status, log }) => {
        const first = status();
        const highest = (): number => Math.max(...host.status().map((s) => s.generation));
        const maxBefore = highest();
        assert.equal(first.supervision, "watching");
        await assert.rejects(host.callTool("c_echo", { __exit: 3 }), /crashy|exit|closed|ended/i);
        await waitUntil(() => status().supervision === "backoff", 5_000, "the supervisor to schedule a restart");
        const down = status();
        assert.equal(down.state, "crashed");
        assert.equal(down.health, "failed");
        assert.match(down.lastError ?? "", /exited with code 3/);
        assert.ok(
          down.stderrTail.some((l) => l.includes("exiting with 3 mid-call")),
          "the stderr tail says why",
        );
        assert.equal(
          down.nextRestartInMs !== null && down.nextRestartInMs <= 125,
          true,
          "random 0.5 of the first 250 ms ceiling",
        );
        assert.ok(!host.tools().some((t) => t.name === "c_echo"), "the dead generation's tools are gone (SUP-01)");
        assert.ok(
          host.tools().some((t) => t.name === "echo"),
          "the other extension's tools stay",
        );
        assert.equal((await host.callTool("echo", { still: "up" })).text, '{"still":"up"}');
        await assert.rejects(host.callTool("c_echo", {}), /crashed|not running|no ready/i);
        assert.deepEqual(
          timers.live().map((t) => t.ms),
          [125],
        );

        timers.fire();
        await waitUntil(() => status().state === "ready", 5_000, "the restarted generation to be ready");
        const after = status();
        assert.equal(
          after.generation,
          maxBefore + 1,
          "the next generation is the host's previous maximum + 1 (SUP-13)",
        );
        assert.notEqual(after.pid, first.pid);
        assert.equal(after.restarts, 1);
        assert.equal(after.supervision, "watching");
        assert.deepEqual(supervision(events, "crashy"), ["restart_scheduled", "restarting", "restarted"]);
        assert.equal((await host.callTool("c_echo", { n: 2 })).text, '{"n":2}');
        // SUP-20: the call that crashed generation 1 reached only generation 1.
        const calls = log().filter((l) => l.startsWith("call "));
        assert.deepEqual(
          calls.map((l) => l.split(" ").slice(1, 3)),
          [
            [String(first.generation), "c_echo"],
            [String(after.generation), "c_echo"],
          ],
        );
        assert.ok(calls[1]!.endsWith('{"n":2}'), "generation 2 got only the new call");
        // The state machine of generation 1 as the embedder saw it.
        const g1 = events.flatMap((e) =>
          e.type === "state" && e.extension === "crashy" && e.generation === first.generation ? [e.state] : [],
        );
        assert.deepEqual(g1, ["initializing", "ready", "crashed"]);
      },
    );
  },
);

test(
  "SUP-04, SUP-03: an extension that exits right after initialize forever is parked after eight restarts (nine " +
    "spawns); the other one is unaffected",
  async () => {
    await withSupervised(
      [
        { name: "looper", behaviour: "exit-after-init", tools: ["l_echo", "l_slow"] },
        { name: "bystander", behaviour: "good" },
      ],
      instant,
      async ({ host, events, status, log }) => {
        await waitUntil(() => status("looper").supervision === "parked", 20_000, "the crash loop to be parked");
        const s = status("looper");
        assert.equal(s.state, "parked");
        assert.equal(s.health, "failed");
        assert.match(s.parkedReason ?? "", /8 restart attempts failed; last failure: .*exited with code 1/);
        const spawns = log()
          .filter((l) => l.startsWith("spawn "))
          .map((l) => Number(l.split(" ")[1]));
        assert.equal(spawns.length, 9, "nine generations in all");
        assert.equal(s.generation, spawns.at(-1), "a supervisor-parked extension keeps its last generation number");
        assert.equal(s.restarts, 8, "each restart initialized, then died: counted as restarts and as failures");
        const scheduled = events.flatMap((e) =>
          e.type === "supervision" && e.extension === "looper" && e.action === "restart_scheduled" ? [e.attempt] : [],
        );
        assert.deepEqual(scheduled, [0, 1, 2, 3, 4, 5, 6, 7]);
        const parkedDiagnostic = events.find(
          (e) =>
            e.type === "diagnostic" && e.extension === "looper" && /parked, no more automatic restarts/.test(e.message),
        );
        assert.ok(parkedDiagnostic, "one clear diagnostic says it is parked and how to revive it");
        assert.equal((await host.callTool("echo", { ok: true })).text, '{"ok":true}');
        // Parked means parked: no spawn follows.
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(log().filter((l) => l.startsWith("spawn ")).length, 9);
      },
    );
  },
);

test("SUP-06, SUP-15: a restart whose catalog changed parks at once as re-registration required", async () => {
  const timers = new HandTimers();
  await withSupervised([{ name: "shifty", behaviour: "good" }], timers, async ({ host, dir, status, log }) => {
    await assert.rejects(host.callTool("echo", { __exit: 2 }));
    await waitUntil(() => status().supervision === "backoff", 5_000, "backoff");
    await writeFile(join(dir, "fake-ext-changed"), "");
    timers.fire();
    await waitUntil(() => status().supervision === "parked", 5_000, "parked");
    const s = status();
    assert.match(s.parkedReason ?? "", /re-registration required/);
    assert.equal(timers.live().length, 0, "no retry is scheduled for a permanent error");
    assert.equal(log().filter((l) => l.startsWith("spawn ")).length, 2, "one candidate, refused, and no more");
  });
});

test("SUP-15, SUP-16: a manual reload with a changed catalog is refused and the running generation stays", async () => {
  await withSupervised([{ name: "shifty", behaviour: "good" }], new HandTimers(), async ({ host, dir, status }) => {
    const before = status();
    await writeFile(join(dir, "fake-ext-changed"), "");
    await assert.rejects(
      host.reload("shifty"),
      (err: Error & { code?: string }) =>
        err.code === "reregistration_required" && /generation 1 stays active/.test(err.message),
    );
    const after = status();
    assert.equal(after.state, "ready");
    assert.equal(after.pid, before.pid);
    assert.equal(after.supervision, "watching", "a refused reload of a running extension parks nothing");
  });
});

test("SUP-07: shutdown during backoff cancels the restart: no generation is spawned after it", async () => {
  const timers = new HandTimers();
  const { dir, cleanup } = await makeExtensions([{ name: "crashy", behaviour: "good" }]);
  await writeFile(join(dir, "fake-ext-log"), "");
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["crashy"],
    supervision: { clock: timers },
  });
  try {
    await assert.rejects(host.callTool("echo", { __exit: 1 }));
    await waitUntil(() => host.status()[0]!.supervision === "backoff", 5_000, "backoff");
    await host.shutdown();
    assert.equal(timers.live().length, 0, "the scheduled restart was cancelled");
    assert.equal(host.status()[0]!.supervision, "stopped");
    await assert.rejects(host.reload("crashy"), /shutting down/);
    await new Promise((r) => setTimeout(r, 200));
    const spawns = readFileSync(join(dir, "fake-ext.log"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("spawn crashy "));
    assert.equal(spawns.length, 1);
    assert.deepEqual(processesMentioning(dir), []);
  } finally {
    await host.shutdown();
    await cleanup();
  }
});

test(
  "SUP-08: a manual reload asked for while an automatic restart is starting waits for it: generations never overlap " +
    "in starting",
  async () => {
    const timers = new HandTimers();
    await withSupervised([{ name: "slowpoke", behaviour: "good" }], timers, async ({ host, dir, events, status }) => {
      await assert.rejects(host.callTool("echo", { __exit: 1 }));
      await waitUntil(() => status().supervision === "backoff", 5_000, "backoff");
      await writeFile(join(dir, "fake-ext-slow-init"), ""); // each candidate takes 1.5 s to initialize
      timers.fire();
      await waitUntil(() => status().supervision === "restarting", 2_000, "the restart to begin");
      const reloaded = await host.reload("slowpoke");
      assert.equal(reloaded.generation, 3);
      assert.equal(reloaded.state, "ready");
      const at = (gen: number, state: string): number =>
        events.findIndex(
          (e) => e.type === "state" && e.extension === "slowpoke" && e.generation === gen && e.state === state,
        );
      assert.ok(
        at(2, "ready") !== -1 && at(3, "initializing") > at(2, "ready"),
        "generation 3 started only after the restart's generation 2 was ready",
      );
      assert.ok(at(2, "stopped") > at(3, "ready"), "and generation 2 stopped after 3 took over");
      assert.equal(status().restarts, 1);
      assert.equal(status().supervision, "watching");
    });
  },
);

test(
  "SUP-09, SUP-10: a manual reload revives a supervisor-parked extension with a fresh budget; an initial start " +
    "failure is a generation-0 parked entry never retried",
  async () => {
    const timers = new HandTimers();
    const { dir, cleanup } = await makeExtensions([
      { name: "phoenix", behaviour: "good" },
      { name: "stillborn", behaviour: "crash-on-start", tools: ["s_echo", "s_slow"] },
    ]);
    const host = await ExtensionHost.start({
      workspace: dir,
      extensionDirs: [dir],
      enable: ["phoenix", "stillborn"],
      supervision: { clock: timers },
    });
    try {
      const stillborn = host.status().find((s) => s.name === "stillborn")!;
      assert.equal(stillborn.state, "parked");
      assert.equal(stillborn.generation, 0);
      assert.equal(stillborn.supervision, "off", "no supervisor before a first successful initialization (SUP-10)");
      await assert.rejects(host.callTool("echo", { __exit: 1 }));
      await waitUntil(() => host.status()[0]!.supervision === "backoff", 5_000, "backoff");
      await writeFile(join(dir, "fake-ext-changed"), "");
      timers.fire();
      await waitUntil(() => host.status()[0]!.supervision === "parked", 5_000, "parked");
      assert.equal(timers.live().length, 0);
      await rm(join(dir, "fake-ext-changed"));
      const revived = await host.reload("phoenix");
      assert.equal(revived.state, "ready");
      assert.equal(revived.supervision, "watching");
      assert.equal(revived.restartAttempts, 0, "a fresh budget");
      assert.equal(revived.parkedReason, null);
      assert.equal((await host.callTool("echo", { back: 1 })).text, '{"back":1}');
      // And supervision works again after the revival.
      await assert.rejects(host.callTool("echo", { __exit: 1 }));
      await waitUntil(() => host.status()[0]!.supervision === "backoff", 5_000, "backoff again");
      assert.equal(
        host.status().find((s) => s.name === "stillborn")!.state,
        "parked",
        "the generation-0 entry was never retried",
      );
    } finally {
      await host.shutdown();
      await cleanup();
    }
  },
);

test(
  "SUP-11: the supervisor never heartbeats a live process: an idle " + "extension receives nothing but initialize",
  async () => {
    await withSupervised([{ name: "quiet", behaviour: "good" }], instant, async ({ host }) => {
      await new Promise((r) => setTimeout(r, 1_000));
      const methods = JSON.parse((await host.callTool("echo", { __show: "methods" })).text) as string[];
      assert.deepEqual(methods, ["initialize", "tool/call"]);
    });
  },
);

test(
  "SUP-12: a full rebuild (a new ExtensionHost) is a new instance with a new supervisor: parked state does not " +
    "carry over",
  async () => {
    const { dir, cleanup } = await makeExtensions([{ name: "twice", behaviour: "good", api: "0.2" }]);
    const timers = new HandTimers();
    const a = await ExtensionHost.start({
      workspace: dir,
      extensionDirs: [dir],
      enable: ["twice"],
      supervision: { clock: timers },
    });
    let b: ExtensionHost | null = null;
    try {
      await assert.rejects(a.callTool("echo", { __exit: 1 }));
      await waitUntil(() => a.status()[0]!.supervision === "backoff", 5_000, "backoff");
      await writeFile(join(dir, "fake-ext-changed"), "");
      timers.fire();
      await waitUntil(() => a.status()[0]!.supervision === "parked", 5_000, "parked");
      await a.shutdown();
      // The rebuild accepts the new catalog and starts fresh.
      b = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["twice"] });
      assert.notEqual(b.instanceId, a.instanceId);
      const s = b.status()[0]!;
      assert.equal(s.state, "ready");
      assert.equal(s.generation, 1);
      assert.equal(s.restarts, 0);
      assert.equal(s.supervision, "watching");
      const context = JSON.parse((await b.callTool("echo", { __show: "context" })).text) as {
        resource_owner: { extension_instance_id: string; process_generation: number };
      };
      assert.equal(
        context.resource_owner.extension_instance_id,
        b.instanceId,
        "the new instance id is the one extensions see",
      );
      assert.equal(context.resource_owner.process_generation, 1);
      assert.match(
        b.tools().find((t) => t.name === "echo")!.description,
        /changed/,
        "the rebuilt host took the new catalog",
      );
    } finally {
      await a.shutdown();
      await b?.shutdown();
      await cleanup();
    }
  },
);
