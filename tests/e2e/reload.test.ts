/**
 * Reload against real processes: the candidate is negotiated while the current generation serves,
 * routing switches atomically, the old generation drains within its deadline, and nothing issued
 * to one generation reaches the next.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { makeExtensions, processesMentioning, type FakeSpec } from "./helpers.js";

async function withHost(
  specs: FakeSpec[],
  options: Partial<Parameters<typeof ExtensionHost.start>[0]>,
  body: (host: ExtensionHost, events: HostEvent[], dir: string) => Promise<void>,
): Promise<void> {
  const { dir, cleanup } = await makeExtensions(specs);
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: specs.map((s) => s.name),
    onEvent: (e) => events.push(e),
    ...options,
  });
  try {
    await body(host, events, dir);
  } finally {
    await host.shutdown();
    assert.deepEqual(processesMentioning(dir), [], "no process left");
    await cleanup();
  }
}

const stateAt = (events: HostEvent[], gen: number, state: string): number =>
  events.findIndex((e) => e.type === "state" && e.generation === gen && e.state === state);

test(
  "SUP-14, SUP-21: the candidate is started and negotiated while " + "the current generation keeps serving calls",
  async () => {
    await withHost([{ name: "busy", behaviour: "good", api: "0.2" }], {}, async (host, events, dir) => {
      await writeFile(join(dir, "fake-ext-slow-init"), ""); // the candidate takes 1.5 s to answer initialize
      const reloading = host.reload("busy");
      const served: number[] = [];
      const started = Date.now();
      while (Date.now() - started < 1_000) {
        const s = host.status()[0]!;
        assert.equal(s.generation, 1, "generation 1 is the active one while 2 initializes");
        const out = await host.callTool("echo", { __show: "context" });
        served.push(
          (JSON.parse(out.text) as { resource_owner: { process_generation: number } }).resource_owner
            .process_generation,
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(
        served.length >= 5 && served.every((g) => g === 1),
        `generation 1 served every call during the reload: ${served.join(",")}`,
      );
      assert.equal(stateAt(events, 2, "initializing") !== -1, true, "the candidate was starting meanwhile");
      const after = await reloading;
      assert.equal(after.generation, 2);
      const ctx = JSON.parse((await host.callTool("echo", { __show: "context" })).text) as {
        resource_owner: { process_generation: number };
      };
      assert.equal(ctx.resource_owner.process_generation, 2, "new calls go to generation 2");
      await rm(join(dir, "fake-ext-slow-init"));
    });
  },
);

test(
  "SUP-17, SUP-23: after the swap new calls go to N+1 at once; N drains for at most 2 s, the remainder is " +
    "cancelled, then N stops",
  async () => {
    await withHost([{ name: "drainer", behaviour: "good", api: "0.2" }], {}, async (host, events) => {
      const slow = host.callTool("slow", {}).then(
        (r) => ({ ok: true as const, text: r.text, isError: r.is_error }),
        (e: Error) => ({ ok: false as const, text: e.message, isError: true }),
      );
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const reloading = host.reload("drainer");
      // As soon as generation 2 is ready, calls route there, while 1 is still draining.
      while (host.status()[0]!.generation !== 2) await new Promise((r) => setTimeout(r, 10));
      const ctx = JSON.parse((await host.callTool("echo", { __show: "context" })).text) as {
        resource_owner: { process_generation: number };
      };
      assert.equal(ctx.resource_owner.process_generation, 2);
      assert.notEqual(stateAt(events, 1, "draining"), -1, "generation 1 is draining");
      assert.equal(stateAt(events, 1, "stopped"), -1, "and not stopped yet: the call in flight holds it");
      const outcome = await slow;
      const drained = Date.now() - t0;
      assert.equal(outcome.isError, true, "the call still running at the drain deadline is cancelled, not answered");
      assert.ok(drained >= 1_900 && drained < 4_500, `the drain deadline is 2 s (took ${drained} ms)`);
      await reloading;
      assert.ok(stateAt(events, 1, "stopped") > stateAt(events, 2, "ready"));
    });
  },
);

test(
  "SUP-19: nothing issued to generation N crosses to N+1: a confirmation pending from N is abandoned with N, and " +
    "N+1 has its own owner triple",
  async () => {
    const asked: { signal: AbortSignal; extension: string }[] = [];
    const confirm = (req: { signal: AbortSignal; extension: string }): Promise<boolean> =>
      new Promise((resolve) => {
        asked.push(req);
        req.signal.addEventListener("abort", () => resolve(false), { once: true });
      });
    await withHost(
      [{ name: "asker", behaviour: "confirm", api: "0.2", extraToml: "confirmations = true" }],
      { services: { confirm } },
      async (host) => {
        const pending = host.callTool("echo", {}).then(
          (r) => r,
          (e: Error) => e,
        );
        while (asked.length === 0) await new Promise((r) => setTimeout(r, 10));
        assert.equal(asked[0]!.signal.aborted, false);
        const reloaded = await host.reload("asker");
        assert.equal(reloaded.generation, 2);
        assert.equal(asked[0]!.signal.aborted, true, "generation 1's confirmation was abandoned when it ended");
        await pending;
        assert.equal(asked.length, 1, "generation 2 was never asked to finish generation 1's confirmation");
      },
    );
  },
);
