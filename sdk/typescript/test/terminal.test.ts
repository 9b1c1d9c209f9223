/**
 * ctx.terminal through a real child process (W 2.24): the acquire and release requests carry the
 * running request as parent, the grant's `lost` signal and the grant-lost handlers fire on
 * terminal/grant-lost, and without the feature nothing is sent.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateTerminalParams } from "@octet/protocol";
import { CONTEXT, WireHost, killAll, offer, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

const isMethod =
  (method: string) =>
  (f: Frame): boolean =>
    f["method"] === method;
const textOf = (frame: Frame): string => (resultOf(frame) as { text: string }).text;

async function start(features: readonly string[]): Promise<WireHost> {
  const host = new WireHost("terminal");
  const init = resultOf(await host.initialize("0.4", { protocol: offer("0.4", features) })) as {
    protocol: { features: string[] };
  };
  assert.equal(init.protocol.features.includes("terminal_handoff"), features.includes("terminal_handoff"));
  return host;
}

const run = (host: WireHost, name: string): number =>
  host.sendRequest("command/execute", { name, arguments: [], context: CONTEXT });

test("TERM-01, TERM-02: acquire and release carry the running command as parent; the grant is returned", async () => {
  const host = await start(["terminal_handoff"]);
  const id = run(host, "borrow");
  const acquire = await host.waitForFrame(isMethod("terminal/acquire"));
  assert.deepEqual(acquire["params"], { parent_request_id: id });
  assert.ok(validateTerminalParams(acquire["params"]).ok);
  host.respond(acquire["id"], { grant_id: "tty-1", columns: 120, rows: 40 });
  const release = await host.waitForFrame(isMethod("terminal/release"));
  assert.deepEqual(release["params"], { parent_request_id: id });
  host.respond(release["id"], {});
  assert.equal(textOf(await host.response(id)), "borrowed tty-1; lost=false");
  const viaExt = run(host, "ext");
  const ofExt =
    (method: string) =>
    (f: Frame): boolean =>
      isMethod(method)(f) && (f["params"] as { parent_request_id: number }).parent_request_id === viaExt;
  host.respond((await host.waitForFrame(ofExt("terminal/acquire")))["id"], { grant_id: "tty-2", columns: 1, rows: 1 });
  host.respond((await host.waitForFrame(ofExt("terminal/release")))["id"], {});
  assert.equal(textOf(await host.response(viaExt)), "ext tty-2");
});

test("TERM-07, TERM-10: terminal/grant-lost aborts the grant's signal and runs the handlers", async () => {
  const host = await start(["terminal_handoff"]);
  const id = run(host, "hold");
  const acquire = await host.waitForFrame(isMethod("terminal/acquire"));
  host.respond(acquire["id"], { grant_id: "tty-7", columns: 80, rows: 24 });
  // A loss naming another grant, and a malformed one, leave this grant alone.
  host.notify("terminal/grant-lost", { grant_id: "tty-other", reason: "not yours" });
  host.notify("terminal/grant-lost", { grant_id: "tty-7", reason: "r".repeat(1025) });
  await host.waitForStderr("grant-lost handler: tty-other not yours");
  host.notify("terminal/grant-lost", { grant_id: "tty-7", reason: "call_ended: the call settled" });
  assert.equal(
    textOf(await host.response(id)),
    "held tty-7 80x24; lost: the terminal grant was lost: call_ended: the call settled",
  );
  await host.waitForStderr("grant-lost handler: tty-7 call_ended: the call settled");
  assert.doesNotMatch(host.stderr, /r{1025}/, "the over-long reason was never delivered");
});

test("TERM-09: without terminal_handoff negotiated, acquire fails locally and nothing is sent", async () => {
  const host = await start([]);
  assert.equal(textOf(await host.response(run(host, "available"))), "available=false");
  const id = run(host, "borrow");
  const answer = await host.response(id);
  assert.match(JSON.stringify(answer), /needs the terminal_handoff feature, which the host did not offer/);
  assert.ok(!host.frames.some(isMethod("terminal/acquire")), "no terminal/acquire on the wire");
});
