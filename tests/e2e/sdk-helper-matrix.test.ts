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
    policy: { classify: (r) => (r.intent.operation === "matrix.ask" ? "ask" : "allow"), approve: async (r) => (seen.approvals.push(r.intent.operation), true) },
    secrets: (r) => (seen.secrets.push(r.name), r.name === "matrix.token" ? TOKEN : null),
  };
}

/** What each helper must answer, whatever handler called it (`mode` names the tool). */
function expected(helper: (typeof HELPERS)[number], mode: string): unknown {
  switch (helper) {
    case "confirm": return { ctx: true, ext: true };
    case "input": return { ctx: `answer to ${mode} ctx input`, ext: `answer to ${mode} ext input` };
    case "artifacts": return { ctx: "image/png", ext: "image/png" };
    case "policy": return { evaluate: { decision: "allow" }, authorize: true, ext: { decision: "allow" } };
    case "secrets": return { get: TOKEN.length, ext: TOKEN.length };
    case "progress": return { ctx: null, ext: null };
    case "catalog": return { revision: "int", tools: [`dyn_${mode}`] };
    case "presentation": return { ext: null };
  }
}

let python: ExtensionHost;
const seen: Seen = { confirms: [], inputs: [], approvals: [], secrets: [], events: [] };

before(async () => {
  python = await ExtensionHost.start({ workspace: FIXTURES, extensionDirs: [FIXTURES], enable: ["py-matrix"], services: services(seen), onEvent: (e) => seen.events.push(e) });
  const status = python.status().find((s) => s.name === "py-matrix");
  assert.equal(status?.state, "ready", JSON.stringify(status?.lastError));
});

after(async () => {
  await python?.shutdown();
  assert.deepEqual(processesMentioning(join(FIXTURES, "py-matrix")), []);
});

for (const mode of ["plain_sync", "plain_async", "typed_sync"]) {
  test(`issue 13.1: Python ${mode.replace("_", " ")} handler: every helper returns its value and reaches the host`, async () => {
    for (const helper of HELPERS) {
      const progress: ProgressEvent[] = [];
      const before = { confirms: seen.confirms.length, inputs: seen.inputs.length, approvals: seen.approvals.length, secrets: seen.secrets.length };
      const out = await python.callTool(mode, { helper }, { onProgress: (e) => progress.push(e) });
      assert.equal(out.is_error, false, `${mode} ${helper}: ${out.text}`);
      assert.deepEqual(JSON.parse(out.text), expected(helper, mode), `${mode} ${helper}`);
      if (helper === "confirm") assert.deepEqual(seen.confirms.slice(before.confirms), [`${mode} ctx confirm`, `${mode} ext confirm`]);
      if (helper === "input") assert.deepEqual(seen.inputs.slice(before.inputs), [`${mode} ctx input`, `${mode} ext input`]);
      if (helper === "policy") assert.deepEqual(seen.approvals.slice(before.approvals), ["matrix.ask"]);
      if (helper === "secrets") assert.deepEqual(seen.secrets.slice(before.secrets), ["matrix.token", "matrix.token"]);
      if (helper === "progress") {
        const messages = progress.flatMap((e) => (e.type === "status" ? [e.message] : []));
        assert.deepEqual(messages, [`${mode} ctx progress`, `${mode} ext progress`]);
      }
      if (helper === "catalog") assert.ok(python.tools().some((t) => t.name === `dyn_${mode}`), `dyn_${mode} is in the host's catalog`);
      if (helper === "presentation") assert.equal(python.presentation("py-matrix")?.revision, 7);
    }
  });
}

test("issue 13.1: in a Python async def handler a helper called without await refuses its truth value (TypeError) instead of reading as yes; tasks and gather still answer", async () => {
  const asked = seen.confirms.length;
  const out = await python.callTool("plain_async", { helper: "unawaited" });
  assert.deepEqual(JSON.parse(out.text), {
    truth: "TypeError: confirm() was called from an async def handler, where it returns an awaitable: write `await` before it (its truth value is not the host's answer)",
    task: "answer to plain_async task input",
    gathered: [true, true],
  });
  assert.deepEqual(seen.confirms.slice(asked), ["plain_async gathered confirm"], "the unawaited confirm was never sent");
});

test("issue 13.1, PY-21: an async def typed handler is refused at registration, naming the rule", async () => {
  const out = await python.callTool("refusals", {});
  assert.match(out.text, /typed tool 'typed_async': the handler must be a plain synchronous function/);
});

test("issue 13.1: a blocking typed def handler sees the host's cancellation and the call is answered -32800; the process lives on", async () => {
  const pid = python.status().find((s) => s.name === "py-matrix")?.pid;
  const controller = new AbortController();
  const call = python.callTool("block", {}, { signal: controller.signal, onProgress: (e) => { if (e.type === "status" && e.message === "blocking") controller.abort(); } });
  await assert.rejects(call, /cancelled/);
  const settled = async (): Promise<void> => {
    for (let i = 0; i < 200 && !seen.events.some((e) => e.type === "diagnostic" && /settled with -32800|did not settle/.test(e.message)); i++) await new Promise((r) => setTimeout(r, 25));
  };
  await settled();
  const notes = seen.events.flatMap((e) => (e.type === "diagnostic" || e.type === "stderr" ? [e.type === "stderr" ? e.line : e.message] : []));
  assert.ok(notes.some((m) => /cancelled request \d+ settled with -32800/.test(m)), notes.join("\n"));
  assert.ok(notes.some((m) => /block saw the cancellation: ctx\.cancelled=True/.test(m)), notes.join("\n"));
  assert.ok(!notes.some((m) => /did not settle/.test(m)), notes.join("\n"));
  const after = python.status().find((s) => s.name === "py-matrix");
  assert.equal(after?.state, "ready");
  assert.equal(after?.pid, pid, "the same process: it was not killed");
  assert.equal(JSON.parse((await python.callTool("typed_sync", { helper: "secrets" })).text).get, TOKEN.length);
});

test("issue 13.1: through the CLI with --no-input a typed def handler's ctx.confirm and ext.confirm are False, and the host saw both requests", async () => {
  const r = await runCli(["--extension-dir", FIXTURES, "--enable-extension", "py-matrix", "--no-input", "call", "typed_sync", JSON.stringify({ helper: "confirm" })]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { ctx: false, ext: false });
  assert.match(r.stderr, /\[py-matrix\] typed_sync ctx confirm: denied \(--no-input\)/);
  assert.match(r.stderr, /\[py-matrix\] typed_sync ext confirm \(destructive\): denied \(--no-input\)/);
});
