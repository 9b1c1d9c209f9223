import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { launchProcess } from "../src/process/process-transport.js";
import { rpiRuntime } from "../src/rpi-runtime.js";
import {
  DEFAULT_RPI_TIMEOUTS,
  RpiConnection,
  resolveTimeouts,
  type RpiConnectionOptions,
  type RpiHostServices,
} from "../src/host/rpi-connection.js";

const FAKE = fileURLToPath(new URL("../../test/fixtures/rpi-fake.mjs", import.meta.url));
const ALL = {
  capabilities: ["tools", "commands", "event_hooks", "ui", "session_actions"],
  uiCapabilities: ["confirm", "notify", "status"],
};

interface Harness {
  c: RpiConnection;
  stderr: string[];
  diagnostics: string[];
}

async function connect(
  mode: string,
  extra: Partial<RpiConnectionOptions> = {},
  env: Record<string, string> = {},
): Promise<Harness> {
  const transport = await launchProcess({
    command: process.execPath,
    args: [FAKE, mode, "pi-fake"],
    cwd: process.cwd(),
    env,
  });
  const stderr: string[] = [];
  const diagnostics: string[] = [];
  const c = new RpiConnection({
    transport,
    instance: { extensionId: "pi-fake", generation: 3 },
    cwd: "/work/space",
    mode: "rpc",
    projectTrusted: true,
    grants: ALL,
    diagnose: (level, message) => diagnostics.push(`${level}: ${message}`),
    onStderr: (line) => stderr.push(line),
    ...extra,
  });
  return { c, stderr, diagnostics };
}

async function started(
  mode: string,
  extra: Partial<RpiConnectionOptions> = {},
  env: Record<string, string> = {},
): Promise<Harness> {
  const h = await connect(mode, extra, env);
  await h.c.start();
  return h;
}

/** Running (a zombie waiting to be reaped counts as gone: it holds nothing and runs nothing). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The text of a successful tool result, parsed as JSON. */
function answerOf(r: unknown): unknown {
  return JSON.parse((r as { value: { content: { text: string }[] } }).value.content[0]!.text);
}

async function eventually<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("never happened");
}

test(
  "RPI-21, RPI-22, RPI-24, RPI-27: hello both ways, initialize, and the registrations of the load " + "phase",
  async () => {
    const { c, stderr } = await started("ok");
    try {
      // The fake echoes what it received on stderr, which may arrive after stdout's frames.
      const hostHello = JSON.parse((await eventually(() => stderr.find((l) => l.includes('"hello"')))).slice(4));
      assert.deepEqual(hostHello, {
        type: "hello",
        protocolVersion: 1,
        instance: { extensionId: "pi-fake", generation: 3 },
        cwd: "/work/space",
        mode: "rpc",
        projectTrusted: true,
      });
      const init = JSON.parse((await eventually(() => stderr.find((l) => l.includes('"initialize"')))).slice(4));
      assert.deepEqual(init, { type: "request", id: init.id, generation: 3, request: { kind: "initialize" } });
      assert.equal(c.hello?.id, "pi-fake");
      assert.equal(c.state, "ready");
      assert.deepEqual(
        c.tools().map((t) => [t.name, t.label]),
        [["weather", "Weather"]],
      );
      assert.deepEqual(c.commands(), [{ name: "forecast", description: "A forecast" }]);
      // session_switch is an older name, delivered as session_start.
      assert.deepEqual(c.hooks(), ["session_start", "tool_call"]);
    } finally {
      await c.shutdown("test over");
    }
  },
);

test(
  "RPI-25, RPI-28: a tool invocation answers with an AgentToolResult; updates reach onUpdate; errors are " + "results",
  async () => {
    const { c } = await started("ok");
    try {
      const updates: unknown[] = [];
      const r = await c.invoke(
        { kind: "tool", name: "weather", callId: "call-1", arguments: { city: "London" } },
        { onUpdate: (v) => updates.push(v) },
      );
      assert.deepEqual(r, {
        status: "success",
        value: { content: [{ type: "text", text: "15 °C, cloudy in London" }], details: { city: "London" } },
      });
      assert.deepEqual(updates, [{ content: [{ type: "text", text: "looking outside" }] }]);
      const failed = await c.invoke({
        kind: "tool",
        name: "weather",
        callId: "call-2",
        arguments: { city: "Atlantis", mode: "fail" },
      });
      assert.deepEqual(failed, { status: "error", error: { message: "no weather for Atlantis" } });
      const cmd = await c.invoke({ kind: "command", name: "forecast", arguments: "rain" });
      assert.deepEqual(cmd, { status: "success", value: "forecast: rain" });
    } finally {
      await c.shutdown("test over");
    }
  },
);

