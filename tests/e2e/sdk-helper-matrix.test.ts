/**
 * Issue 13.1: every SDK helper from every kind of handler, through a real host. One extension
 * process per SDK serves the whole matrix (helper x plain/typed x sync/async, each helper reached
 * through ctx and through ext), so the audit costs two process starts. The helpers must return
 * their value (blocking in a Python `def` handler, awaited in an `async` one), and the host must
 * see each reverse request. Then: a blocking typed `def` handler observes cancellation and the
 * call is answered -32800 without the process being killed, and the CLI's --no-input reaches a
 * typed handler's ctx.confirm as False.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent } from "@octet/host";
import type { ProgressEvent } from "@octet/protocol";
import { ROOT, processesMentioning, runCli } from "./helpers.js";
import { plain, runOnPty } from "./pty.js";

const FIXTURES = join(ROOT, "tests", "fixtures");
const TOKEN = "matrix-secret-value";
const HELPERS = ["confirm", "input", "artifacts", "policy", "secrets", "progress", "catalog", "presentation"] as const;

/** What the host's services saw, to check that each helper really reached the host. */
interface Seen {
  confirms: string[];
  inputs: string[];
  approvals: string[];
  secrets: string[];
  events: HostEvent[];
}

function services(seen: Seen): NonNullable<ExtensionHostOptions["services"]> {
  return {
    confirm: async (r) => (seen.confirms.push(r.prompt), true),
    input: async (r) => (seen.inputs.push(r.prompt), `answer to ${r.prompt}`),
    artifacts: true,
    presentation: true,
    dynamicTools: true,
    policy: {
      classify: (r) => (r.intent.operation === "matrix.ask" ? "ask" : "allow"),
      approve: async (r) => (seen.approvals.push(r.intent.operation), true),
    },
    secrets: (r) => (seen.secrets.push(r.name), r.name === "matrix.token" ? TOKEN : null),
  };
}

/** What each helper must answer, whatever handler called it (`mode` names the tool). */
function expected(sdk: "py" | "ts", helper: (typeof HELPERS)[number], mode: string, presented: number): unknown {
  switch (helper) {
    case "confirm":
      return { ctx: true, ext: true };
    case "input":
      return { ctx: `answer to ${mode} ctx input`, ext: `answer to ${mode} ext input` };
    case "artifacts":
      return { ctx: "image/png", ext: "image/png" };
    // The TypeScript SDK has ext.policy and ext.secrets only; Python adds ext.evaluate_policy and ext.get_secret.
    case "policy":
      return sdk === "py"
        ? { evaluate: { decision: "allow" }, authorize: true, ext: { decision: "allow" } }
        : { evaluate: { decision: "allow" }, authorize: true };
    case "secrets":
      return sdk === "py" ? { get: TOKEN.length, ext: TOKEN.length } : { get: TOKEN.length };
    case "progress":
      return { ctx: null, ext: null };
    case "catalog":
      return { revision: "int", tools: [`dyn_${mode}`] };
    case "presentation":
      return { ext: null, revision: presented };
  }
}

interface Side {
  host: ExtensionHost;
  seen: Seen;
}
const fresh = (): Seen => ({ confirms: [], inputs: [], approvals: [], secrets: [], events: [] });
const sides: Record<"py" | "ts", Side> = {} as Record<"py" | "ts", Side>;
const NAMES = { py: "py-matrix", ts: "ts-matrix" } as const;

async function start(sdk: "py" | "ts"): Promise<void> {
  const seen = fresh();
  const host = await ExtensionHost.start({
    workspace: FIXTURES,
    extensionDirs: [FIXTURES],
    enable: [NAMES[sdk]],
    services: services(seen),
    onEvent: (e) => seen.events.push(e),
  });
  sides[sdk] = { host, seen };
  const status = host.status().find((s) => s.name === NAMES[sdk]);
  assert.equal(status?.state, "ready", JSON.stringify(status?.lastError));
}

before(async () => {
  await Promise.all([start("py"), start("ts")]);
});

after(async () => {
  await Promise.all(Object.values(sides).map((s) => s.host.shutdown()));
  assert.deepEqual(processesMentioning(join(FIXTURES, "py-matrix")), []);
  assert.deepEqual(processesMentioning(join(FIXTURES, "ts-matrix")), []);
});

