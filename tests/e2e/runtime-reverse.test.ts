/**
 * Extension-to-host messages on the negotiated wire against real processes: confirmation/request
 * and input/request parented to an active tool call (and refused otherwise), input bounds and
 * secrecy, child id rules, and unsolicited contributions gated by the manifest.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { InputService } from "@octet/host";
import { waitUntil } from "./helpers.js";
import { json, untilAborted, withRuntime } from "./runtime-helpers.js";

const CONFIRMING = 'confirmations = true\nhooks = ["before_prompt"]';

test(
  "CONF-02, REV-07, REV-08, CALL-11: a confirmation needs an active tool/call or command parent; missing, inactive, " +
    "settled or hook parents get -32002",
  async () => {
    const asked: string[] = [];
    const confirm = async (r: { prompt: string }): Promise<boolean> => (asked.push(r.prompt), true);
    await withRuntime(
      [{ name: "conf", contributes: CONFIRMING, config: { hook: "confirm" } }],
      { services: { confirm } },
      async ({ host, frames, received }) => {
        assert.deepEqual(json(await host.callTool("confirm", { prompt: "Really?" })), { result: { confirmed: true } });
        for (const parent of ["missing", "other"] as const) {
          const answer = json(await host.callTool("confirm", { parent, prompt: `parent ${parent}` }));
          assert.equal(answer.error.code, -32002, `parent ${parent}`);
          assert.match(answer.error.message, /parent_request_id/);
        }
        const settled = received("conf", "tool/call")[0]!.id as number;
        assert.equal(json(await host.callTool("confirm", { parent: settled, prompt: "settled" })).error.code, -32002);
        assert.equal((await host.runHook("before_prompt", { prompt: "p" })).denied, null);
        const hookAsk = frames("conf").find((f) => f.dir === "out" && f.msg.params?.prompt === "From a hook?")!.msg;
        assert.equal(
          hookAsk.params.parent_request_id,
          received("conf", "hook/run")[0]!.id,
          "parented to the active hook/run",
        );
        assert.equal(
          received("conf").find((m) => m.id === hookAsk.id)!.error?.code,
          -32002,
          "a hook is not a valid parent",
        );
        assert.deepEqual(asked, ["Really?"], "only the properly parented confirmation reached the embedder");
      },
    );
  },
);

test(
  "INPUT-01, INPUT-02, INPUT-05: input/request reaches the embedder with its secrecy; the reply is exactly {value}; " +
    "a secret never appears in an event",
  async () => {
    const secret = "hunter2-correct-horse";
    const requests: { prompt: string; secret: boolean; extension: string }[] = [];
    const input: InputService = async (r) => (
      requests.push({ prompt: r.prompt, secret: r.secret, extension: r.extension }), r.secret ? secret : "Ada"
    );
    await withRuntime([{ name: "inp" }], { services: { input } }, async ({ host, events, received }) => {
      assert.deepEqual(json(await host.callTool("input", { prompt: "Name?" })), { result: { value: "Ada" } });
      assert.deepEqual(json(await host.callTool("input", { prompt: "Password:", secret: true })), {
        result: { value: secret },
      });
      assert.deepEqual(requests, [
        { prompt: "Name?", secret: false, extension: "inp" },
        { prompt: "Password:", secret: true, extension: "inp" },
      ]);
      const replies = received("inp").filter((m) => typeof m.id === "string" && m.id.startsWith("input-"));
      assert.deepEqual(
        replies.map((m) => Object.keys(m.result)),
        [["value"], ["value"]],
        "the reply holds exactly value",
      );
      await host.shutdown();
      assert.ok(!JSON.stringify(events).includes(secret), "the secret is in no host event");
    });
  },
);

test("INPUT-03: the prompt must have non-whitespace text and at most 16 KiB; otherwise -32602", async () => {
  const input: InputService = async () => "ok";
  await withRuntime([{ name: "inp" }], { services: { input } }, async ({ host }) => {
    const ask = async (prompt: string): Promise<any> =>
      json(await host.callTool("ask", { method: "input/request", params: { parent_request_id: "self", prompt } }));
    assert.deepEqual(await ask("é".repeat(8_192)), { result: { value: "ok" } }, "16 KiB exactly is accepted");
    for (const prompt of [" \t\n ", "", "é".repeat(8_192) + "x"]) {
      const answer = await ask(prompt);
      assert.equal(answer.error?.code, -32602, `prompt of ${Buffer.byteLength(prompt)} bytes`);
    }
  });
});

test(
  "INPUT-04, INPUT-05: an answer over 256 KiB is dropped to " + "null with a diagnostic that never quotes it",
  async () => {
    const marker = "s3cr3t-";
    let answer = "";
    const input: InputService = async () => answer;
    await withRuntime([{ name: "inp" }], { services: { input } }, async ({ host, events, diagnostics }) => {
      answer = marker + "a".repeat(262_144 - marker.length);
      assert.equal(
        json(await host.callTool("input", { secret: true })).result.value,
        answer,
        "256 KiB exactly is delivered",
      );
      answer += "a";
      assert.deepEqual(json(await host.callTool("input", { secret: true })), { result: { value: null } });
      assert.ok(diagnostics("inp").some((m) => /262145 bytes, over the 262144-byte limit/.test(m)));
      assert.ok(!JSON.stringify(events).includes(marker), "the value is in no event");
    });
  },
);

test("INPUT-06: without an input service (headless) the reply is {value: null}, never a guess", async () => {
  await withRuntime([{ name: "inp" }], {}, async ({ host }) => {
    assert.deepEqual(json(await host.callTool("input", { prompt: "Name?" })), { result: { value: null } });
  });
});

test(
  "INPUT-07, CANCEL-10: cancelling the parent cancels its pending input/request (-32800) and aborts the embedder's " +
    "prompt",
  async () => {
    const seen = { aborted: 0 };
    let asked = 0;
    const input = (r: { signal: AbortSignal }): Promise<string | null> => (
      asked++, untilAborted<string | null>("too late", seen)(r)
    );
    await withRuntime([{ name: "inp" }], { services: { input } }, async ({ host, received }) => {
      const controller = new AbortController();
      const call = host.callTool("input", { prompt: "Wait for me" }, { signal: controller.signal });
      await waitUntil(() => asked === 1, 5_000, "the embedder to be asked");
      controller.abort();
      await assert.rejects(call, /cancelled/);
      await waitUntil(() => received("inp").some((m) => m.id === "input-1"), 3_000, "the answer to the input request");
      assert.equal(received("inp").find((m) => m.id === "input-1")!.error?.code, -32800);
      assert.equal(seen.aborted, 1);
    });
  },
);

test(
  "INPUT-07, CANCEL-10: a parent that completes while its input/request is pending cancels it (-32800) and " +
    "withdraws the prompt",
  async () => {
    const seen = { aborted: 0 };
    await withRuntime(
      [{ name: "inp" }],
      { services: { input: untilAborted<string | null>("too late", seen) } },
      async ({ host, waitReceived }) => {
        assert.equal(
          (await host.callTool("input", { prompt: "Still there?", noWait: true })).text,
          "answered before the host replied",
        );
        assert.equal(
          (await waitReceived("inp", (m) => m.id === "input-1", "the answer to the input request")).error?.code,
          -32800,
        );
        assert.equal(seen.aborted, 1);
      },
    );
  },
);

test(
  "REV-07, REV-08: input/request without a parent or with an inactive one is refused -32002 and never reaches the " +
    "embedder",
  async () => {
    let asked = 0;
    const input: InputService = async () => (asked++, "x");
    await withRuntime([{ name: "inp" }], { services: { input } }, async ({ host }) => {
      for (const parent of ["missing", "other"] as const) {
        const answer = json(await host.callTool("input", { parent }));
        assert.equal(answer.error.code, -32002, `parent ${parent}`);
      }
      assert.equal(asked, 0);
    });
  },
);

test(
  "REV-03, REV-06: a child request id is never reused in a " + "generation (-32600); the generation stays up",
  async () => {
    await withRuntime(
      [{ name: "ids", contributes: "confirmations = true" }],
      { services: { confirm: async () => true } },
      async ({ host }) => {
        const ask = async (): Promise<any> =>
          json(
            await host.callTool("ask", {
              id: "c-1",
              method: "confirmation/request",
              params: { parent_request_id: "self", prompt: "again?" },
            }),
          );
        assert.deepEqual(await ask(), { result: { confirmed: true } });
        const again = await ask();
        assert.equal(again.error.code, -32600);
        assert.match(again.error.message, /already used in this generation/);
        assert.equal(host.status()[0]!.state, "ready");
      },
    );
  },
);

test(
  "CTX-04, CTX-05, STAT-03, REV-11: unsolicited context and status contributions are accepted only as declared, " +
    "process-scoped, without an owner",
  async () => {
    const owner = { session_id: "forged", extension_instance_id: "forged", process_generation: 99 };
    const send = [
      {
        method: "context/contribution",
        params: { label: "repo", content: "on main", placement: "system_suffix", resource_owner: owner },
      },
      { method: "status/contribution", params: { surface: "status", text: "3 open", style_role: null, priority: 1 } },
      {
        method: "status/contribution",
        params: { surface: "footer", text: "undeclared surface", style_role: null, priority: 0 },
      },
      { method: "notification", params: { level: "info", title: "t", message: "undeclared notifications" } },
    ];
    await withRuntime(
      [{ name: "yes", contributes: 'context = true\nui = ["status"]' }],
      {},
      async ({ host, events, diagnostics }) => {
        await host.callTool("contribute", { send });
        const mine = events.filter((e) => (e.type === "context" || e.type === "status") && e.extension === "yes");
        assert.deepEqual(
          mine.map((e) => (e.type === "context" || e.type === "status" ? e.contribution : null)),
          [
            { label: "repo", content: "on main", placement: "system_suffix" },
            { surface: "status", text: "3 open", style_role: null, priority: 1 },
          ],
          "no resource_owner is carried over",
        );
        assert.ok(diagnostics("yes").some((m) => /does not declare "footer" in contributes.ui/.test(m)));
        assert.ok(diagnostics("yes").some((m) => /does not declare contributes.notifications/.test(m)));
        assert.ok(!events.some((e) => e.type === "notification"));
        const snapshot = host.contributions();
        assert.deepEqual(
          snapshot.context.map((c) => [c.label, c.extension]),
          [["repo", "yes"]],
        );
        assert.ok(!("resource_owner" in snapshot.context[0]!));
      },
    );
    await withRuntime([{ name: "no" }], {}, async ({ host, events, diagnostics }) => {
      await host.callTool("contribute", { send: send.slice(0, 2) });
      assert.ok(!events.some((e) => e.type === "context" || e.type === "status"));
      assert.ok(diagnostics("no").some((m) => /does not declare contributes.context/.test(m)));
      assert.ok(diagnostics("no").some((m) => /does not declare "status" in contributes.ui/.test(m)));
    });
  },
);