test("RPI-18, RPI-19: the child sees only the environment it was given", async () => {
  const env = { PI_EXTENSION_PROTOCOL_VERSION: "1", PI_EXTENSION_ID: "pi-fake", PI_EXTENSION_PACKAGE_ID: "pkg" };
  const { c } = await started("ok", {}, env);
  try {
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "env" } });
    assert.equal(r.status, "success");
    const seen = JSON.parse((r as { value: { content: { text: string }[] } }).value.content[0]!.text) as Record<
      string,
      string
    >;
    assert.deepEqual(seen, env);
  } finally {
    await c.shutdown("test over");
  }
});

test(
  "RPI-23: a hello naming another id, or claiming an ungranted capability, fails the handshake and kills the " +
    "child",
  async () => {
    for (const [mode, expected] of [
      ["bad-hello-id", /hello names extension "someone-else", but pi-extension.json says "pi-fake"/],
      ["extra-cap", /hello claims capabilities \["session_actions"\] that pi-extension.json does not grant/],
    ] as const) {
      const { c } = await connect(mode, {
        grants: mode === "extra-cap" ? { capabilities: ["tools"], uiCapabilities: [] } : ALL,
      });
      const pid = c.pid!;
      await assert.rejects(c.start(), expected);
      const exit = await c.closed;
      assert.equal(exit.code, "fatal");
      assert.equal(alive(pid), false);
    }
  },
);

test(
  "RPI-31, RPI-32, RPI-33: handshake and load timeouts fail the start and kill the child; the defaults are the " +
    "document's",
  async () => {
    const { c: silent } = await connect("no-hello", { timeouts: { handshakeMs: 300 } });
    await assert.rejects(silent.start(), /no hello from the extension within 300 ms \(handshake timeout\)/);
    assert.equal(alive(silent.pid!), false);
    const { c: stuck } = await connect("hang-load", { timeouts: { loadMs: 300 } });
    await assert.rejects(stuck.start(), /load phase did not finish within 300 ms \(load timeout\)/);
    assert.equal((await stuck.closed).code, "terminated");
    const { c: slow } = await connect("hang-load", { timeouts: { initializeMs: 250, loadMs: 5000 } });
    await assert.rejects(slow.start(), /did not become ready within 250 ms \(initialize timeout\)/);
    // The defaults of the document, and an override replaces only the timeout it names.
    assert.deepEqual(DEFAULT_RPI_TIMEOUTS, {
      handshakeMs: 5000,
      loadMs: 10_000,
      initializeMs: 15_000,
      invocationMs: 60_000,
      hookMs: 10_000,
      shutdownMs: 2000,
    });
    assert.deepEqual(slow.timeouts, { ...DEFAULT_RPI_TIMEOUTS, initializeMs: 250, loadMs: 5000 });
  },
);

test("RPI-33: an invocation timeout answers the caller with an error and keeps the extension", async () => {
  const { c } = await started("ok", { timeouts: { invocationMs: 200 } });
  try {
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "hang" } });
    assert.equal(r.status, "error");
    assert.match(
      (r as { error: { message: string } }).error.message,
      /no response within 200 ms \(invocation timeout\)/,
    );
    const again = await c.invoke({ kind: "tool", name: "weather", callId: "c2", arguments: { city: "Oslo" } });
    assert.equal(again.status, "success");
  } finally {
    await c.shutdown("test over");
  }
});

test("RPI-29: a cancelled invocation sends cancel and resolves cancelled", async () => {
  const { c } = await started("ok");
  try {
    const ac = new AbortController();
    const p = c.invoke(
      { kind: "tool", name: "weather", callId: "c", arguments: { mode: "hang" } },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 50);
    assert.deepEqual(await p, { status: "cancelled" });
  } finally {
    await c.shutdown("test over");
  }
});

