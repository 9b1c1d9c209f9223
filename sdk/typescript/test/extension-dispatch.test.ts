/**
 * Dispatch of the host's content methods through a real child process: errors for unknown
 * methods and bad params, the tool error paths, and the result shapes of commands, hooks,
 * context, status and renderers. Each result is also run through the host's own validator from
 * @octet/protocol, so "the SDK's output is what a host accepts" is checked, not just its shape.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  validateCommandResult,
  validateContextContributions,
  validateHookResult,
  validateRenderResult,
  validateStatusResult,
  validateToolResult,
  type Checked,
} from "@octet/protocol";
import { CONTEXT, WireHost, errorOf, resultOf } from "./harness.js";

// One child for the whole file: these requests are independent, so sharing it keeps the file fast.
let host: WireHost;
before(async () => {
  host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
});
after(() => host.kill());

function accepted<T>(r: Checked<T>): T {
  if (!r.ok) assert.fail(`the host validator refused it:\n  ${r.problems.join("\n  ")}`);
  return r.value;
}

const callTool = (name: string, args: unknown = {}) =>
  host.request("tool/call", { name, arguments: args, context: CONTEXT });
const runHook = (hook: string, payload: unknown) => host.request("hook/run", { hook, payload, context: CONTEXT });

test("ERR-01: an unknown method is answered with -32601", async () => {
  const error = errorOf(await host.request("tool/explode", {}));
  assert.equal(error.code, -32601);
  assert.match(error.message, /tool\/explode/);
});

test("ERR-02: tool/call without a name is answered with -32602 naming the member", async () => {
  const error = errorOf(await host.request("tool/call", { arguments: {}, context: CONTEXT }));
  assert.equal(error.code, -32602);
  assert.match(error.message, /name/);
});

test("ERR-02: tool/call whose arguments are not an object is answered with -32602", async () => {
  for (const bad of [[1, 2], "text", null, 7]) {
    const error = errorOf(await callTool("echo", bad));
    assert.equal(error.code, -32602, `arguments ${JSON.stringify(bad)}`);
    assert.match(error.message, /arguments/);
  }
});

test("ERR-02: invalid params of the other methods are answered with -32602", async () => {
  const cases: [string, unknown][] = [
    ["command/execute", { name: "greet", arguments: "not-an-array", context: CONTEXT }],
    ["hook/run", { hook: "before_everything", payload: {}, context: CONTEXT }],
    ["hook/run", { hook: "before_prompt", payload: { prompt: 5 }, context: CONTEXT }],
    ["context/collect", { prompt: 3, context: CONTEXT }],
    ["status/collect", { surface: "sidebar", context: CONTEXT }],
    ["tool/render", { name: "echo", arguments: {}, output: "x", context: CONTEXT }],
    ["tool/call", { name: "echo", arguments: {} }],
  ];
  for (const [method, params] of cases) {
    assert.equal(errorOf(await host.request(method, params)).code, -32602, `${method} ${JSON.stringify(params)}`);
  }
});

test("ERR-02: an unknown tool is answered with -32602 naming it", async () => {
  const error = errorOf(await callTool("no_such_tool"));
  assert.equal(error.code, -32602);
  assert.match(error.message, /no_such_tool/);
});

test(
  "ERR-03: a handler that throws a WireError with code -32001 passes that code, message and " + "data through",
  async () => {
    const error = errorOf(await callTool("wire_fail")) as { code: number; message: string; data?: unknown };
    assert.deepEqual(error, {
      code: -32001,
      message: "quota_exceeded: the wire_fail tool is out of quota",
      data: { retry_after_ms: 1000 },
    });
  },
);

test(
  "ERR-03: an author code outside -32000..-32099 (here -32601) is not passed through; it " + "becomes -32603",
  async () => {
    const error = errorOf(await callTool("wire_fail_reserved"));
    assert.equal(error.code, -32603);
    assert.match(
      error.message,
      new RegExp(
        /pretending the method does not exist \(the extension used code -32601, /.source +
          /outside the -32000\.\.-32099 server range\)/.source,
      ),
    );
  },
);

test(
  "CALL-12: a tool handler that throws a plain Error yields a tool result with is_error true and " + "the message",
  async () => {
    const result = resultOf(await callTool("fail"));
    assert.deepEqual(result, { content: "Error: boom: the fail tool always fails", is_error: true });
    assert.equal(accepted(validateToolResult(result, "0.1")).is_error, true);
  },
);

test("CALL-12: an API 0.1 tool result is {content: string, is_error}", async () => {
  const result = resultOf(await callTool("echo", { text: "hi" }));
  assert.deepEqual(result, { content: '{"text":"hi"}', is_error: false });
  accepted(validateToolResult(result, "0.1"));
});

test(
  "CMD-02: a command result is {text, notifications:[{level,title,message}], context:[...]} with defaults " +
    "filled in",
  async () => {
    const id = host.sendRequest("command/execute", { name: "greet", arguments: ["Ada", "Lovelace"], context: CONTEXT });
    const result = resultOf(await host.response(id));
    assert.deepEqual(result, {
      text: "Hello, Ada Lovelace!",
      notifications: [{ level: "info", title: "Greeting", message: "to Ada Lovelace" }],
      context: [{ label: "greet", content: "The user greeted Ada Lovelace.", placement: "system_suffix" }],
    });
    accepted(validateCommandResult(result));
    // ctx.notify() sent a notification (no id) during the command, before its response.
    const note = host.frames.find(
      (f) => f["method"] === "notification" && (f["params"] as { message?: string }).message === "greeted Ada Lovelace",
    );
    assert.ok(note, "the notification frame was sent");
    assert.equal(Object.hasOwn(note, "id"), false);
    assert.deepEqual(note["params"], { level: "success", title: "Greeted", message: "greeted Ada Lovelace" });
    assert.ok(
      host.frames.indexOf(note) < host.frames.findIndex((f) => f["id"] === id),
      "notification before the response",
    );
  },
);

test("CMD-02: a command that returns a string yields empty notifications and context", async () => {
  const result = resultOf(await host.request("command/execute", { name: "plain", arguments: [], context: CONTEXT }));
  assert.deepEqual(result, { text: "plain text", notifications: [], context: [] });
});

test("CMD-01: an unknown command is answered with -32602 naming it", async () => {
  const error = errorOf(await host.request("command/execute", { name: "nope", arguments: [], context: CONTEXT }));
  assert.equal(error.code, -32602);
  assert.match(error.message, /nope/);
});

test("HOOK-05: every hook result is {disposition, context, notifications}; deny carries its reason", async () => {
  const cont = resultOf(await runHook("before_prompt", { prompt: "hello" }));
  assert.deepEqual(cont, {
    disposition: { action: "continue" },
    context: [{ label: "prompt-note", content: "saw 5 chars", placement: "prompt_suffix" }],
    notifications: [],
  });
  accepted(validateHookResult(cont, "before_prompt"));

  const deny = resultOf(await runHook("before_prompt", { prompt: "please #deny" }));
  assert.deepEqual(deny, {
    disposition: { action: "deny", reason: "the prompt asked to be denied" },
    context: [],
    notifications: [],
  });
  accepted(validateHookResult(deny, "before_prompt"));

  const after = resultOf(await runHook("after_response", { response: "done" }));
  assert.deepEqual(
    after,
    { disposition: { action: "continue" }, context: [], notifications: [] },
    "a handler returning undefined continues",
  );
  accepted(validateHookResult(after, "after_response"));

  const blocked = resultOf(await runHook("before_tool_call", { name: "fail", arguments: {} }));
  assert.deepEqual(blocked, {
    disposition: { action: "deny", reason: "fail is blocked" },
    context: [],
    notifications: [],
  });
  accepted(validateHookResult(blocked, "before_tool_call"));

  const observed = resultOf(
    await runHook("after_tool_call", { name: "echo", arguments: {}, output: "x", is_error: true }),
  );
  assert.deepEqual(observed, {
    disposition: { action: "continue" },
    context: [],
    notifications: [{ level: "warning", title: "Tool ran", message: "echo" }],
  });
  accepted(validateHookResult(observed, "after_tool_call"));
});

test(
  "CTX-01/CTX-02: context/collect answers an array of {label, content, placement} (default prompt_suffix) " +
    "and receives the prompt or null",
  async () => {
    const withPrompt = resultOf(await host.request("context/collect", { prompt: "fix the bug", context: CONTEXT }));
    assert.deepEqual(withPrompt, [
      { label: "fixture", content: 'prompt was "fix the bug"', placement: "system_prefix" },
      { label: "default-placement", content: "no placement given", placement: "prompt_suffix" },
    ]);
    accepted(validateContextContributions(withPrompt));
    const nullPrompt = resultOf(await host.request("context/collect", { prompt: null, context: CONTEXT })) as {
      content: string;
    }[];
    assert.equal(nullPrompt[0]?.content, "prompt was null");
  },
);

test("STAT-02: status/collect answers {surface, text, style_role, priority} or null", async () => {
  const status = resultOf(await host.request("status/collect", { surface: "status", context: CONTEXT }));
  assert.deepEqual(status, {
    surface: "status",
    text: "status text",
    style_role: "extension.fixture.status",
    priority: 3,
  });
  accepted(validateStatusResult(status, "status"));
  const header = resultOf(await host.request("status/collect", { surface: "header", context: CONTEXT }));
  assert.deepEqual(header, { surface: "header", text: "header text", style_role: null, priority: 0 });
  accepted(validateStatusResult(header, "header"));
  const footer = resultOf(await host.request("status/collect", { surface: "footer", context: CONTEXT }));
  assert.equal(footer, null);
  assert.equal(accepted(validateStatusResult(footer, "footer")), null);
});

test(
  "REND-01: tool/render answers {segments:[{text, style_role}]} and receives {name, arguments, output, " + "is_error}",
  async () => {
    const render = (name: string, isError: boolean) =>
      host.request("tool/render", {
        name,
        arguments: { a: 1 },
        output: "the output",
        is_error: isError,
        context: CONTEXT,
      });
    const segments = resultOf(await render("echo", true));
    assert.deepEqual(segments, {
      segments: [
        { text: 'echo {"a":1} · failed', style_role: "extension.fixture.head" },
        { text: "the output", style_role: null },
      ],
    });
    accepted(validateRenderResult(segments));
    const fromString = resultOf(await render("fail", false));
    assert.deepEqual(fromString, { segments: [{ text: "fail rendered: the output", style_role: null }] });
    accepted(validateRenderResult(fromString));
    assert.equal(errorOf(await render("stats", false)).code, -32602, "no renderer registered for that tool");
  },
);
