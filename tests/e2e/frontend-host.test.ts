/**
 * The frontend services through a real host and real extensions on the TypeScript SDK
 * (tests/fixtures/frontend-ext.mjs): the composer from a tool call, shortcuts registered inside
 * initialize and triggered, the autocomplete chains in order with the reference's test vector.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type FrontendService, type HostEvent } from "@octet/host";
import { applyAutocompleteEdit } from "@octet/protocol";
import { ROOT, processesMentioning } from "./helpers.js";

const FIXTURE = join(ROOT, "tests", "fixtures", "frontend-ext.mjs");
const PY_FIXTURE = join(ROOT, "tests", "fixtures", "frontend_ext.py");
const PY_SDK = join(ROOT, "sdk", "python");

interface Ext {
  name: string;
  api: "0.2" | "0.4";
  mode?: string;
  python?: boolean;
  /** tests/fixtures/shortcut-wire-ext.mjs: registrations the SDK would never send. */
  wire?: boolean;
}

/** The entrypoint: the TypeScript fixture under node, or the Python one with the SDK on its path. */
function entrypoint(e: Ext): string {
  if (e.wire) {
    const args = [join(ROOT, "tests", "fixtures", "shortcut-wire-ext.mjs")];
    return `command = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(args)}\n`;
  }
  if (!e.python) {
    const args = [FIXTURE, e.api, e.mode ?? "", toolOf(e)];
    return `command = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(args)}\n`;
  }
  const path = `sys.path.insert(0, ${JSON.stringify(PY_SDK)})`;
  const boot = `import sys, runpy; ${path}; runpy.run_path(${JSON.stringify(PY_FIXTURE)}, run_name="__main__")`;
  return `command = "python3"\nargs = ${JSON.stringify(["-c", boot])}\n`;
}

async function withHost(
  exts: Ext[],
  interactive: boolean,
  body: (host: ExtensionHost, line: { text: string }, events: HostEvent[]) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-fe-"));
  for (const e of exts) {
    await mkdir(join(dir, e.name));
    await writeFile(
      join(dir, e.name, "extension.toml"),
      `name = "${e.name}"\nversion = "0.0.1"\napi_version = "${e.api}"\n\n[entrypoint]\n` +
        `${entrypoint(e)}\n` +
        `[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false\n\n` +
        `[contributes]\ntools = ["${toolOf(e)}"]\n` +
        "notifications = true\n",
    );
  }
  const line = { text: "" };
  const frontend: FrontendService = {
    interactive: () => interactive,
    composer: {
      get: () => line.text,
      set: (t) => void (line.text = t),
      insert: (t) => void (line.text += t),
    },
  };
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: exts.map((e) => e.name),
    onEvent: (e) => events.push(e),
    services: { frontend },
  });
  try {
    for (const s of host.status()) assert.equal(s.state, "ready", JSON.stringify(s.lastError));
    await body(host, line, events);
  } catch (err) {
    console.error(JSON.stringify(events).slice(0, 3000));
    throw err;
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(processesMentioning(dir), []);
}

const toolOf = (e: Ext): string =>
  e.wire ? "late" : e.python ? "composer_py" : e.name === "fe" ? "composer" : `composer_${e.name}`;

const composer = async (host: ExtensionHost, args: Record<string, unknown>) =>
  JSON.parse((await host.callTool("composer", args)).text);

/** Waits until the chain is registered (the SDK registers it once initialize is answered). */
async function registered(host: ExtensionHost, text: string): Promise<void> {
  for (let i = 0; i < 100 && (await host.frontend.completeDraft(text, Buffer.byteLength(text))) === null; i++)
    await new Promise((r) => setTimeout(r, 20));
}

test("WAVE1-14, WAVE1-15, WAVE1-18: ctx.composer through a real host; past 256 KiB is refused locally", async () => {
  await withHost([{ name: "fe", api: "0.4" }], true, async (host, line) => {
    assert.deepEqual(await composer(host, { op: "set", text: "draft" }), { ok: true });
    assert.deepEqual(await composer(host, { op: "insert", text: " more" }), { ok: true });
    assert.deepEqual(await composer(host, { op: "get" }), { text: "draft more" });
    const max = "y".repeat(262_144);
    assert.deepEqual(await composer(host, { op: "set", text: max }), { ok: true });
    assert.equal(line.text, max);
    const over = await composer(host, { op: "set", text: `${max}y` });
    assert.equal(over.error.code, -32602);
    assert.match(over.error.message, /^bounds_exceeded composer\.set\(\)/);
    assert.equal(line.text, max, "the oversized text never reached the host");
  });
});