test(
  "RPI-35, RPI-36, RPI-37: a CRLF frame, a blank line and an oversize frame are violations that terminate the " +
    "extension",
  async () => {
    for (const [mode, expected] of [
      ["crlf", /carriage return|CR/i],
      ["blank", /blank/i],
      ["oversize", /1048576|too large|over/i],
    ] as const) {
      const h = await connect(mode);
      const pid = h.c.pid!;
      await assert.rejects(h.c.start(), /protocol violation/);
      const exit = await h.c.closed;
      assert.equal(exit.code, "fatal");
      assert.match(exit.reason, expected);
      assert.ok(
        h.diagnostics.some((d) => d.startsWith("error: protocol violation")),
        h.diagnostics.join("\n"),
      );
      assert.equal(alive(pid), false);
    }
  },
);

test("RPI-30: a response naming another generation's request is ignored with a diagnostic", async () => {
  const { c, diagnostics } = await started("ok", { timeouts: { invocationMs: 300 } });
  try {
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "stale" } });
    assert.equal(r.status, "error");
    assert.ok(
      diagnostics.some((d) =>
        /ignored a response for "req-999-1" of generation 999; this instance is generation 3/.test(d),
      ),
      diagnostics.join("\n"),
    );
    assert.equal(c.state, "ready");
  } finally {
    await c.shutdown("test over");
  }
});

test("RPI-34, RPI-40: terminating kills the whole process group, grandchildren included", async () => {
  const { c } = await started("ok");
  const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "grandchild" } });
  const grandchild = Number((r as { value: { content: { text: string }[] } }).value.content[0]!.text);
  assert.equal(alive(grandchild), true);
  await c.terminate("test");
  await c.closed;
  for (let i = 0; i < 50 && alive(grandchild); i++) await new Promise((res) => setTimeout(res, 20));
  assert.equal(alive(grandchild), false);
});

test(
  "issue 13.12: an invocation pending when the extension exits is answered at once as closed, and leaves no timer " +
    "behind",
  async () => {
    const { c } = await started("ok", { timeouts: { invocationMs: 60_000 } });
    const answer = c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "crash" } });
    let hung: ReturnType<typeof setTimeout> | undefined;
    const r = await Promise.race([
      answer,
      new Promise<"hung">((res) => (hung = setTimeout(() => res("hung"), 10_000))),
    ]);
    clearTimeout(hung);
    assert.notEqual(r, "hung", "the invocation was never answered after the extension exited");
    assert.equal(r !== "hung" && r.status === "error" ? r.error.code : r, "closed");
    // The 60 s invocation timer went with the answer: only the test's own handles are left.
    assert.deepEqual(
      process.getActiveResourcesInfo().filter((x) => x === "Timeout"),
      [],
    );
  },
);

test(
  "RPI-26: shutdown sends the shutdown frame; a child that ignores it is killed after the shutdown " + "timeout",
  async () => {
    const { c } = await started("ok");
    await c.shutdown("session ended");
    // It exited by itself on the frame: nothing had to be killed.
    assert.equal((await c.closed).code, "exited");
    const { c: stubborn, diagnostics } = await started("ignore-shutdown", { timeouts: { shutdownMs: 200 } });
    const pid = stubborn.pid!;
    await stubborn.shutdown("session ended");
    assert.equal(alive(pid), false);
    assert.ok(diagnostics.some((d) => /did not exit within 200 ms of the shutdown frame/.test(d)));
  },
);

test("RPI-38: an action during the registration-only load phase is refused", async () => {
  const { c, stderr } = await started("action-in-load", { services: { action: async () => "done" } });
  try {
    const line = await eventually(() => stderr.find((l) => l.startsWith("load action:")));
    assert.match(line, /"status":"error".*"code":"denied".*unavailable during the registration-only load phase/);
  } finally {
    await c.shutdown("test over");
  }
});

test("RPI-39, QJS-12: actions need session_actions and a bound service; UI requests need their grant", async () => {
  const services: RpiHostServices = {
    action: async (a) => ({ did: a.kind }),
    ui: async (r) => ({ confirmed: r.type === "confirm" }),
  };
  const { c } = await started("ok", { services });
  try {
    const act = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "action" } });
    assert.deepEqual(answerOf(act), { status: "success", value: { did: "set_session_name" } });
    const ui = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "confirm" } });
    assert.deepEqual(answerOf(ui), { status: "success", value: { confirmed: true } });
  } finally {
    await c.shutdown("test over");
  }
  // Granted capabilities without the service: refused, naming why.
  const { c: bare } = await started("ok");
  try {
    const act = await bare.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "action" } });
    assert.deepEqual(answerOf(act), {
      status: "error",
      error: {
        code: "denied",
        message: 'the host cannot process the action "set_session_name": no service for it is bound',
      },
    });
  } finally {
    await bare.shutdown("test over");
  }
  // The manifest grants neither session_actions nor confirm: the hello may not claim them (the
  // fake claims ui + session_actions in every mode), so the start fails closed.
  const { c: narrow } = await connect("ok", {
    services,
    grants: { capabilities: ["tools", "commands", "event_hooks"], uiCapabilities: [] },
  });
  await assert.rejects(narrow.start(), /does not grant/);
});

