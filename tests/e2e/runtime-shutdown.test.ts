/**
 * Draining shutdown of API 0.2 generations against real processes: no new work once draining,
 * in-flight requests get a bounded time to finish, the rest are cancelled with reason shutdown
 * (or reload), and then the ordinary request/ack, exit and group cleanup runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { processesMentioning, waitUntil } from "./helpers.js";
import { json, untilAborted, withRuntime, type Frame } from "./runtime-helpers.js";

function statesOf(events: { type: string; extension?: string; state?: string }[], name: string): string[] {
  return events.flatMap((e) => (e.type === "state" && e.extension === name ? [e.state!] : []));
}

function inbound(frames: Frame[]): Frame["msg"][] {
  return frames.filter((f) => f.dir === "in").map((f) => f.msg);
}

test(
  "SHUT-08, LIFE-01: an API 0.2 generation drains: no new work, in-flight work cancelled with reason shutdown at " +
    "the bounded deadline, then shutdown",
  async () => {
    let wire: Frame[] = [];
    await withRuntime([{ name: "busy" }], {}, async ({ host, events, dir, frames, waitReceived }) => {
      const call = host.callTool("cancellable", {});
      const inFlight = assert.rejects(call, /cancelled|shutdown|stopped/);
      const sent = await waitReceived("busy", (m) => m.method === "tool/call", "the call");
      const started = Date.now();
      const stopping = host.shutdown();
      await waitUntil(() => statesOf(events, "busy").includes("draining"), 2_000, "the draining state");
      await assert.rejects(host.callTool("echo", { during: "drain" }), /draining|not ready|stopping/);
      await stopping;
      const took = Date.now() - started;
      await inFlight;
      wire = frames("busy");
      assert.deepEqual(statesOf(events, "busy"), ["initializing", "ready", "draining", "stopped"]);
      const order = inbound(wire)
        .filter((m) => m.method !== "initialize")
        .map((m) => (m.method === "$/cancelRequest" ? `cancel ${m.params.id} ${m.params.reason}` : m.method));
      assert.deepEqual(
        order,
        ["tool/call", `cancel ${sent.id} shutdown`, "shutdown"],
        "the draining request was never written",
      );
      const cancelAt = wire.findIndex((f) => f.msg.method === "$/cancelRequest");
      assert.equal(
        wire.slice(cancelAt).find((f) => f.dir === "out" && f.msg.id === sent.id)?.msg.error?.code,
        -32800,
        "the extension settled it",
      );
      assert.ok(
        took >= 1_400 && took < 3_500,
        `drained for the bounded deadline within the 3 s aggregate (${took} ms)`,
      );
      assert.deepEqual(processesMentioning(dir), []);
    });
  },
);

test("SHUT-08: work that finishes within the drain deadline completes normally and nothing is cancelled", async () => {
  await withRuntime([{ name: "busy" }], {}, async ({ host, received, waitReceived }) => {
    const call = host.callTool("hold", { ms: 300 });
    await waitReceived("busy", (m) => m.method === "tool/call", "the call");
    const started = Date.now();
    await host.shutdown();
    assert.deepEqual(json(await call), { max: 1 }, "the in-flight call got its real answer");
    assert.ok(Date.now() - started < 1_400, "shutdown went on as soon as nothing was in flight");
    assert.deepEqual(received("busy", "$/cancelRequest"), []);
    assert.equal(received("busy", "shutdown").length, 1);
  });
});

test(
  "SHUT-07, SHUT-08: a fast shutdown with a request that ignores cancellation still ends within the 1.4 s cap plus " +
    "reaping",
  async () => {
    await withRuntime([{ name: "deaf" }], {}, async ({ host, dir, received, waitReceived }) => {
      const call = assert.rejects(host.callTool("ignore_cancel", {}), /cancelled|shutdown|stopped|closed/);
      await waitReceived("deaf", (m) => m.method === "tool/call", "the call");
      const started = Date.now();
      await host.shutdown({ fast: true });
      const took = Date.now() - started;
      await call;
      assert.ok(took < 2_500, `fast shutdown took ${took} ms`);
      assert.equal(received("deaf", "$/cancelRequest")[0]?.params.reason, "shutdown");
      assert.deepEqual(processesMentioning(dir), []);
    });
  },
);

test(
  "SHUT-08, CANCEL-11, CALL-09, SUP-22: a reload drains the old generation and cancels what is left with reason " +
    "reload; the new one serves",
  async () => {
    await withRuntime([{ name: "busy" }], {}, async ({ host, events, frames, waitReceived }) => {
      const call = assert.rejects(host.callTool("cancellable", {}), /cancelled|reload/);
      const sent = await waitReceived("busy", (m) => m.method === "tool/call", "the call");
      const status = await host.reload("busy");
      await call;
      assert.equal(status.generation, 2);
      const old = inbound(frames("busy").filter((f) => f.g === 1));
      assert.deepEqual(
        old.filter((m) => m.method === "$/cancelRequest").map((m) => m.params),
        [{ id: sent.id, reason: "reload" }],
      );
      assert.equal(old.at(-1)?.method, "shutdown");
      assert.ok(statesOf(events, "busy").includes("draining"));
      assert.deepEqual(json(await host.callTool("echo", { gen: 2 })), { gen: 2 });
      const fresh = inbound(frames("busy").filter((f) => f.g === 2));
      assert.deepEqual(
        fresh.map((m) => m.method),
        ["initialize", "tool/call"],
      );
      assert.equal(sent.params.context.resource_owner.process_generation, 1);
      assert.equal(fresh[1]!.params.context.resource_owner.process_generation, 2, "the owner names the new generation");
    });
  },
);

test(
  "CONF-05, CANCEL-10: a confirmation pending across a reload is withdrawn with its generation; the replacement " +
    "never gets its answer",
  async () => {
    const seen = { aborted: 0 };
    let asked = 0;
    const confirm = (r: { signal: AbortSignal }): Promise<boolean> =>
      asked++ === 0 ? untilAborted(true, seen)(r) : Promise.resolve(true);
    await withRuntime(
      [{ name: "asker", contributes: "confirmations = true" }],
      { services: { confirm } },
      async ({ host, frames }) => {
        const call = assert.rejects(host.callTool("confirm", {}), /cancelled|reload/);
        await waitUntil(() => asked === 1, 5_000, "the embedder to be asked");
        await host.reload("asker");
        await call;
        assert.equal(seen.aborted, 1, "the prompt was withdrawn");
        const answers = frames("asker").filter((f) => f.dir === "in" && f.msg.id === "confirmation-1");
        assert.ok(
          answers.every((f) => f.g === 1 && f.msg.error?.code === -32800),
          `only the old generation heard of it, as cancelled: ${JSON.stringify(answers)}`,
        );
        assert.equal(json(await host.callTool("confirm", {})).result.confirmed, true, "the new generation asks afresh");
      },
    );
  },
);

test(
  "SHUT-08, FRAME-13: a call waiting for a slot when draining starts is never written; on reload it goes to the new " +
    "generation",
  async () => {
    await withRuntime([{ name: "queue", config: { max: 1 } }], {}, async ({ host, frames, waitReceived }) => {
      const running = host.callTool("cancellable", {});
      const runningDone = running.catch(() => undefined);
      await waitReceived("queue", (m) => m.method === "tool/call", "the running call");
      const waiting = assert.rejects(host.callTool("echo", { queued: "shutdown" }), /not sent/);
      await host.shutdown();
      await waiting;
      await runningDone;
      const echoes = inbound(frames("queue")).filter(
        (m) => m.method === "tool/call" && m.params?.arguments?.queued === "shutdown",
      );
      assert.deepEqual(echoes, [], "the waiting call was never written, so nothing ambiguous happened");
    });
    await withRuntime([{ name: "queue", config: { max: 1 } }], {}, async ({ host, frames, waitReceived }) => {
      const running = host.callTool("cancellable", {});
      const runningDone = running.catch(() => undefined);
      await waitReceived("queue", (m) => m.method === "tool/call", "the running call");
      const waiting = host.callTool("echo", { queued: "reload" });
      await host.reload("queue");
      assert.deepEqual(json(await waiting), { queued: "reload" }, "served by the replacement");
      await runningDone;
      const byGen = frames("queue")
        .filter((f) => f.dir === "in" && f.msg.method === "tool/call" && f.msg.params?.arguments?.queued === "reload")
        .map((f) => f.g);
      assert.deepEqual(byGen, [2], "written once, to generation 2 only");
    });
  },
);
