/**
 * Cancellation through a real child process: ctx.throwIfCancelled() and the ambient
 * ext.cancellation (found through AsyncLocalStorage) answer -32800 once the host cancelled the
 * request; one request's cancellation is not another's; a result that completes first is sent.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { CONTEXT, WireHost, errorOf, killAll, resultOf } from "./harness.js";

afterEach(killAll);

async function start(api: "0.1" | "0.2" | "0.4"): Promise<WireHost> {
  const host = new WireHost("negotiated", [api]);
  resultOf(await host.initialize(api));
  return host;
}

const cancellable = (host: WireHost, tag: string, mode: "ctx" | "ambient" | "ignore"): number =>
  host.sendRequest("tool/call", { name: "cancellable", arguments: { tag, mode }, context: CONTEXT });

test("CANCEL-04/CANCEL-13: ctx.throwIfCancelled() after $/cancelRequest makes the SDK answer -32800", async () => {
  const host = await start("0.2");
  const id = cancellable(host, "c1", "ctx");
  await host.waitForStderr("cancellable started c1 cancelled=false");
  host.notify("$/cancelRequest", { id, reason: "user" });
  const error = errorOf(await host.response(id));
  assert.equal(error.code, -32800);
  assert.match(error.message, new RegExp(`request ${id} was cancelled`));
});

test(
  "CANCEL-13: ext.cancellation.throwIfCancelled() finds the running request through AsyncLocalStorage and " +
    "answers -32800",
  async () => {
    const host = await start("0.4");
    const id = cancellable(host, "a1", "ambient");
    // Inside the handler, before the cancel: the ambient token sees its request, not cancelled.
    await host.waitForStderr("cancellable started a1 cancelled=false");
    host.notify("$/cancelRequest", { id, reason: "user" });
    assert.equal(errorOf(await host.response(id)).code, -32800);
    // After awaits in the handler, the ambient token still belongs to the cancelled request.
    assert.match(host.stderr, /cancellable a1 sees cancelled=true/);
  },
);

test("CANCEL-13: the ambient token is per request: cancelling one leaves the other running", async () => {
  const host = await start("0.2");
  const first = cancellable(host, "p1", "ambient");
  const second = cancellable(host, "p2", "ambient");
  await host.waitForStderr("cancellable started p1");
  await host.waitForStderr("cancellable started p2");
  host.notify("$/cancelRequest", { id: first, reason: "user" });
  assert.equal(errorOf(await host.response(first)).code, -32800);
  // A round trip after the first answer: the second is still running, uncancelled.
  resultOf(await host.request("tool/call", { name: "count", arguments: {}, context: CONTEXT }));
  assert.equal(
    host.frames.some((f) => f["id"] === second && !("method" in f)),
    false,
    "the second request is still open",
  );
  assert.doesNotMatch(host.stderr, /cancellable p2 sees/);
  host.notify("$/cancelRequest", { id: second, reason: "timeout" });
  assert.equal(errorOf(await host.response(second)).code, -32800);
});

test("CANCEL-04: a handler that completes its work despite the cancel has its normal result sent", async () => {
  const host = await start("0.2");
  const id = cancellable(host, "i1", "ignore");
  await host.waitForStderr("cancellable started i1");
  host.notify("$/cancelRequest", { id, reason: "user" });
  const result = resultOf(await host.response(id)) as { content: { text: string }[]; is_error: boolean };
  assert.deepEqual(result, { content: [{ type: "text", text: "finished despite the cancel" }], is_error: false });
});

test(
  "CANCEL-13: outside any request ext.cancellation is not cancelled and throwIfCancelled() " + "does nothing",
  async () => {
    const host = await start("0.2");
    await host.waitForStderr("ambient cancellation outside a request accepted");
  },
);

test("FRAME-14: $/cancelRequest for an id that is not an in-flight host request changes nothing", async () => {
  const host = await start("0.2");
  const id = cancellable(host, "f1", "ctx");
  await host.waitForStderr("cancellable started f1");
  for (const other of [id + 1000, String(id), null]) host.notify("$/cancelRequest", { id: other, reason: "user" });
  resultOf(await host.request("tool/call", { name: "count", arguments: {}, context: CONTEXT }));
  assert.equal(
    host.frames.some((f) => f["id"] === id && !("method" in f)),
    false,
    "the request was not cancelled by another id",
  );
  host.notify("$/cancelRequest", { id, reason: "user" });
  assert.equal(errorOf(await host.response(id)).code, -32800);
});