test(
  "RPI-35: a frame of exactly 1048576 bytes is accepted, one of 1048577 is a violation; a host frame over the " +
    "bound is never sent",
  async () => {
    const at = await connect("size:1048576");
    await at.c.start();
    assert.equal(at.c.state, "ready");
    try {
      // The host's own frames are bounded too: an invocation whose frame would pass 1 MiB is refused before a byte goes
      // out.
      const big = await at.c.invoke({
        kind: "tool",
        name: "weather",
        callId: "c",
        arguments: { city: "x".repeat(1024 * 1024) },
      });
      assert.equal(big.status, "error");
      assert.match(
        (big as { error: { message: string } }).error.message,
        /the request frame would be \d+ bytes, over the 1048576-byte frame limit; not sent/,
      );
      const small = await at.c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { city: "Oslo" } });
      assert.equal(small.status, "success");
    } finally {
      await at.c.shutdown("test over");
    }
    const past = await connect("size:1048577");
    await assert.rejects(past.c.start(), /protocol violation: .*1048576/);
    assert.equal((await past.c.closed).code, "fatal");
  },
);

test("RPI-37: a frame with a duplicate member is a violation that names it", async () => {
  const { c } = await connect("dup");
  await assert.rejects(c.start(), /protocol violation: a hello frame has duplicate members \["type"\]/);
});

test("RPI-33: registrations that arrive in the same chunk as the hello belong to the load phase", async () => {
  const { c } = await connect("one-chunk", { grants: { capabilities: ["tools"], uiCapabilities: [] } });
  await c.start();
  try {
    assert.deepEqual(
      c.tools().map((t) => t.name),
      ["early"],
    );
  } finally {
    await c.shutdown("test over");
  }
});

test("RPI-30: a frame that carries another generation is ignored with a diagnostic", async () => {
  const { c, diagnostics } = await started("gen-frame", { timeouts: { invocationMs: 300 } });
  try {
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "gen-frame" } });
    assert.equal(r.status, "error");
    assert.ok(
      diagnostics.some((d) => /ignored a response frame for generation 999; this instance is generation 3/.test(d)),
      diagnostics.join("\n"),
    );
  } finally {
    await c.shutdown("test over");
  }
});

test("RPI-27: the 257th tool registration is a violation naming the limit", async () => {
  const ok = await connect("many-tools", {}, {});
  await ok.c.start().catch(() => undefined);
  await ok.c.closed;
  assert.match(ok.c.lastError ?? "", /registered more than 256 tools \("t256" is the 257th\)/);
});

test("RPI-32: a timeout override must be an integer of 1 ms to a day; the message names the value", () => {
  for (const bad of [0, -5, 1.5, Number.POSITIVE_INFINITY, Number.NaN, 86_400_001]) {
    assert.throws(
      () => resolveTimeouts({ invocationMs: bad }),
      new RegExp(
        `rpi timeout invocationMs must be an integer number of milliseconds from 1 to 86400000; got ` +
          `${String(bad).replace(".", "\\.")}`,
      ),
    );
  }
  assert.equal(resolveTimeouts({ invocationMs: 86_400_000 }).invocationMs, 86_400_000);
  assert.equal(resolveTimeouts({ hookMs: 1 }).hookMs, 1);
  assert.throws(() => resolveTimeouts({ bogusMs: 5 } as never), /unknown rpi timeout "bogusMs"/);
});

test(
  "RPI-39, QJS-12: with a hello that claims neither session_actions nor confirm, the request gate refuses " + "both",
  async () => {
    const services: RpiHostServices = { action: async () => ({}), ui: async () => ({ confirmed: true }) };
    const { c } = await started("narrow", { services });
    try {
      const act = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "action" } });
      assert.deepEqual(answerOf(act), {
        status: "error",
        error: {
          code: "denied",
          message:
            'the action "set_session_name" needs the session_actions capability, which this extension does not have',
        },
      });
      const ui = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "confirm" } });
      assert.deepEqual(answerOf(ui), {
        status: "error",
        error: {
          code: "denied",
          message: 'the UI request "confirm" needs the "confirm" uiCapability, which this extension does not have',
        },
      });
    } finally {
      await c.shutdown("test over");
    }
  },
);