test("ACMP-01: over a pipe (no interactive frontend) the composer is refused and no chain is active", async () => {
  await withHost([{ name: "fe", api: "0.4" }], false, async (host) => {
    const r = await composer(host, { op: "get" });
    assert.equal(r.error.code, -32002);
    assert.match(r.error.message, /no interactive frontend/);
    assert.equal(await host.frontend.completeDraft(":x", 2), null);
  });
});

test("WAVE1-21, WAVE1-24, WAVE1-03: a shortcut from initialize runs its handler; others fail closed", async () => {
  await withHost([{ name: "fe", api: "0.2" }], true, async (host, _line, events) => {
    const [s, ...rest] = host.frontend.frontendShortcuts();
    assert.equal(rest.length, 0);
    assert.equal(s?.key.canonical, "ctrl+g");
    assert.equal(host.frontend.triggerShortcut(s!), true);
    for (let i = 0; i < 100 && !events.some((e) => e.type === "notification"); i++)
      await new Promise((r) => setTimeout(r, 20));
    const n = events.find((e) => e.type === "notification");
    assert.equal(n?.type === "notification" && n.notification.message, "shortcut ctrl+g");
    assert.equal(host.frontend.triggerShortcut({ ...s!, id: "key:ctrl+x" }), false, "an unknown id sends nothing");
    assert.equal(host.frontend.triggerShortcut({ ...s!, generation: s!.generation + 1 }), false, "a stale one neither");
  });
});

test("ACMP-15: the reference's test vector from a real extension on API 0.4 applies to 文/\" cursor 4", async () => {
  await withHost([{ name: "fe", api: "0.4" }], true, async (host) => {
    await registered(host, ":x");
    const answer = await host.frontend.completeDraft('vector é"', 9);
    assert.ok(answer, "the chain answered");
    assert.deepEqual(answer.items[0], {
      value: '文/"',
      label: "Directory",
      description: null,
      replace_after_bytes: 1,
      cursor_offset_bytes: 4,
    });
    assert.deepEqual(applyAutocompleteEdit({ text: 'é"', cursor: 2 }, answer.prefix, answer.items[0]!), {
      ok: true,
      text: '文/"',
      cursor: 4,
    });
  });
});

