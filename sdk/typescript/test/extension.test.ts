/**
 * The Extension runtime as a host sees it, through a real child process: the initialize
 * handshake, refusals before and around it, shutdown, stdin EOF and malformed input. Dispatch of
 * the content methods is in extension-dispatch.test.ts; concurrency, cancellation and
 * confirmation in extension-concurrency.test.ts.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateInitializeResult } from "@octet/protocol";
import { CONTEXT, WireHost, errorOf, killAll, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

const TOOLS = ["echo", "fail", "wire_fail_reserved", "wire_fail", "wait_cancel", "hang", "confirm", "gate", "stats"];
const COMMANDS = ["greet", "plain"];

test(
  "INIT-07: the API 0.1 initialize result is exactly {api_version, tools:[{name,description,parameters}], " +
    "commands:[{name,description,usage}]}",
  async () => {
    const host = new WireHost("full", ["0.1"]);
    const result = resultOf(await host.initialize("0.1")) as Record<string, unknown>;
    assert.deepEqual(Object.keys(result).sort(), ["api_version", "commands", "tools"]);
    assert.equal(result["api_version"], "0.1");
    const tools = result["tools"] as Record<string, unknown>[];
    assert.deepEqual(
      tools.map((t) => t["name"]),
      TOOLS,
      "tools in registration order",
    );
    for (const t of tools) assert.deepEqual(Object.keys(t).sort(), ["description", "name", "parameters"]);
    assert.deepEqual(tools[0], {
      name: "echo",
      description: "Return the arguments as JSON",
      parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: true },
    });
    // A tool registered without parameters gets an object schema, which a host requires (INIT-08).
    assert.deepEqual(tools[1]?.["parameters"], { type: "object", properties: {} });
    assert.deepEqual(result["commands"], [
      { name: "greet", description: "Greet with a notification", usage: "/greet [name]" },
      { name: "plain", description: "Return a bare string", usage: "/plain" },
    ]);
    // The host's own validator, with the manifest declaring the same names, accepts it as is.
    const checked = validateInitializeResult(result, { api: "0.1", contributes: { tools: TOOLS, commands: COMMANDS } });
    assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  },
);

test("INIT-11: an API 0.1 extension answers without a protocol member, even when the host sends one", async () => {
  const host = new WireHost("full", ["0.1"]);
  const offer = {
    version: "0.2",
    required_features: ["request_cancellation", "content_parts"],
    optional_features: [],
    limits: { max_concurrent_requests: 8 },
  };
  const result = resultOf(await host.initialize("0.1", { protocol: offer })) as Record<string, unknown>;
  assert.equal(Object.hasOwn(result, "protocol"), false);
});

test(
  "INIT-17: an API 0.2 initialize result keeps the 0.1 members and adds protocol with the " + "required features",
  async () => {
    const host = new WireHost("full", ["0.2"]);
    const result = resultOf(await host.initialize("0.2", { maxConcurrent: 64 })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(result).sort(), ["api_version", "commands", "protocol", "tools"]);
    const protocol = result["protocol"] as {
      version: string;
      features: string[];
      limits: { max_concurrent_requests: number };
    };
    assert.equal(protocol.version, "0.2");
    assert.ok(protocol.features.includes("request_cancellation") && protocol.features.includes("content_parts"));
    // The fixture keeps the SDK default (16), below the host's cap of 64.
    assert.deepEqual(protocol.limits, { max_concurrent_requests: 16 });
    const checked = validateInitializeResult(result, {
      api: "0.2",
      contributes: { tools: TOOLS, commands: COMMANDS },
      offered: {
        required: ["request_cancellation", "content_parts"],
        optional: ["request_progress"],
        maxConcurrentRequests: 64,
      },
    });
    assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  },
);

test("INIT-22: on API 0.2 max_concurrent_requests is clamped to the host's offer", async () => {
  const host = new WireHost("full", ["0.2", "8"]);
  const result = resultOf(await host.initialize("0.2", { maxConcurrent: 3 })) as { protocol: { limits: unknown } };
  assert.deepEqual(result.protocol.limits, { max_concurrent_requests: 3 });
});

test(
  "INIT-06: an initialize whose api_version differs from the extension's is refused with -32602 naming " +
    "both versions",
  async () => {
    const host = new WireHost("full", ["0.1"]);
    const error = errorOf(await host.initialize("0.2"));
    assert.equal(error.code, -32602);
    assert.match(error.message, /0\.2/);
    assert.match(error.message, /0\.1/);
    // The refusal leaves the extension uninitialized: work is still refused.
    const call = await host.request("tool/call", { name: "echo", arguments: {}, context: CONTEXT });
    assert.ok("error" in call);
  },
);

test("PY-07/PY-58: requests before the initialize handshake are refused and their handler does not run", async () => {
  const host = new WireHost("full", ["0.1"]);
  const early = errorOf(await host.request("tool/call", { name: "echo", arguments: {}, context: CONTEXT }));
  assert.match(early.message, /tool\/call/);
  assert.match(early.message, /initialize/);
  resultOf(await host.initialize("0.1"));
  const stats = resultOf(await host.request("tool/call", { name: "stats", arguments: {}, context: CONTEXT })) as {
    content: string;
  };
  assert.deepEqual(JSON.parse(stats.content), {}, "echo never ran");
});

test("PY-07/PY-58: a second initialize is refused with -32600", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  const again = errorOf(await host.initialize("0.1"));
  assert.equal(again.code, -32600);
});

test("REV-01: the SDK sends nothing to the host before initialize; notify() before it throws", async () => {
  const host = new WireHost("full", ["0.1"]);
  await host.waitForStderr("early message refused: contributeContext()");
  assert.match(host.stderr, /early message refused: notify\(\) is available only after the host initialized/);
  assert.doesNotMatch(host.stderr, /early message accepted/);
  const init = await host.initialize("0.1");
  assert.equal(host.frames[0], init, "the initialize response is the first frame on stdout");
});

test("SHUT-01/SHUT-02: the SDK acknowledges shutdown with {} and then exits 0", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  const ack = await host.request("shutdown", {});
  assert.deepEqual(resultOf(ack), {});
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
  assert.equal(host.frames.at(-1), ack, "the ack is the last frame, written whole before exit");
  assert.equal(host.unterminated, 0);
  assert.deepEqual(host.violations, []);
});

test("SHUT-02: shutdown exits promptly even while a handler that ignores cancellation is still running", async () => {
  const host = new WireHost("full", ["0.2"]);
  resultOf(await host.initialize("0.2"));
  host.sendRequest("tool/call", { name: "hang", arguments: {}, context: CONTEXT });
  await host.waitForStderr("hang started");
  assert.deepEqual(resultOf(await host.request("shutdown", {})), {});
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
});

test("FRAME-12: closing stdin makes the SDK exit promptly with code 0", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  host.closeStdin();
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
});

test("FRAME-12: stdin EOF exits even with a handler in flight that never settles", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  host.sendRequest("tool/call", { name: "hang", arguments: {}, context: CONTEXT });
  await host.waitForStderr("hang started");
  host.closeStdin();
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
});

test("FRAME-12: stdin EOF exits even when stdout is backed up and the host has stopped reading it", async () => {
  const host = new WireHost("burst");
  resultOf(await host.initialize("0.1"));
  host.pauseStdout();
  // Large results until the child reports bytes its stdout could not hand to the OS: the pipe is
  // full and the SDK's writer waits for a drain that, once the host is gone, never comes.
  for (let i = 0; ; i++) {
    assert.ok(i < 32, "stdout never backed up");
    host.sendRequest("tool/call", { name: "blob", arguments: { n: i, size: 512 * 1024 }, context: CONTEXT });
    host.sendRequest("tool/call", { name: "probe", arguments: { tag: i }, context: CONTEXT });
    await host.waitForStderr(`stdout backlog ${i} `);
    if (!host.stderr.includes(`stdout backlog ${i} 0;`)) break;
  }
  host.closeStdin();
  host.destroyStdout();
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
});

test(
  "FRAME-10: a line that is not JSON is answered with -32700 and id null, and the extension " + "keeps serving",
  async () => {
    const host = new WireHost("full", ["0.1"]);
    resultOf(await host.initialize("0.1"));
    host.writeRaw("{not json\n");
    const parse = await host.waitForFrame((f) => f["id"] === null && "error" in f);
    assert.equal(errorOf(parse).code, -32700);
    // A CRLF-terminated frame is refused the same way (LF is the only separator).
    host.writeRaw('{"jsonrpc":"2.0","id":77,"method":"tool/call"}\r\n');
    const crlf = await host.waitForFrame((f: Frame) => f["id"] === null && "error" in f && f !== parse);
    assert.equal(errorOf(crlf).code, -32700);
    assert.match(errorOf(crlf).message, /carriage return/);
    const echo = resultOf(
      await host.request("tool/call", { name: "echo", arguments: { text: "still here" }, context: CONTEXT }),
    );
    assert.deepEqual(echo, { content: '{"text":"still here"}', is_error: false });
  },
);

test("FRAME-01: a JSON object that is not a valid envelope is answered with -32600 and its id", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  host.send({ jsonrpc: "1.0", id: 41, method: "tool/call" });
  assert.equal(errorOf(await host.response(41)).code, -32600);
});

test("FRAME-10: an inbound line over 1 MiB ends the extension instead of being truncated", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  host.writeRaw(Buffer.alloc(1_048_577, 0x61));
  const exit = await host.waitForExit();
  assert.equal(exit.code, 1);
  assert.match(host.stderr, /1048576/);
});
