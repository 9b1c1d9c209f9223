/**
 * input/request and the parent rules of operation-scoped requests through a real child process:
 * the params and parent_request_id, the answers that read as null, secret answers kept off
 * stderr, local refusals outside an active tool/call or command/execute; and status/contribution.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateInputParams, validateStatusContribution } from "@octet/protocol";
import { CONTEXT, WireHost, errorOf, killAll, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

const isInput = (f: Frame): boolean => f["method"] === "input/request";
const textOf = (frame: Frame): string => {
  const content = (resultOf(frame) as { content: unknown }).content;
  return typeof content === "string" ? content : (content as { text: string }[]).map((p) => p.text).join("\n");
};

async function start(api: "0.1" | "0.2" | "0.4"): Promise<WireHost> {
  const host = new WireHost("negotiated", [api]);
  resultOf(await host.initialize(api));
  return host;
}

const ask = (host: WireHost, args: Record<string, unknown>): number =>
  host.sendRequest("tool/call", { name: "ask", arguments: args, context: CONTEXT });

test(
  "INPUT-01/REV-07: input/request carries {parent_request_id, prompt, secret} naming the active " + "tool call",
  async () => {
    const host = await start("0.2");
    const id = ask(host, { prompt: "Branch name?" });
    const request = await host.waitForFrame(isInput);
    assert.deepEqual(request["params"], { parent_request_id: id, prompt: "Branch name?", secret: false });
    assert.ok(validateInputParams(request["params"]).ok, "the host's validator accepts the params");
    assert.ok(typeof request["id"] === "number", "a reverse request with its own id");
    host.respond(request["id"], { value: "main" });
    assert.equal(textOf(await host.response(id)), 'value="main"');
  },
);

test("INPUT-01: a command/execute handler is a valid parent too", async () => {
  const host = await start("0.4");
  const id = host.sendRequest("command/execute", { name: "ask", arguments: ["Why", "now?"], context: CONTEXT });
  const request = await host.waitForFrame(isInput);
  assert.deepEqual(request["params"], { parent_request_id: id, prompt: "Why now?", secret: false });
  host.respond(request["id"], { value: "because" });
  assert.equal((resultOf(await host.response(id)) as { text: string }).text, 'value="because"');
});

test("INPUT-02/INPUT-06: {value: null}, a refusal and a malformed answer all read as null", async () => {
  const host = await start("0.2");
  const answers: [string, (reqId: unknown) => void][] = [
    ["null", (r) => host.respond(r, { value: null })],
    ["unavailable", (r) => host.respondError(r, -32002, "no interactive frontend")],
    ["cancelled", (r) => host.respondError(r, -32800, "request_cancelled: the frontend cancelled")],
    ["malformed", (r) => host.respond(r, { value: 42 })],
  ];
  for (const [label, answer] of answers) {
    const id = ask(host, { prompt: `case ${label}` });
    const request = await host.waitForFrame(
      (f) => isInput(f) && (f["params"] as { prompt: string }).prompt === `case ${label}`,
    );
    answer(request["id"]);
    assert.equal(textOf(await host.response(id)), "value=null", label);
  }
});

test("INPUT-03: a -32602 refusal is the request's own fault: input() throws with the host's message", async () => {
  const host = await start("0.2");
  const id = ask(host, { prompt: "Anything?" });
  const request = await host.waitForFrame(isInput);
  host.respondError(request["id"], -32602, "prompt: over the 16384-byte limit");
  const result = resultOf(await host.response(id)) as { is_error: boolean };
  assert.equal(result.is_error, true);
  assert.match(textOf(await host.response(id)), /the host refused input\/request: prompt: over the 16384-byte limit/);
});

test("INPUT-03: a blank prompt is refused locally and nothing is sent", async () => {
  const host = await start("0.2");
  const id = ask(host, { prompt: "  \n\t" });
  assert.match(textOf(await host.response(id)), /input\(\) needs a prompt with non-whitespace text/);
  assert.equal(host.frames.some(isInput), false);
});

test(
  "INPUT-05: a secret answer is returned to the handler and never written to stderr, not even when it " + "comes late",
  async () => {
    const host = await start("0.2");
    const secret = "hunter2-correct-horse";
    const id = ask(host, { prompt: "Password:", secret: true });
    const request = await host.waitForFrame(isInput);
    assert.deepEqual(request["params"], { parent_request_id: id, prompt: "Password:", secret: true });
    host.respond(request["id"], { value: secret });
    assert.equal(textOf(await host.response(id)), `secret answer: ${secret.length} chars`);
    // INPUT-07: the parent is cancelled while the question is open; the answer then arrives late
    // and the SDK diagnoses the late response on stderr, by id only.
    const late = ask(host, { prompt: "Password again:", secret: true });
    const second = await host.waitForFrame(
      (f) => isInput(f) && (f["params"] as { prompt: string }).prompt === "Password again:",
    );
    host.notify("$/cancelRequest", { id: late, reason: "user" });
    assert.equal(errorOf(await host.response(late)).code, -32800);
    host.respond(second["id"], { value: secret });
    await host.waitForStderr(`"late_response","id":${String(second["id"])}`);
    assert.equal(host.stderr.includes(secret), false, "the secret reached stderr");
    assert.equal(
      host.frames.some((f) => JSON.stringify(f).includes(secret)),
      false,
      "the secret reached stdout",
    );
  },
);

test("REV-07: input and confirm from a hook handler are refused locally and nothing is sent", async () => {
  const host = await start("0.2");
  const result = resultOf(
    await host.request("hook/run", { hook: "before_prompt", payload: { prompt: "hi" }, context: CONTEXT }),
  ) as { context: { content: string }[] };
  assert.deepEqual(
    result.context.map((c) => c.content),
    [
      "input refused: input() is available only in a tool/call or command/execute handler on API 0.2+, not in hook/run",
      "confirm refused: confirm() is available only in a tool/call or command/execute handler on API 0.2+, " +
        "not in hook/run",
    ],
  );
  assert.equal(
    host.frames.some((f) => f["method"] === "input/request" || f["method"] === "confirmation/request"),
    false,
  );
});

test("REV-07: input through the ctx of a request already answered is refused locally", async () => {
  const host = await start("0.2");
  const first = host.sendRequest("tool/call", { name: "progress", arguments: {}, context: CONTEXT });
  resultOf(await host.response(first));
  const late = textOf(await host.request("tool/call", { name: "late", arguments: {}, context: CONTEXT }));
  assert.match(
    late,
    new RegExp(
      `input refused: input\\(\\) was called after request ${first} was answered; it needs an active parent request`,
    ),
  );
  assert.equal(host.frames.some(isInput), false);
});

test("INPUT-01: input() on API 0.1 is refused locally (input/request is API 0.2+)", async () => {
  const host = await start("0.1");
  assert.match(
    textOf(await host.request("tool/call", { name: "ask", arguments: {}, context: CONTEXT })),
    /Error: input\(\) needs API 0\.2 or later/,
  );
  assert.equal(host.frames.some(isInput), false);
});

test(
  "STAT-03: contributeStatus sends a status/contribution notification {surface, text, style_role, " + "priority}",
  async () => {
    const host = await start("0.2");
    assert.equal(
      (
        resultOf(
          await host.request("command/execute", { name: "push_status", arguments: ["header"], context: CONTEXT }),
        ) as { text: string }
      ).text,
      "pushed",
    );
    const frame = await host.waitForFrame((f) => f["method"] === "status/contribution");
    assert.deepEqual(frame, {
      jsonrpc: "2.0",
      method: "status/contribution",
      params: { surface: "header", text: "watching src/", style_role: "extension.fixture.watch", priority: 10 },
    });
    assert.ok(validateStatusContribution(frame["params"]).ok);
    // An unknown surface is refused locally, naming the problem; nothing is sent.
    const refused = (
      resultOf(
        await host.request("command/execute", { name: "push_status", arguments: ["sidebar"], context: CONTEXT }),
      ) as { text: string }
    ).text;
    assert.match(refused, /^refused: contributeStatus\(\): surface: .*sidebar/);
    assert.equal(host.frames.filter((f) => f["method"] === "status/contribution").length, 1);
  },
);