test("ACMP-08, ACMP-10: chains in order; an empty or invalid answer passes on; a slow one uses it up", async () => {
  const exts: Ext[] = [
    { name: "first", api: "0.2", mode: "empty" },
    { name: "second", api: "0.2", mode: "second" },
  ];
  await withHost(exts, true, async (host, _line, events) => {
    // Each extension's registrations are its own: the second's shortcut reaches the second.
    const shortcuts = host.frontend.frontendShortcuts();
    assert.deepEqual(
      shortcuts.map((s) => s.extension),
      ["first", "second"],
    );
    assert.equal(host.frontend.triggerShortcut(shortcuts[1]!), true);
    for (let i = 0; i < 100 && !events.some((e) => e.type === "notification"); i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(events.find((e) => e.type === "notification")?.extension, "second");
    await registered(host, ":x");
    const r = await host.frontend.completeDraft("say :x", 6);
    assert.equal(r?.extension, "second", "the first chain's empty answer left the query unclaimed");
    assert.deepEqual(
      r?.items.map((i) => i.value),
      [":xyz-0.2"],
    );
    assert.equal(r?.prefix, ":x");
    // Edit fields without autocomplete_edit_v1 are refused by the SDK: nobody claims.
    assert.equal(await host.frontend.completeDraft("bad", 3), null);
    // The first chain takes longer than the whole deadline: the second is never asked.
    assert.equal(await host.frontend.completeDraft("slow :x", 7, { deadlineMs: 300 }), null);
  });
});

test("issue 16.7: the Python SDK's composer, shortcut and autocomplete through a real host", async () => {
  await withHost([{ name: "py", api: "0.4", python: true }], true, async (host, line, events) => {
    const call = async (args: Record<string, unknown>) => JSON.parse((await host.callTool("composer_py", args)).text);
    assert.deepEqual(await call({ op: "set", text: "from python" }), { ok: true });
    assert.deepEqual(await call({ op: "get" }), { text: "from python" });
    const over = await call({ op: "set", text: "z".repeat(262_145) });
    assert.match(over.error.message, /^bounds_exceeded composer\.set\(\)/);
    assert.equal(line.text, "from python", "refused before anything was sent (WAVE1-18)");
    const [s] = host.frontend.frontendShortcuts();
    assert.equal(s?.key.canonical, "ctrl+g");
    assert.equal(host.frontend.triggerShortcut(s!), true);
    for (let i = 0; i < 150 && !events.some((e) => e.type === "notification"); i++)
      await new Promise((r) => setTimeout(r, 20));
    const n = events.find((e) => e.type === "notification");
    assert.equal(n?.type === "notification" && n.notification.message, "shortcut ctrl+g from python");
    let answer = null;
    for (let i = 0; i < 100 && answer === null; i++) {
      answer = await host.frontend.completeDraft('vector é"', 9);
      if (answer === null) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(answer, "the Python chain answered");
    assert.deepEqual(applyAutocompleteEdit({ text: 'é"', cursor: 2 }, answer.prefix, answer.items[0]!), {
      ok: true,
      text: '文/"',
      cursor: 4,
    });
    assert.equal(await host.frontend.completeDraft("nothing", 7), null, "None leaves the query unclaimed");
  });
});

test("ACMP-05: each SDK refuses a 1,025-byte field or a control locally; 1,024 bytes reach the host", async () => {
  for (const e of [
    { name: "fe", api: "0.4" as const },
    { name: "py", api: "0.4" as const, python: true },
  ])
    await withHost([e], true, async (host) => {
      await registered(host, "limit");
      const problems: string[] = [];
      const ask = (text: string) =>
        host.frontend.completeDraft(text, Buffer.byteLength(text), { onProblem: (_x, p) => problems.push(p) });
      const limit = await ask("limit");
      assert.ok(limit, `${e.name}: the answer at the limit was sent and taken`);
      const [item] = limit.items;
      assert.deepEqual(
        [item?.value, item?.label, item?.description].map((v) => Buffer.byteLength(v ?? "")),
        [1024, 1024, 1024],
      );
      assert.equal(await ask("past"), null);
      assert.equal(await ask("ctl"), null);
      // The SDK's own refusal (its handler's answer), not the host's check of a sent answer.
      assert.equal(problems.length, 2, problems.join("\n"));
      assert.match(problems[0] ?? "", /^bounds_exceeded autocomplete handler answer: items\[0\]\.label: 1025 bytes/);
      assert.match(problems[1] ?? "", /^invalid_request autocomplete handler answer: items\[0\]\.value: control/);
      assert.ok(!problems.some((p) => p.includes("answer refused")), e.name);
    });
});

test("WAVE1-23, WAVE1-24: only in initialize, parented to it, once per id; the rest stays unavailable", async () => {
  await withHost([{ name: "wire", api: "0.2", wire: true }], true, async (host) => {
    const outcomes = JSON.parse((await host.callTool("late", {})).text) as Record<string, string>;
    assert.deepEqual(Object.keys(outcomes).sort(), ["early#r1", "early#r3", "foreign#r2", "late#r4"]);
    assert.equal(outcomes["early#r1"], "ok");
    assert.match(outcomes["early#r3"] ?? "", /^invalid_request shortcut\/register: id "early" is a duplicate/);
    for (const refused of ["foreign#r2", "late#r4"])
      assert.match(outcomes[refused] ?? "", /^not_foreground_owner .*only inside the initialize request/, refused);
    assert.deepEqual(
      host.frontend.frontendShortcuts().map((s) => [s.id, s.key.canonical]),
      [["early", "ctrl+g"]],
    );
  });
});