test("RPI-34, RPI-40: after a graceful exit or a crash, what the extension left in its group is killed", async () => {
  for (const end of ["shutdown", "crash"] as const) {
    const { c } = await started("ok");
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "grandchild" } });
    const grandchild = Number((r as { value: { content: { text: string }[] } }).value.content[0]!.text);
    assert.equal(alive(grandchild), true);
    if (end === "shutdown") await c.shutdown("session ended");
    else void c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "crash" } });
    await c.closed;
    for (let i = 0; i < 50 && alive(grandchild); i++) await new Promise((res) => setTimeout(res, 20));
    assert.equal(alive(grandchild), false, end);
  }
});

test("RPI-32: rpiRuntime refuses a bad timeout override when it is built, naming the value", () => {
  assert.throws(
    () => rpiRuntime({ timeouts: { hookMs: -1 } }),
    /rpi timeout hookMs must be an integer number of milliseconds from 1 to 86400000; got -1/,
  );
  assert.throws(
    () => rpiRuntime({ quickjs: { memoryLimitBytes: 128 * 1024 * 1024 } }),
    /quickjs.memoryLimitBytes must be an integer of at most 67108864 bytes \(64 MiB\); got 134217728/,
  );
  assert.equal(rpiRuntime({ timeouts: { hookMs: 50 } }).manifestFile, "pi-extension.json");
});

test(
  "issue 13.5: an invocation carries its context with the hello's cwd, mode and trust; lists too large for the " +
    "frame are left out with a diagnostic",
  async () => {
    const { c, diagnostics } = await started("ok", { maxFrameBytes: 4096 });
    try {
      const small = {
        sessionName: null,
        model: { id: "m" },
        allTools: ["weather"],
        activeTools: ["weather"],
        commands: [{ name: "forecast", description: "d" }],
      };
      const r = await c.invoke(
        { kind: "tool", name: "weather", callId: "call-1", arguments: { mode: "context" } },
        { context: small },
      );
      assert.deepEqual(answerOf(r), { ...small, cwd: "/work/space", mode: "rpc", projectTrusted: true });
      const names = Array.from({ length: 300 }, (_, i) => `tool_${i}`);
      const big = await c.invoke(
        { kind: "tool", name: "weather", callId: "call-2", arguments: { mode: "context" } },
        { context: { ...small, allTools: names, activeTools: names } },
      );
      assert.deepEqual(answerOf(big), {
        sessionName: null,
        model: { id: "m" },
        cwd: "/work/space",
        mode: "rpc",
        projectTrusted: true,
      });
      assert.ok(
        diagnostics.some((d) =>
          /do not fit a quarter of the 4096-byte frame limit; the invocation context was sent without them/.test(d),
        ),
        diagnostics.join("\n"),
      );
    } finally {
      await c.shutdown("test over");
    }
  },
);

test("issue 13 review: a context object is encoded once for any number of invocations; a new one again", async () => {
  const { c, diagnostics } = await started("ok");
  try {
    const commands = [{ name: "forecast", description: "d" }];
    const epoch1 = { sessionName: "s", model: { id: "m" }, allTools: ["weather"], activeTools: ["weather"], commands };
    const args = { mode: "context" };
    const call = (i: number) => ({ kind: "tool" as const, name: "weather", callId: `c${i}`, arguments: args });
    for (let i = 0; i < 5; i++) {
      const r = await c.invoke(call(i), { context: epoch1 });
      assert.deepEqual(answerOf(r), { ...epoch1, cwd: "/work/space", mode: "rpc", projectTrusted: true });
    }
    assert.equal(c.contextEncodings, 1);
    const epoch2 = { ...epoch1, allTools: ["weather", "tides"], activeTools: ["weather", "tides"] };
    const r = await c.invoke(call(5), { context: epoch2 });
    assert.deepEqual(answerOf(r), { ...epoch2, cwd: "/work/space", mode: "rpc", projectTrusted: true });
    assert.equal(c.contextEncodings, 2);
    // Without a context the frame has none, as before.
    const bare = await c.invoke(call(6));
    assert.equal(answerOf(bare), null);
    assert.deepEqual(
      diagnostics.filter((d) => /invocation context/.test(d)),
      [],
    );
  } finally {
    await c.shutdown("test over");
  }
});

