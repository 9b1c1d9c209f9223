/**
 * Extension menus against real processes: menu/collect only where declared, the menu taken as
 * validated or rejected whole for the generated fallback (on error, a bound, or the 5 s wait), and
 * actions that run only declared commands with literal arguments, for up to 30 minutes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost } from "@octet/host";
import { makeExtensions, processesMentioning, waitUntil } from "./helpers.js";
import { withRuntime, type V2Spec } from "./runtime-helpers.js";

const MENU = {
  title: "Computer use",
  status: { state: "pending", label: "Not set up" },
  detail: "Set up installs the driver.",
  items: [
    {
      id: "setup",
      label: "Set up",
      command: "setup",
      arguments: ["--fast"],
      recommended: true,
      description: "Install, then check",
    },
    {
      id: "jev",
      label: "Jev (optional)",
      items: [
        { id: "forget", label: "Forget key", command: "forget", arguments: ["jev", "forget"], destructive: true },
      ],
    },
    { id: "wait", label: "Wait", command: "wait", arguments: ["600"] },
  ],
};
const SPEC: V2Spec = {
  name: "menu",
  tools: ["echo", "set_menu"],
  commands: ["setup", "forget", "wait"],
  contributes: "menu = true",
  config: { menu: MENU },
};
const GENERATED = {
  title: "menu",
  items: ["setup", "forget", "wait"].map((c) => ({
    id: c,
    label: c,
    command: c,
    arguments: [],
    description: `fake /${c}`,
  })),
};

function nest(levels: number): unknown[] {
  let items: unknown[] = [{ id: "leaf", label: "Leaf", command: "setup", arguments: [] }];
  for (let i = 1; i < levels; i++) items = [{ id: `level${i}`, label: `Level ${i}`, items }];
  return items;
}

test(
  "MENU-02, MENU-04, MENU-05: menu/collect carries the full " + "context and its menu is taken as validated",
  async () => {
    await withRuntime([SPEC], { session: { session_id: "s-9" } }, async ({ host, received }) => {
      const outcome = await host.collectMenu("menu");
      assert.deepEqual(outcome, { extension: "menu", menu: MENU, generated: false, reason: null });
      const params = received("menu", "menu/collect")[0]!.params;
      assert.deepEqual(Object.keys(params), ["context"]);
      assert.deepEqual(params.context.resource_owner, {
        session_id: "s-9",
        extension_instance_id: host.instanceId,
        process_generation: 1,
      });
      assert.equal(params.context.workspace, host.workspace);
      assert.equal(params.context.execution_scope, null);
    });
  },
);

test("MENU-01: menu/collect goes only to API 0.2+ extensions that declare menu = true and a command", async () => {
  await withRuntime([{ ...SPEC, contributes: "" }], {}, async ({ host, received, diagnostics }) => {
    const outcome = await host.collectMenu("menu");
    assert.deepEqual(outcome.menu, GENERATED);
    assert.equal(outcome.generated, true);
    assert.deepEqual(received("menu", "menu/collect"), []);
    assert.deepEqual(diagnostics("menu"), [], "no menu declared is not a problem to report");
  });
  const { dir, cleanup } = await makeExtensions([
    { name: "old", behaviour: "command-error", extraToml: 'commands = ["boom"]' },
  ]);
  const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["old"] });
  try {
    assert.equal((await host.collectMenu("old")).generated, true);
    const methods = JSON.parse((await host.callTool("echo", { __show: "methods" })).text) as string[];
    assert.ok(!methods.includes("menu/collect"), "an API 0.1 extension is never asked");
  } finally {
    await host.shutdown();
    assert.deepEqual(processesMentioning(dir), []);
    await cleanup();
  }
});

test("MENU-03: an error or no answer within 5 s falls back to one generated entry per declared command", async () => {
  await withRuntime([SPEC], {}, async ({ host, received, waitReceived, diagnostics }) => {
    await host.callTool("set_menu", { menu: { error: true } });
    const failed = await host.collectMenu("menu");
    assert.deepEqual([failed.menu, failed.generated], [GENERATED, true]);
    assert.match(failed.reason ?? "", /menu failed as asked/);
    await host.callTool("set_menu", { menu: { slow: true } });
    const started = Date.now();
    const slow = await host.collectMenu("menu");
    const took = Date.now() - started;
    assert.ok(took >= 4_900 && took < 7_000, `the host waited 5 s (${took} ms)`);
    assert.deepEqual([slow.menu, slow.generated], [GENERATED, true]);
    const id = received("menu", "menu/collect").at(-1)!.id;
    assert.deepEqual((await waitReceived("menu", (m) => m.method === "$/cancelRequest", "the cancellation")).params, {
      id,
      reason: "timeout",
    });
    assert.equal(diagnostics("menu").filter((m) => /showing generated menu/.test(m)).length, 2);
    assert.equal(host.status()[0]!.state, "ready");
  });
});

test(
  "MENU-06, MENU-07, MENU-08, MENU-09, MENU-10: a menu breaking any rule is rejected whole; at the limits it is " +
    "accepted",
  async () => {
    const action = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      id,
      label: id,
      command: "setup",
      arguments: [],
      ...extra,
    });
    const rejected: [string, unknown, RegExp][] = [
      [
        "undeclared command",
        { title: "t", items: [action("a", { command: "rm-rf" })] },
        /"rm-rf" is not one of the extension's declared commands/,
      ],
      ["5 levels", { title: "t", items: nest(5) }, /5 levels of menu, over the 4-level limit/],
      [
        "257 items",
        { title: "t", items: Array.from({ length: 257 }, (_, i) => action(`a${i}`)) },
        /257 items across all levels, over the 256-item limit/,
      ],
      ["duplicate ids", { title: "t", items: [action("a"), action("a")] }, /duplicate ids "a" in one level/],
      [
        "two recommended",
        { title: "t", items: [action("a", { recommended: true }), action("b", { recommended: true })] },
        /2 recommended items in one level/,
      ],
      [
        "submenu arguments",
        { title: "t", items: [{ id: "s", label: "S", arguments: ["x"], items: [action("a")] }] },
        /arguments: not allowed on a submenu/,
      ],
      [
        "submenu destructive",
        { title: "t", items: [{ id: "s", label: "S", destructive: true, items: [action("a")] }] },
        /destructive: not allowed on a submenu/,
      ],
      ["over 256 KiB", { title: "t", detail: "d".repeat(262_144), items: [action("a")] }, /262144-byte limit/],
    ];
    const accepted: [string, unknown][] = [
      ["4 levels", { title: "t", items: nest(4) }],
      ["256 items", { title: "t", items: Array.from({ length: 256 }, (_, i) => action(`a${i}`)) }],
      [
        "same id in two levels",
        {
          title: "t",
          items: [
            action("a", { recommended: true }),
            { id: "s", label: "S", items: [action("a", { recommended: true })] },
          ],
        },
      ],
    ];
    await withRuntime([SPEC], {}, async ({ host }) => {
      for (const [what, menu, pattern] of rejected) {
        await host.callTool("set_menu", { menu });
        const outcome = await host.collectMenu("menu");
        assert.equal(outcome.generated, true, what);
        assert.deepEqual(outcome.menu, GENERATED, what);
        assert.match(outcome.reason ?? "", pattern, what);
      }
      for (const [what, menu] of accepted) {
        await host.callTool("set_menu", { menu });
        const outcome = await host.collectMenu("menu");
        assert.equal(outcome.generated, false, `${what}: ${outcome.reason}`);
      }
      // After a rejected menu only the generated actions (declared commands, no arguments) can run.
      await host.callTool("set_menu", { menu: rejected[0]![1] });
      await host.collectMenu("menu");
      await assert.rejects(host.runMenuAction("menu", "a"), /has no menu action "a"/);
      assert.deepEqual(JSON.parse((await host.runMenuAction("menu", "setup")).text), { name: "setup", arguments: [] });
    });
  },
);

test(
  "MENU-11: an action runs command/execute of its declared command with the literal arguments; a destructive one is " +
    "confirmed first",
  async () => {
    const asked: string[] = [];
    let answer = false;
    const confirm = async (r: { prompt: string; destructive: boolean }): Promise<boolean> => (
      asked.push(`${r.prompt} ${r.destructive}`), answer
    );
    await withRuntime([SPEC], { services: { confirm } }, async ({ host, received }) => {
      await assert.rejects(host.runMenuAction("menu", "setup"), /collect the menu of "menu" first/);
      await host.collectMenu("menu");
      assert.deepEqual(JSON.parse((await host.runMenuAction("menu", "setup")).text), {
        name: "setup",
        arguments: ["--fast"],
      });
      const exec = received("menu", "command/execute")[0]!.params;
      assert.deepEqual(
        [exec.name, exec.arguments, exec.context.resource_owner.process_generation],
        ["setup", ["--fast"], 1],
      );
      await assert.rejects(host.runMenuAction("menu", "jev/forget"), /was not confirmed/);
      assert.equal(received("menu", "command/execute").length, 1, "nothing ran without the confirmation");
      answer = true;
      assert.deepEqual(JSON.parse((await host.runMenuAction("menu", "jev/forget")).text), {
        name: "forget",
        arguments: ["jev", "forget"],
      });
      assert.deepEqual(asked, ['Run "Forget key"? true', 'Run "Forget key"? true']);
      await assert.rejects(host.runMenuAction("menu", "jev"), /has no menu action "jev"/, "a submenu is not an action");
    });
  },
);

test("MENU-12: a menu action outlives the ordinary request deadline and the person can cancel it", async () => {
  await withRuntime([SPEC], { timeouts: { callMs: 200 } }, async ({ host, received, waitReceived }) => {
    await host.collectMenu("menu");
    await assert.rejects(
      host.runCommand("wait", ["600"]),
      /no response within 200 ms/,
      "the same command outside a menu hits the deadline",
    );
    assert.equal((await host.runMenuAction("menu", "wait")).text, "waited", "the action ran for 600 ms");
    const controller = new AbortController();
    const running = host.runMenuAction("menu", "wait", { signal: controller.signal });
    await waitUntil(() => received("menu", "command/execute").length === 3, 5_000, "the third run");
    const exec = received("menu", "command/execute")[2]!;
    controller.abort();
    await assert.rejects(running, /cancelled/);
    const cancel = await waitReceived(
      "menu",
      (m) => m.method === "$/cancelRequest" && m.params.id === exec.id,
      "the cancellation",
    );
    assert.equal(cancel.params.reason, "user");
    assert.equal(host.status()[0]!.state, "ready");
  });
});

test("MENU-13: a confirmed destructive action pre-approves only its own first confirmation/request", async () => {
  const asked: string[] = [];
  const confirm = async (r: { prompt: string }): Promise<boolean> => (asked.push(r.prompt), true);
  const menu = {
    title: "Danger",
    items: [
      { id: "wipe", label: "Wipe", command: "twice", arguments: [], destructive: true },
      { id: "safe", label: "Safe", command: "twice", arguments: [] },
    ],
  };
  const spec: V2Spec = {
    name: "menu",
    tools: ["echo", "set_menu"],
    commands: ["twice"],
    contributes: "menu = true\nconfirmations = true",
    config: { menu },
  };
  await withRuntime([spec], { services: { confirm } }, async ({ host }) => {
    await host.collectMenu("menu");
    assert.deepEqual(JSON.parse((await host.runMenuAction("menu", "wipe")).text), [true, true]);
    assert.deepEqual(
      asked,
      ['Run "Wipe"?', "second?"],
      "the person was asked for the action and the second question, not the first",
    );
    asked.length = 0;
    assert.deepEqual(JSON.parse((await host.runMenuAction("menu", "safe")).text), [true, true]);
    assert.deepEqual(asked, ["first?", "second?"], "a non-destructive action pre-approves nothing");
    asked.length = 0;
    assert.deepEqual(JSON.parse((await host.runCommand("twice", [])).text), [true, true]);
    assert.deepEqual(asked, ["first?", "second?"], "the same command outside the menu pre-approves nothing");
  });
});
