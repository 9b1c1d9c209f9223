/**
 * Cancellation on the negotiated wire against real processes: nothing is sent for a request that
 * was never written, exactly one $/cancelRequest follows a written one, late replies are ignored
 * without disturbing other calls, an extension that never settles is terminated after the grace
 * period, and a settled parent cancels its pending reverse requests.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost } from "@octet/host";
import { makeExtensions, processesMentioning, waitUntil } from "./helpers.js";
import { json, untilAborted, withRuntime } from "./runtime-helpers.js";

test(
  "CANCEL-01: an API 0.1 extension never receives " + "$/cancelRequest, whether a call is cancelled or times out",
  async () => {
    const { dir, cleanup } = await makeExtensions([{ name: "old", behaviour: "good" }]);
    const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["old"] });
    try {
      const controller = new AbortController();
      const cancelled = host.callTool("slow", {}, { signal: controller.signal });
      controller.abort();
      await assert.rejects(cancelled, /cancelled/);
      await assert.rejects(host.callTool("slow", {}, { timeoutMs: 50 }), /no response within 50 ms/);
      const methods = JSON.parse((await host.callTool("echo", { __show: "methods" })).text) as string[];
      assert.deepEqual(methods, ["initialize", "tool/call", "tool/call", "tool/call"]);
    } finally {
      await host.shutdown();
      assert.deepEqual(processesMentioning(dir), []);
      await cleanup();
    }
  },
);

test(
  "CANCEL-02, FRAME-13: a request cancelled while it waits for a slot is never written and no $/cancelRequest " +
    "follows",
  async () => {
    await withRuntime([{ name: "one", config: { max: 1 } }], {}, async ({ host, received, waitReceived }) => {
      const holder = new AbortController();
      const a = host.callTool("cancellable", {}, { signal: holder.signal });
      await waitReceived("one", (m) => m.method === "tool/call", "the first call");
      const queued = new AbortController();
      const b = host.callTool("echo", { marker: "B" }, { signal: queued.signal });
      assert.equal(host.status()[0]!.pendingRequests, 1, "B waits for the only slot");
      queued.abort();
      await assert.rejects(b, /cancelled while waiting for a free request slot; nothing was sent/);
      holder.abort();
      await assert.rejects(a, /cancelled/);
      assert.deepEqual(json(await host.callTool("echo", { marker: "D" })), { marker: "D" });
      const calls = received("one", "tool/call");
      assert.deepEqual(
        calls.map((m) => m.params.arguments.marker ?? m.params.name),
        ["cancellable", "D"],
        "B was never written",
      );
      const cancels = received("one", "$/cancelRequest");
      assert.deepEqual(
        cancels.map((m) => m.params),
        [{ id: calls[0]!.id, reason: "user" }],
        "only the written request was cancelled",
      );
    });
  },
);

test(
  "CALL-24, CANCEL-02: a call's deadline covers its wait for a " + "slot; one that expires there was never written",
  async () => {
    await withRuntime([{ name: "one", config: { max: 1 } }], {}, async ({ host, received, waitReceived }) => {
      const holder = new AbortController();
      const a = assert.rejects(
        host.callTool("cancellable", {}, { signal: holder.signal, timeoutMs: 10_000 }),
        /cancelled/,
      );
      await waitReceived("one", (m) => m.method === "tool/call", "the first call");
      const started = Date.now();
      await assert.rejects(
        host.callTool("echo", { marker: "C" }, { timeoutMs: 200 }),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, "request_timeout");
          assert.match(
            err.message,
            /no free request slot within 200 ms \(max_concurrent_requests 1\); nothing was sent/,
          );
          return true;
        },
      );
      assert.ok(Date.now() - started < 1_500, `the deadline held while queued (${Date.now() - started} ms)`);
      holder.abort();
      await a;
      assert.deepEqual(json(await host.callTool("echo", { marker: "D" })), { marker: "D" });
      assert.deepEqual(
        received("one", "tool/call").map((m) => m.params.arguments.marker ?? m.params.name),
        ["cancellable", "D"],
      );
    });
  },
);

test(
  "CANCEL-03, CANCEL-04, CANCEL-05, CANCEL-11: a written request gets exactly one $/cancelRequest after its frame; " +
    "the -32800 answer settles it",
  async () => {
    await withRuntime([{ name: "coop" }], {}, async ({ host, frames, received, waitReceived }) => {
      const controller = new AbortController();
      const call = host.callTool("cancellable", {}, { signal: controller.signal });
      const sent = await waitReceived("coop", (m) => m.method === "tool/call", "the call");
      controller.abort();
      controller.abort();
      await assert.rejects(call, /request_cancelled|was cancelled/);
      await waitUntil(
        () => frames("coop").some((f) => f.dir === "out" && f.msg.id === sent.id),
        3_000,
        "the -32800 answer",
      );
      const wire = frames("coop");
      const callAt = wire.findIndex((f) => f.dir === "in" && f.msg.id === sent.id);
      const cancelAt = wire.findIndex((f) => f.dir === "in" && f.msg.method === "$/cancelRequest");
      assert.ok(callAt !== -1 && cancelAt > callAt, "the cancellation follows the complete frame");
      assert.deepEqual(
        received("coop", "$/cancelRequest").map((m) => m.params),
        [{ id: sent.id, reason: "user" }],
        "exactly one",
      );
      assert.equal(wire.find((f) => f.dir === "out" && f.msg.id === sent.id)!.msg.error!.code, -32800);
      await waitUntil(() => host.status()[0]!.pendingRequests === 0, 3_000, "the settled request to release its slot");
      // A deadline is a cancellation too, with its own reason.
      await assert.rejects(host.callTool("cancellable", {}, { timeoutMs: 100 }), /no response within 100 ms/);
      await waitUntil(() => received("coop", "$/cancelRequest").length === 2, 3_000, "the timeout cancellation");
      assert.equal(received("coop", "$/cancelRequest")[1]!.params.reason, "timeout");
      assert.equal(host.status()[0]!.state, "ready");
    });
  },
);

test(
  "CANCEL-06, FRAME-13: a late result after cancel is ignored and diagnosed; other calls are unaffected and the " +
    "slot is held until it settles",
  async () => {
    await withRuntime(
      [{ name: "tardy", config: { max: 2 } }],
      {},
      async ({ host, frames, waitReceived, waitDiagnostic }) => {
        const controller = new AbortController();
        const late = host.callTool("late", { lateMs: 300 }, { signal: controller.signal });
        const other = host.callTool("hold", { ms: 600 });
        const sent = await waitReceived("tardy", (m) => m.params?.name === "late", "the late call");
        await waitReceived("tardy", (m) => m.params?.name === "hold", "the other call");
        controller.abort();
        await assert.rejects(late, /cancelled/);
        const next = host.callTool("echo", { marker: "after" });
        assert.deepEqual(json(await next), { marker: "after" });
        assert.deepEqual(json(await other), { max: 1 }, "the other call got its own answer");
        await waitDiagnostic(new RegExp(`ignored a late response to request ${sent.id} \\(cancelled\\)`));
        const wire = frames("tardy");
        const lateReply = wire.findIndex((f) => f.dir === "out" && f.msg.id === sent.id);
        const nextCall = wire.findIndex((f) => f.dir === "in" && f.msg.params?.arguments?.marker === "after");
        assert.ok(lateReply !== -1 && nextCall > lateReply, "the cancelled call kept its slot until its late reply");
        assert.equal(host.status()[0]!.state, "ready");
        assert.equal(host.status()[0]!.pendingRequests, 0);
      },
    );
  },
);

test(
  "CANCEL-07, CANCEL-08: an extension that never settles a cancelled request is degraded and terminated after the 2 " +
    "s grace; nothing is replayed",
  async () => {
    await withRuntime(
      [{ name: "deaf" }, { name: "bystander", tools: ["echo2"] }],
      {},
      async ({ host, events, dir, received }) => {
        const controller = new AbortController();
        const call = host.callTool("ignore_cancel", {}, { signal: controller.signal });
        await waitUntil(() => received("deaf", "tool/call").length === 1, 5_000, "the call");
        const cancelledAt = Date.now();
        controller.abort();
        await assert.rejects(call, /cancelled/);
        const deaf = (): ReturnType<ExtensionHost["status"]>[number] => host.status().find((s) => s.name === "deaf")!;
        await waitUntil(() => deaf().state === "crashed", 5_000, "the generation to be terminated");
        assert.ok(Date.now() - cancelledAt >= 1_900, "not before the grace period");
        const states = events.flatMap((e) => (e.type === "state" && e.extension === "deaf" ? [e.state] : []));
        assert.deepEqual(states.slice(-2), ["degraded", "crashed"]);
        assert.match(deaf().lastError ?? "", /did not settle cancelled tool\/call request \d+ within 2000 ms/);
        assert.deepEqual(processesMentioning(`${dir}/deaf`), [], "no process of it is left");
        assert.equal(received("deaf", "tool/call").length, 1, "the call was not replayed");
        await assert.rejects(host.callTool("ignore_cancel", {}), /which is crashed/);
        assert.equal(host.status().find((s) => s.name === "bystander")!.state, "ready");
      },
    );
  },
);

test(
  "CANCEL-05, CANCEL-10, FRAME-14: cancelling the parent answers its pending confirmation -32800 and aborts the " +
    "embedder's prompt",
  async () => {
    const seen = { aborted: 0 };
    let asked = 0;
    const confirm = (r: { signal: AbortSignal }): Promise<boolean> => (asked++, untilAborted(true, seen)(r));
    await withRuntime(
      [{ name: "asker", contributes: "confirmations = true" }],
      { services: { confirm } },
      async ({ host, frames, received }) => {
        const controller = new AbortController();
        const call = host.callTool("confirm", {}, { signal: controller.signal });
        await waitUntil(() => asked === 1, 5_000, "the embedder to be asked");
        controller.abort();
        await assert.rejects(call, /cancelled/);
        await waitUntil(
          () => received("asker").some((m) => m.id === "confirmation-1"),
          3_000,
          "the answer to the confirmation",
        );
        assert.equal(seen.aborted, 1, "the embedder's prompt was withdrawn");
        const answer = received("asker").find((m) => m.id === "confirmation-1")!;
        assert.equal(answer.error?.code, -32800, "the pending child is answered -32800, not confirmed");
        const cancels = received("asker", "$/cancelRequest").map((m) => m.params.id);
        assert.ok(!cancels.includes("confirmation-1"), "child requests are answered, not cancelled by notification");
        assert.equal(
          frames("asker").filter((f) => f.dir === "out" && f.msg.id === received("asker", "tool/call")[0]!.id).length,
          1,
        );
      },
    );
  },
);

test(
  "CANCEL-10, FRAME-14: a settled parent's confirmation is answered -32800 even when the embedder's prompt ignores " +
    "its signal",
  async () => {
    let asked = 0;
    const stubborn = (): Promise<boolean> => (asked++, new Promise<boolean>(() => {}));
    await withRuntime(
      [{ name: "asker", contributes: "confirmations = true" }],
      { services: { confirm: stubborn } },
      async ({ host, received }) => {
        const controller = new AbortController();
        const call = host.callTool("confirm", {}, { signal: controller.signal });
        await waitUntil(() => asked === 1, 5_000, "the embedder to be asked");
        controller.abort();
        await assert.rejects(call, /cancelled/);
        await waitUntil(
          () => received("asker").some((m) => m.id === "confirmation-1"),
          3_000,
          "the answer to the confirmation",
        );
        assert.equal(received("asker").find((m) => m.id === "confirmation-1")!.error?.code, -32800);
      },
    );
  },
);

test(
  "CANCEL-09: an extension may cancel its own pending confirmation; the host withdraws the prompt and answers " +
    "-32800",
  async () => {
    const seen = { aborted: 0 };
    await withRuntime(
      [{ name: "asker", contributes: "confirmations = true" }],
      { services: { confirm: untilAborted(true, seen) } },
      async ({ host }) => {
        const answer = json(await host.callTool("confirm", { selfCancelMs: 50 }));
        assert.equal(answer.error.code, -32800);
        assert.equal(seen.aborted, 1);
      },
    );
  },
);
