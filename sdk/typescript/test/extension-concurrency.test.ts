/**
 * Concurrency, cancellation and confirmation through a real child process. Handlers that must
 * stay open are held by a confirmation/request the test answers, so "how many run at once" and
 * "the SDK waits for the answer" are decided by the test's own frames, never by timers.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateConfirmationParams } from "@octet/protocol";
import { CONTEXT, WireHost, errorOf, killAll, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

const isConfirmation = (f: Frame): boolean => f["method"] === "confirmation/request";
const toolCall = (host: WireHost, name: string, args: unknown = {}): number =>
  host.sendRequest("tool/call", { name, arguments: args, context: CONTEXT });
const textOf = (frame: Frame): string => (resultOf(frame) as { content: unknown }).content as string;
/** API 0.2 content parts reduced to their text. */
const partsText = (frame: Frame): string =>
  (resultOf(frame) as { content: { text: string }[] }).content.map((p) => p.text).join("\n");

/**
 * Runs `count` gate calls and releases them one confirmation at a time; returns the largest number
 * of handlers the fixture saw running at once, after checking `limit` slots filled up first.
 */
async function runGates(host: WireHost, count: number, limit: number, text: (f: Frame) => string): Promise<number> {
  const ids = Array.from({ length: count }, (_, n) => toolCall(host, "gate", { n }));
  const answered = new Set<unknown>();
  const open = (): Frame[] => host.frames.filter((f) => isConfirmation(f) && !answered.has(f["id"]));
  await host.waitForFrame(() => open().length >= limit, undefined, `${limit} gates running at once`);
  for (let i = 0; i < count; i++) {
    const next = await host.waitForFrame(
      (f) => isConfirmation(f) && !answered.has(f["id"]),
      undefined,
      `gate confirmation ${i}`,
    );
    answered.add(next["id"]);
    host.respond(next["id"], { confirmed: true });
  }
  const reports = await Promise.all(
    ids.map(async (id) => JSON.parse(text(await host.response(id))) as { atEntry: number; maxRunning: number }),
  );
  for (const r of reports) assert.ok(r.atEntry <= limit, `a handler started with ${r.atEntry} running`);
  return Math.max(...reports.map((r) => r.maxRunning));
}

test("PY-04/PY-58: maxConcurrentRequests: 2 lets at most 2 handlers run at once, and both slots are used", async () => {
  const host = new WireHost("full", ["0.1", "2"]);
  resultOf(await host.initialize("0.1"));
  assert.equal(await runGates(host, 6, 2, textOf), 2);
});

test("INIT-22/PY-04: on API 0.2 the limit clamped to the host's offer is the one enforced", async () => {
  const host = new WireHost("full", ["0.2", "4"]);
  const init = resultOf(await host.initialize("0.2", { maxConcurrent: 1 })) as { protocol: { limits: unknown } };
  assert.deepEqual(init.protocol.limits, { max_concurrent_requests: 1 });
  assert.equal(await runGates(host, 3, 1, partsText), 1);
});

test("ERR-04: on API 0.2 $/cancelRequest makes a handler waiting on ctx.signal answer -32800", async () => {
  const host = new WireHost("full", ["0.2"]);
  resultOf(await host.initialize("0.2"));
  const id = toolCall(host, "wait_cancel", { tag: "c1" });
  await host.waitForStderr("wait_cancel started c1");
  host.notify("$/cancelRequest", { id, reason: "user" });
  const error = errorOf(await host.response(id));
  assert.equal(error.code, -32800);
  assert.match(error.message, new RegExp(String(id)));
  // Cancellation settles one request; the extension keeps serving.
  assert.equal(
    partsText(await host.request("tool/call", { name: "echo", arguments: { text: "after" }, context: CONTEXT })),
    '{"text":"after"}',
  );
});

test(
  "ERR-04: a request cancelled while it waits for a concurrency slot is answered -32800 and its handler " +
    "never runs",
  async () => {
    const host = new WireHost("full", ["0.2", "1"]);
    resultOf(await host.initialize("0.2"));
    const gate = toolCall(host, "gate", { n: 0 });
    const confirmation = await host.waitForFrame(isConfirmation);
    const queued = toolCall(host, "echo", { text: "never" });
    host.notify("$/cancelRequest", { id: queued, reason: "user" });
    // Frames are read in order: the cancel is seen before the answer that frees the slot.
    host.respond(confirmation["id"], { confirmed: true });
    assert.equal(errorOf(await host.response(queued)).code, -32800);
    resultOf(await host.response(gate));
    const stats = JSON.parse(
      partsText(await host.request("tool/call", { name: "stats", arguments: {}, context: CONTEXT })),
    ) as Record<string, number>;
    assert.equal(stats["echo"], undefined, "the cancelled echo handler never ran");
  },
);

test(
  "issue 13.12: a request cancelled while it waits for a slot is answered -32800 at once, while the slot's " +
    "holder still runs",
  async () => {
    const host = new WireHost("full", ["0.2", "1"]);
    resultOf(await host.initialize("0.2"));
    const gate = toolCall(host, "gate", { n: 0 });
    const confirmation = await host.waitForFrame(isConfirmation);
    const queued = toolCall(host, "echo", { text: "never" });
    host.notify("$/cancelRequest", { id: queued, reason: "user" });
    // The gate's confirmation is still unanswered: the slot is held while the answer comes.
    assert.equal(errorOf(await host.response(queued)).code, -32800);
    host.respond(confirmation["id"], { confirmed: true });
    resultOf(await host.response(gate));
    const stats = JSON.parse(
      partsText(await host.request("tool/call", { name: "stats", arguments: {}, context: CONTEXT })),
    ) as Record<string, number>;
    assert.equal(stats["echo"], undefined, "the cancelled echo handler never ran");
    // The permit the cancelled request never took is still there: two echoes run one after the other.
    assert.equal(
      partsText(await host.request("tool/call", { name: "echo", arguments: { text: "after" }, context: CONTEXT })),
      '{"text":"after"}',
    );
  },
);