test("issue 19: with contextOnChange a context already sent is left out of later frames; a new one goes", async () => {
  const { c } = await started("ok", { contextOnChange: true });
  try {
    const epoch1 = { sessionName: "s", allTools: ["weather"], activeTools: ["weather"] };
    const call = (i: number) => ({
      kind: "tool" as const,
      name: "weather",
      callId: `c${i}`,
      arguments: { mode: "context" },
    });
    const whole = { ...epoch1, cwd: "/work/space", mode: "rpc", projectTrusted: true };
    // The fake answers with the context its frame carried (null: none).
    assert.deepEqual(answerOf(await c.invoke(call(0), { context: epoch1 })), whole);
    assert.equal(answerOf(await c.invoke(call(1), { context: epoch1 })), null, "the same context: left out");
    assert.equal(answerOf(await c.invoke(call(2), { context: { ...epoch1 } })), null, "equal text: left out too");
    const epoch2 = { ...epoch1, sessionName: "t" };
    assert.deepEqual(answerOf(await c.invoke(call(3), { context: epoch2 })), { ...whole, sessionName: "t" });
    assert.equal(answerOf(await c.invoke(call(4), { context: epoch2 })), null);
    // Back to the first: it differs from the last one sent, so it goes again.
    assert.deepEqual(answerOf(await c.invoke(call(5), { context: epoch1 })), whole);
  } finally {
    await c.shutdown("test over");
  }
});

test("issue 13 review: a context over LARGE_CONTEXT_BYTES that fits is said once, with size and bound", async () => {
  // 4 MiB frames: a quarter is 1 MiB, so a 300 KB context is sent whole, and said once.
  const { c, diagnostics } = await started("ok", { maxFrameBytes: 4 * 1024 * 1024 });
  try {
    const names = Array.from({ length: 12_000 }, (_, i) => `tool_number_${i}`);
    const context = { allTools: names, activeTools: names };
    for (let i = 0; i < 3; i++) {
      const call = { kind: "tool" as const, name: "weather", callId: `call-${i}`, arguments: { mode: "context" } };
      const r = await c.invoke(call, { context });
      assert.equal((answerOf(r) as { allTools: string[] }).allTools.length, 12_000);
    }
    const said = diagnostics.filter((d) => /invocation context/.test(d));
    assert.equal(said.length, 1, said.join("\n"));
    const bound = "over 262144 bytes \\(LARGE_CONTEXT_BYTES\\)";
    const why = "it is copied into every invocation until the catalog changes";
    assert.match(said[0]!, new RegExp(`^warning: the invocation context is \\d{6} bytes, ${bound}; ${why}$`));
  } finally {
    await c.shutdown("test over");
  }
});

test("issue 13 review: a child flooding past 64 outstanding requests is refused in a line per window", async () => {
  // The host never answers: 64 requests stay outstanding and the rest are refused.
  const { c, diagnostics } = await started("ok", { services: { ui: () => new Promise(() => undefined) } });
  try {
    const r = await c.invoke({ kind: "tool", name: "weather", callId: "c", arguments: { mode: "flood", count: 500 } });
    assert.deepEqual(answerOf(r), { denied: 436 });
    const refused = (): string[] => diagnostics.filter((d) => /refused the extension's UI request "notify"/.test(d));
    const count = (d: string): number => Number(/ (\d+) times? more in the last 1 s/.exec(d)?.[1] ?? 1);
    const summed = (): number => refused().reduce((n, d) => n + count(d), 0);
    await eventually(() => (summed() === 436 ? true : undefined));
    const flood = "more than 64 requests outstanding; refused";
    assert.equal(refused()[0], `warning: refused the extension's UI request "notify": ${flood}`);
    // One burst may straddle a window on a loaded machine: a line or two more, never one per request.
    assert.ok(refused().length <= 3, refused().join("\n"));
    const summary = new RegExp(
      `^warning: refused the extension's UI request "notify" \\d+ times? more in the last 1 s: ${flood}$`,
    );
    for (const line of refused().slice(1)) assert.match(line, summary);
    assert.equal(c.state, "ready");
  } finally {
    await c.shutdown("test over");
  }
});