const MODES = {
  py: ["plain_sync", "plain_async", "typed_sync"],
  ts: ["plain_sync", "plain_async", "typed_sync", "typed_async"],
} as const;
for (const sdk of ["py", "ts"] as const) {
  for (const mode of MODES[sdk]) {
    test(
      `issue 13.1: ${sdk === "py" ? "Python" : "TypeScript"} ${mode.replace("_", " ")} handler: every helper ` +
        `returns its value and reaches the host`,
      async () => {
        const { host, seen } = sides[sdk];
        for (const helper of HELPERS) {
          const progress: ProgressEvent[] = [];
          const before = {
            confirms: seen.confirms.length,
            inputs: seen.inputs.length,
            approvals: seen.approvals.length,
            secrets: seen.secrets.length,
          };
          const out = await host.callTool(mode, { helper }, { onProgress: (e) => progress.push(e) });
          assert.equal(out.is_error, false, `${mode} ${helper}: ${out.text}`);
          const got = JSON.parse(out.text) as { revision?: number };
          assert.deepEqual(got, expected(sdk, helper, mode, got.revision ?? 0), `${mode} ${helper}`);
          if (helper === "confirm")
            assert.deepEqual(seen.confirms.slice(before.confirms), [`${mode} ctx confirm`, `${mode} ext confirm`]);
          if (helper === "input")
            assert.deepEqual(seen.inputs.slice(before.inputs), [`${mode} ctx input`, `${mode} ext input`]);
          if (helper === "policy") assert.deepEqual(seen.approvals.slice(before.approvals), ["matrix.ask"]);
          if (helper === "secrets")
            assert.deepEqual(
              seen.secrets.slice(before.secrets),
              sdk === "py" ? ["matrix.token", "matrix.token"] : ["matrix.token"],
            );
          if (helper === "progress") {
            const messages = progress.flatMap((e) => (e.type === "status" ? [e.message] : []));
            assert.deepEqual(messages, [`${mode} ctx progress`, `${mode} ext progress`]);
          }
          if (helper === "catalog")
            assert.ok(
              host.tools().some((t) => t.name === `dyn_${mode}`),
              `dyn_${mode} is in the host's catalog`,
            );
          if (helper === "presentation")
            assert.equal(host.presentation(NAMES[sdk])?.revision, got.revision, "the host took the snapshot");
        }
      },
    );
  }
}

for (const sdk of ["py", "ts"] as const) {
  test(
    `issue 13.10: the ${sdk === "py" ? "Python @ext.menu" : "TypeScript ext.menu()"} handler's menu reaches the ` +
      `host with its ctx, and its action runs the command`,
    async () => {
      const { host, seen } = sides[sdk];
      const outcome = await host.collectMenu(NAMES[sdk]);
      assert.equal(outcome.generated, false, String(outcome.reason));
      assert.equal(outcome.menu.detail, FIXTURES, "the handler read ctx.context.workspace");
      assert.deepEqual(
        outcome.menu.items.map((i) => i.id),
        ["hello", "more"],
      );
      assert.equal((await host.runMenuAction(NAMES[sdk], "hello")).text, "greet from the menu");
      assert.ok(!seen.events.some((e) => e.type === "diagnostic" && /generated menu/.test(e.message)));
    },
  );
}

test(
  "issue 13.1: in a Python async def handler a helper called without await refuses its truth value (TypeError) " +
    "instead of reading as yes; tasks and gather still answer",
  async () => {
    const asked = sides.py.seen.confirms.length;
    const out = await sides.py.host.callTool("plain_async", { helper: "unawaited" });
    assert.deepEqual(JSON.parse(out.text), {
      // Named as the author wrote it (issue 13 review), not as the SDK's internal coroutine.
      truth:
        "TypeError: `ctx.confirm(...)` was not awaited: in an async def handler it returns an awaitable, " +
        "so write `await ctx.confirm(...)` (its truth value is not the host's answer)",
      task: "answer to plain_async task input",
      gathered: [true, true],
    });
    assert.deepEqual(
      sides.py.seen.confirms.slice(asked),
      ["plain_async gathered confirm"],
      "the unawaited confirm was never sent",
    );
  },
);