test("CANCEL-01: on API 0.1 $/cancelRequest is ignored and the handler completes normally", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  const id = toolCall(host, "confirm", { prompt: "Go on?" });
  const confirmation = await host.waitForFrame(isConfirmation);
  host.notify("$/cancelRequest", { id, reason: "user" });
  // A round trip after the notification proves the child has read it before we answer.
  resultOf(await host.request("status/collect", { surface: "status", context: CONTEXT }));
  host.respond(confirmation["id"], { confirmed: true });
  assert.equal(textOf(await host.response(id)), "confirmed=true aborted=false");
});

test(
  "CONF-01/CONF-03: on API 0.1 the SDK sends confirmation/request without parent_request_id and waits for " +
    "the answer",
  async () => {
    const host = new WireHost("full", ["0.1"]);
    resultOf(await host.initialize("0.1"));
    const id = toolCall(host, "confirm", { prompt: "Delete the branch?", detail: "3 commits", destructive: true });
    const request = await host.waitForFrame(isConfirmation);
    const reqId = request["id"];
    assert.ok(typeof reqId === "number" || typeof reqId === "string", "a reverse request carries an id");
    assert.deepEqual(request["params"], {
      prompt: "Delete the branch?",
      destructive: true,
      default: false,
      detail: "3 commits",
    });
    assert.ok(validateConfirmationParams(request["params"], "0.1").ok);
    // A full round trip while the question is open: the tool has still not answered.
    resultOf(await host.request("status/collect", { surface: "status", context: CONTEXT }));
    assert.equal(
      host.frames.some((f) => f["id"] === id && !("method" in f)),
      false,
      "the tool did not finish before the answer",
    );
    host.respond(reqId, { confirmed: true });
    assert.equal(textOf(await host.response(id)), "confirmed=true aborted=false");
  },
);

test("CONF-01: on API 0.2 confirmation/request names the active tool call as parent_request_id", async () => {
  const host = new WireHost("full", ["0.2"]);
  resultOf(await host.initialize("0.2"));
  const id = toolCall(host, "confirm", { prompt: "Push?" });
  const request = await host.waitForFrame(isConfirmation);
  assert.deepEqual(request["params"], { prompt: "Push?", destructive: false, default: false, parent_request_id: id });
  const checked = validateConfirmationParams(request["params"], "0.2");
  assert.ok(checked.ok && checked.value.parent_request_id === id);
  host.respond(request["id"], { confirmed: false });
  assert.equal(partsText(await host.response(id)), "confirmed=false aborted=false");
});

test("CONF-04: an answer other than {confirmed: true} reads as a denial", async () => {
  const host = new WireHost("full", ["0.1"]);
  resultOf(await host.initialize("0.1"));
  for (const answer of [{ confirmed: "yes" }, {}, null, { confirmed: 1 }]) {
    const id = toolCall(host, "confirm", { prompt: `answer ${JSON.stringify(answer)}` });
    const request = await host.waitForFrame(
      (f) => isConfirmation(f) && (f["params"] as { prompt: string }).prompt === `answer ${JSON.stringify(answer)}`,
    );
    host.respond(request["id"], answer);
    assert.equal(textOf(await host.response(id)), "confirmed=false aborted=false", `answer ${JSON.stringify(answer)}`);
  }
});

test(
  "ERR-04/FRAME-14: cancelling a tool waiting on a confirmation answers -32800 once the host cancels " + "the child",
  async () => {
    const host = new WireHost("full", ["0.2"]);
    resultOf(await host.initialize("0.2"));
    const id = toolCall(host, "confirm", { prompt: "Wait for me?" });
    const request = await host.waitForFrame(isConfirmation);
    // As a host does on cancel: the $/cancelRequest, then the unresolved child answered -32800.
    host.notify("$/cancelRequest", { id, reason: "user" });
    host.respondError(request["id"], -32800, "request_cancelled: parent request was cancelled");
    assert.equal(errorOf(await host.response(id)).code, -32800);
  },
);

test(
  "ERR-04, CONF-03: cancelling a tool call that waits on confirm() settles it with -32800 without " + "an answer",
  async () => {
    const host = new WireHost("full", ["0.2"]);
    resultOf(await host.initialize("0.2"));
    const id = toolCall(host, "confirm", { prompt: "Wait forever?" });
    await host.waitForFrame(isConfirmation);
    host.notify("$/cancelRequest", { id, reason: "user" });
    assert.equal(
      errorOf(await host.response(id)).code,
      -32800,
      "the handler did not wait for an answer nobody will give",
    );
  },
);

test("CONF-04: a host refusal of confirmation/request reads as a denial", async () => {
  const host = new WireHost("full", ["0.2"]);
  resultOf(await host.initialize("0.2"));
  const id = toolCall(host, "confirm", { prompt: "Anyone there?" });
  const confirmation = await host.waitForFrame(isConfirmation);
  host.respondError(confirmation["id"], -32002, "no interactive frontend");
  assert.equal(partsText(await host.response(id)), "confirmed=false aborted=false");
});
