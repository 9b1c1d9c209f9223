/**
 * Dynamic tools against real processes: examples/dynamic-tools (TS SDK) registers and withdraws
 * tools through its `register` / `unregister` tools; the wire-level fixture fake-ext-v2 shows the
 * exact tool/call params.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent } from "@octet/host";
import { EXAMPLES, processesMentioning } from "./helpers.js";
import { withRuntime, REQUIRED } from "./runtime-helpers.js";

async function withDynamic(
  options: Partial<ExtensionHostOptions>,
  body: (host: ExtensionHost, events: HostEvent[]) => Promise<void>,
  enable: string[] = ["dynamic-tools"],
): Promise<void> {
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: EXAMPLES,
    extensionDirs: [EXAMPLES],
    enable,
    onEvent: (e) => events.push(e),
    services: { dynamicTools: true },
    ...options,
  });
  try {
    await body(host, events);
  } finally {
    await host.shutdown();
  }
  assert.deepEqual(processesMentioning(`${EXAMPLES}/dynamic-tools`), []);
}

const register = async (host: ExtensionHost, tools: { name: string; reply: string }[]) => {
  const out = await host.callTool("register", { tools });
  return {
    isError: out.is_error,
    text: out.text,
    change: out.is_error ? null : (JSON.parse(out.text) as { revision: number; tools: string[] }),
  };
};
const names = (host: ExtensionHost) =>
  host
    .tools()
    .filter((t) => t.extension === "dynamic-tools")
    .map((t) => t.name);

test(
  "CAT-01, CAT-02, CAT-08, CAT-09: with the service bound, registered tools are published as the next epoch and " +
    "callable; the answer lists the whole catalog",
  async () => {
    await withDynamic({}, async (host) => {
      const s = host.status().find((x) => x.name === "dynamic-tools")!;
      assert.ok(s.features.includes("dynamic_tools"));
      assert.equal(s.catalogRevision, 0, "epoch 0 is the initialize catalog");
      const first = await register(host, [
        { name: "greet", reply: "hi" },
        { name: "wave", reply: "o/" },
      ]);
      assert.deepEqual(first.change, { revision: 1, tools: ["register", "unregister", "greet", "wave"] });
      assert.deepEqual(names(host), ["register", "unregister", "greet", "wave"]);
      assert.equal((await host.callTool("greet")).text, "hi");
      // A complete definition replaces the old one (never a patch).
      const second = await register(host, [{ name: "greet", reply: "hello" }]);
      assert.equal(second.change!.revision, 2);
      assert.equal((await host.callTool("greet")).text, "hello");
      assert.match(host.tools().find((t) => t.name === "greet")!.description, /hello/);
      assert.equal(host.status().find((x) => x.name === "dynamic-tools")!.catalogRevision, 2);
    });
  },
);

test("CAT-01: without the service bound, dynamic_tools is not offered and the SDK refuses locally", async () => {
  await withDynamic({ services: {} }, async (host) => {
    assert.ok(
      !host
        .status()
        .find((x) => x.name === "dynamic-tools")!
        .features.includes("dynamic_tools"),
    );
    assert.equal(host.status().find((x) => x.name === "dynamic-tools")!.catalogRevision, null);
    const r = await register(host, [{ name: "greet", reply: "hi" }]);
    assert.equal(r.isError, true);
    assert.match(r.text, /host did not offer dynamic_tools/);
    assert.deepEqual(names(host), ["register", "unregister"]);
  });
});

test(
  "CAT-06, CAT-07: a name held by the host or by another extension is refused with -32602 and the catalog stays as " +
    "it was",
  async () => {
    await withDynamic(
      { reservedToolNames: ["bash"] },
      async (host) => {
        await register(host, [{ name: "greet", reply: "hi" }]);
        for (const taken of ["hello_world", "bash"]) {
          const r = await register(host, [
            { name: "fresh", reply: "x" },
            { name: taken, reply: "mine" },
          ]);
          assert.equal(r.isError, true);
          assert.match(
            r.text,
            new RegExp(`tool "${taken}" is already provided by (extension "hello-world"|the host).*-32602|code -32602`),
          );
        }
        assert.deepEqual(
          names(host),
          ["register", "unregister", "greet"],
          "nothing of a refused request was published",
        );
        assert.equal(
          host.status().find((s) => s.name === "dynamic-tools")!.catalogRevision,
          1,
          "refusals do not move the epoch",
        );
        assert.equal(
          (await host.callTool("hello_world", { name: "x" })).is_error,
          false,
          "the other extension keeps its tool",
        );
      },
      ["dynamic-tools", "hello-world"],
    );
  },
);

test(
  "CAT-05: the prospective catalog is capped at 256: 254 more tools fit beside the 2 fixed ones, one more is " +
    "refused",
  async () => {
    await withDynamic({}, async (host) => {
      const batch = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({ name: `t${from + i}`, reply: "r" }));
      const ok = await register(host, batch(0, 254));
      assert.equal(ok.change!.tools.length, 256);
      const over = await register(host, batch(254, 1));
      assert.equal(over.isError, true);
      assert.match(over.text, /would hold 257 tools, over the 256-tool limit/);
      assert.equal(names(host).length, 256);
    });
  },
);

test(
  "CAT-08: the host tool policy may omit requested tools; the " + "answer and the catalog say what was accepted",
  async () => {
    await withDynamic(
      { services: { dynamicTools: { policy: (_ext, t) => !t.name.startsWith("secret_") } } },
      async (host) => {
        const r = await register(host, [
          { name: "open_door", reply: "ok" },
          { name: "secret_door", reply: "no" },
        ]);
        assert.deepEqual(r.change!.tools, ["register", "unregister", "open_door"]);
        assert.ok(!names(host).includes("secret_door"));
        await assert.rejects(host.callTool("secret_door"), /no ready extension provides tool "secret_door"/);
      },
    );
  },
);

test(
  "CAT-11, CAT-12, CAT-13: unregister withdraws names, ignores missing ones, and every accepted change moves the " +
    "epoch once",
  async () => {
    await withDynamic({}, async (host) => {
      await register(host, [
        { name: "a1", reply: "1" },
        { name: "a2", reply: "2" },
      ]);
      const out = JSON.parse((await host.callTool("unregister", { names: ["a1", "never_there"] })).text) as {
        revision: number;
        tools: string[];
      };
      assert.deepEqual(out, { revision: 2, tools: ["register", "unregister", "a2"] });
      const noop = JSON.parse((await host.callTool("unregister", { names: ["never_there"] })).text) as {
        revision: number;
      };
      assert.equal(noop.revision, 3, "an accepted change with no effect still counts once (GAP default)");
      await assert.rejects(host.callTool("a1"), /no ready extension provides tool "a1"/);
    });
  },
);

test(
  "CALL-04, CAT-14, CAT-15, CAT-16: a call carries the epoch its model request saw: it reaches that epoch's tool; " +
    "once the epoch is retired it is refused",
  async () => {
    await withDynamic({}, async (host) => {
      await register(host, [{ name: "greet", reply: "v1" }]);
      const seen = host.catalog(); // the catalog of one model request
      assert.deepEqual(seen.revisions(), { "dynamic-tools": 1 });
      await register(host, [{ name: "greet", reply: "v2" }]);
      assert.match(seen.entry("greet")!.definition.description, /v1/, "a snapshot never changes");
      assert.equal(
        (await host.callTool("greet", {}, { catalog: seen })).text,
        "v1",
        "the call went out with catalog_revision 1 and the SDK used epoch 1",
      );
      assert.equal((await host.callTool("greet")).text, "v2", "without a snapshot: the catalog published now");
      assert.equal(host.catalog().revisions()["dynamic-tools"], 2, "the next model request sees the new epoch");
      // Eight more changes retire epoch 1 in the SDK.
      for (let i = 0; i < 8; i++) await register(host, [{ name: `filler${i}`, reply: "f" }]);
      const late = await host.callTool("greet", {}, { catalog: seen });
      assert.equal(late.is_error, true);
      assert.match(late.text, /unknown or retired catalog_revision 1.*-32602|code -32602/);
    });
  },
);

test(
  "CAT-17, SUP-15: a reload starts the new generation at epoch 0 with its initialize catalog, and is not refused " +
    "for the changed tools",
  async () => {
    await withDynamic({}, async (host) => {
      await register(host, [{ name: "greet", reply: "hi" }]);
      const before = host.catalog();
      const s = await host.reload("dynamic-tools");
      assert.equal(s.state, "ready");
      assert.equal(s.catalogRevision, 0);
      assert.deepEqual(names(host), ["register", "unregister"]);
      await assert.rejects(
        host.callTool("greet", {}, { catalog: before }),
        (e: Error & { code?: string }) => e.code === "stale_catalog" && /was replaced by generation/.test(e.message),
      );
      const again = await register(host, [{ name: "greet", reply: "back" }]);
      assert.equal(again.change!.revision, 1);
    });
  },
);

test(
  "CALL-03, INIT-28: catalog_revision goes only to generations that negotiated dynamic_tools; with it, the " +
    "initialize catalog need not equal contributes.tools",
  async () => {
    await withRuntime(
      [
        { name: "fixed", tools: ["echo"] },
        {
          name: "dyn",
          tools: ["dyn_echo"],
          config: { features: [...REQUIRED, "dynamic_tools"], tools: ["dyn_echo", "extra_tool"] },
        },
      ],
      { services: { dynamicTools: true } },
      async ({ host, received }) => {
        assert.ok(
          host.tools().some((t) => t.name === "extra_tool"),
          "an initialize tool outside contributes.tools is accepted with dynamic_tools",
        );
        await host.callTool("echo", {});
        await host.callTool("dyn_echo", {});
        const fixedCall = received("fixed", "tool/call")[0]!;
        const dynCall = received("dyn", "tool/call")[0]!;
        assert.ok(!("catalog_revision" in fixedCall.params), "absent without dynamic_tools");
        assert.equal(dynCall.params.catalog_revision, 0);
      },
    );
  },
);

test(
  "ERR-08, CAT-01, CAT-03, CAT-07: raw tools/register: -32601 unsupported_feature without the feature; -32602 for " +
    "malformed params or a parent_request_id, catalog unchanged",
  async () => {
    const ask = async (host: ExtensionHost, tool: string, method: string, params: unknown) =>
      JSON.parse((await host.callTool(tool, { method, params })).text) as {
        error?: { code: number; message: string };
        result?: unknown;
      };
    const def = { name: "fresh", description: "d", parameters: { type: "object" } };
    // Bound and offered, but this generation did not select the feature.
    await withRuntime(
      [{ name: "declined", tools: ["ask"], config: { features: [...REQUIRED] } }],
      { services: { dynamicTools: true } },
      async ({ host }) => {
        const r = await ask(host, "ask", "tools/register", { tools: [def] });
        assert.equal(r.error?.code, -32601);
        assert.match(r.error!.message, /^unsupported_feature/);
      },
    );
    await withRuntime(
      [{ name: "offered", tools: ["ask"], config: { features: [...REQUIRED, "dynamic_tools"] } }],
      { services: { dynamicTools: true } },
      async ({ host }) => {
        const malformed = await ask(host, "ask", "tools/register", { tools: [{ name: "fresh" }] });
        assert.equal(malformed.error?.code, -32602);
        assert.match(malformed.error!.message, /tools\[0\]\.description/);
        const parented = await ask(host, "ask", "tools/register", { tools: [def], parent_request_id: 1 });
        assert.equal(parented.error?.code, -32602);
        assert.match(parented.error!.message, /parent_request_id: unknown member/);
        assert.ok(!host.tools().some((t) => t.name === "fresh"), "nothing was published");
        const ok = await ask(host, "ask", "tools/register", { tools: [def] });
        assert.deepEqual(ok.result, { revision: 1, tools: ["ask", "fresh"] });
      },
    );
    // Not bound at all: not offered, and the method is unknown to the host.
    await withRuntime([{ name: "unbound", tools: ["ask"] }], {}, async ({ host }) => {
      const r = await ask(host, "ask", "tools/unregister", { names: ["ask"] });
      assert.equal(r.error?.code, -32601);
      assert.match(r.error!.message, /^unsupported_feature/);
    });
  },
);

test(
  "CAT-10: when the acknowledgement of a published change cannot be delivered, the generation is terminated and its " +
    "tools are gone",
  async () => {
    const held = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };
    // Process-group containment: behind the namespace launcher, which keeps the pipe's read end
    // open, a child closing its stdin cannot make the host's write fail.
    const env = { ...process.env, OCTET_CONTAINMENT: "process-group" };
    await withRuntime(
      [{ name: "deaf", tools: ["ask"], config: { features: [...REQUIRED, "dynamic_tools"] } }],
      { services: { dynamicTools: true }, supervision: { clock: held }, env },
      async ({ host, events }) => {
        const def = { name: "fresh", description: "d", parameters: { type: "object" } };
        const call = host.callTool("ask", { method: "tools/register", params: { tools: [def] }, closeStdin: true });
        await assert.rejects(call);
        const deaf = () => host.status().find((s) => s.name === "deaf")!;
        const until = Date.now() + 5_000;
        while (deaf().state !== "crashed" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        assert.equal(deaf().state, "crashed", `state ${deaf().state}`);
        assert.ok(
          !host.tools().some((t) => t.name === "fresh" || t.name === "ask"),
          "the published group went with the generation",
        );
        assert.ok(
          events.some(
            (e) =>
              e.type === "diagnostic" &&
              e.extension === "deaf" &&
              /writing to the extension failed|stdin is closed/.test(e.message),
          ),
          JSON.stringify(events.filter((e) => e.type === "diagnostic")),
        );
      },
    );
  },
);

test(
  "ERR-05: reverse-request refusals map to one code each across services: -32602 params, -32002 no active owner, " +
    "-32004 secret unavailable, -32601 not negotiated",
  async () => {
    const ask = async (host: ExtensionHost, method: string, params: unknown) =>
      JSON.parse((await host.callTool("ask", { method, params })).text) as {
        error?: { code: number; message: string };
        result?: unknown;
      };
    await withRuntime(
      [
        {
          name: "mapped",
          tools: ["ask"],
          capabilities: 'secrets = ["mapped.token"]',
          config: { features: [...REQUIRED, "dynamic_tools", "artifacts", "secrets"] },
        },
      ],
      { services: { dynamicTools: true, artifacts: true, secrets: () => null } },
      async ({ host }) => {
        const malformed = await ask(host, "tools/register", { tools: "not a list" });
        assert.equal(malformed.error?.code, -32602, JSON.stringify(malformed));
        const orphan = await ask(host, "artifact/publish", {
          parent_request_id: 999_999,
          mime_type: "image/png",
          size: 1,
          sha256: "0".repeat(64),
          data: "AA==",
        });
        assert.equal(orphan.error?.code, -32002, JSON.stringify(orphan));
        const secret = await ask(host, "secret/get", { parent_request_id: "self", name: "mapped.token" });
        assert.equal(secret.error?.code, -32004, JSON.stringify(secret));
        const unnegotiated = await ask(host, "policy/evaluate", { parent_request_id: "self", intent: {} });
        assert.equal(unnegotiated.error?.code, -32601, JSON.stringify(unnegotiated));
        assert.match(unnegotiated.error!.message, /^unsupported_feature/);
      },
    );
  },
);