test("issue 13.1, PY-21: an async def typed handler is refused at registration, naming the rule", async () => {
  const out = await sides.py.host.callTool("refusals", {});
  assert.match(out.text, /typed tool 'typed_async': the handler must be a plain synchronous function/);
});

for (const sdk of ["py", "ts"] as const) {
  test(
    `issue 13.1: a blocking ${sdk === "py" ? "Python typed def" : "TypeScript typed sync"} handler sees the ` +
      `host's cancellation and the call is answered -32800; the process lives on`,
    async () => {
      const { host, seen } = sides[sdk];
      const pid = host.status().find((s) => s.name === NAMES[sdk])?.pid;
      const controller = new AbortController();
      const call = host.callTool(
        "block",
        {},
        {
          signal: controller.signal,
          onProgress: (e) => {
            if (e.type === "status" && e.message === "blocking") controller.abort();
          },
        },
      );
      await assert.rejects(call, /cancelled/);
      // The host notes how the cancelled request ended: settled -32800, or not within the grace.
      const ended = (): boolean =>
        seen.events.some((e) => e.type === "diagnostic" && /settled with -32800|did not settle/.test(e.message));
      for (let i = 0; i < 400 && !ended(); i++) await new Promise((r) => setTimeout(r, 25));
      const notes = seen.events.flatMap((e) =>
        e.type === "diagnostic" ? [e.message] : e.type === "stderr" ? [e.line] : [],
      );
      assert.ok(
        notes.some((m) => /cancelled request \d+ settled with -32800/.test(m)),
        notes.join("\n"),
      );
      assert.ok(
        notes.some((m) => /block saw the cancellation: (ctx\.)?cancelled=(True|true)/.test(m)),
        notes.join("\n"),
      );
      assert.ok(!notes.some((m) => /did not settle/.test(m)), notes.join("\n"));
      const after = host.status().find((s) => s.name === NAMES[sdk]);
      assert.equal(after?.state, "ready");
      assert.equal(after?.pid, pid, "the same process: it was not killed");
      assert.equal(JSON.parse((await host.callTool("typed_sync", { helper: "secrets" })).text).get, TOKEN.length);
    },
  );
}

test(
  "issue 13.1: through the CLI with --no-input a typed def handler's ctx.confirm and ext.confirm are False, and the " +
    "host saw both requests",
  async () => {
    const r = await runCli([
      "--extension-dir",
      FIXTURES,
      "--enable-extension",
      "py-matrix",
      "--no-input",
      "call",
      "typed_sync",
      JSON.stringify({ helper: "confirm" }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { ctx: false, ext: false });
    assert.match(r.stderr, /\[py-matrix\] typed_sync ctx confirm: denied \(--no-input\)/);
    assert.match(r.stderr, /\[py-matrix\] typed_sync ext confirm \(destructive\): denied \(--no-input\)/);
  },
);

test(
  "issue 13.1, 13.10: on a terminal a typed def handler's confirmations are asked: detail under the question, [Y/n] " +
    "for default true (Enter takes it), [y/N] otherwise",
  async () => {
    const run = await runOnPty(
      [
        "--extension-dir",
        FIXTURES,
        "--enable-extension",
        "py-matrix",
        "call",
        "typed_sync",
        JSON.stringify({ helper: "confirm" }),
      ],
      { stdoutToFile: true, env: { NO_COLOR: "1" } },
    );
    try {
      await run.waitFor(
        /typed_sync ctx confirm\r?\n {2}d\r?\n\[Y\/n\] $/,
        "the first question, with its detail and [Y/n]",
      );
      run.type("\r");
      await run.waitFor(
        /typed_sync ext confirm \(destructive\)\r?\n\[y\/N\] $/,
        "the second question, destructive, [y/N]",
      );
      run.type("\r");
      assert.equal(await run.exit(), 0, plain(run.output()));
      assert.deepEqual(JSON.parse(await run.stdout()), { ctx: true, ext: false }, "Enter took each question's default");
    } finally {
      run.stop();
    }
  },
);
