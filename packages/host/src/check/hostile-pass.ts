/**
 * The hostile passes of `octet check`: what a host under stress, or a broken one, may send, and
 * what the extension must still do: answer, keep serving, write nothing but frames, and exit on
 * shutdown. Bad frames (invalid JSON, a wrong jsonrpc version, a frame over 1 MiB), a storm of
 * $/cancelRequest for requests in flight and for ids never sent, a shutdown while requests run,
 * and stdin EOF.
 */
import { MAX_FRAME_BYTES, bounds, isNegotiated } from "@octet/protocol";
import type { CheckLaunch } from "./launch.js";
import { brief, type Recorder } from "./report.js";
import {
  ANSWER_MS,
  UNKNOWN_METHOD,
  callContext,
  expectError,
  shutdown,
  stdoutChecks,
  withStderr,
} from "./wire-pass.js";
import type { Frame, WireProbe } from "./wire-probe.js";

/** In-flight requests the storm cancels, and cancels of ids that were never sent. */
const STORM_REQUESTS = 24;
const STORM_UNKNOWN = 64;
/** Requests in flight when shutdown is sent. */
const LOAD_REQUESTS = 12;

/** Bad frames, the cancel storm, and shutdown under load, on one extension. */
export async function hostilePass(l: CheckLaunch, r: Recorder, generation: number, tools: string[]): Promise<void> {
  const probe = l.probe;
  await parseError(probe, r);
  await wrongVersion(probe, r);
  const busy = (i: number): [string, unknown] =>
    tools.length > 0 && i % 2 === 0
      ? [
          "tool/call",
          { name: tools[i % tools.length], arguments: "not an object", context: callContext(l, generation) },
        ]
      : [UNKNOWN_METHOD, { n: i }];
  if (isNegotiated(l.manifest.api_version)) await cancelStorm(probe, r, busy);
  else r.skip("CANCEL-04", "a cancel storm", "API 0.1 has no request cancellation (CANCEL-01)");
  for (let i = 0; i < LOAD_REQUESTS; i++) probe.request(...busy(i));
  await shutdown(probe, r, ` with ${LOAD_REQUESTS} requests in flight`);
  stdoutChecks(probe, r, " (hostile pass)");
}

/** An oversize frame, on a fresh extension: it may legitimately end it (FRAME-10). */
export async function edgePass(l: CheckLaunch, r: Recorder): Promise<void> {
  const probe = l.probe;
  const title = `a frame over ${MAX_FRAME_BYTES} bytes is refused without a crash: an error answer, or an exit`;
  const pad = "x".repeat(MAX_FRAME_BYTES + 1024);
  probe.expectAnswerTo("octet-check-oversize");
  probe.sendRaw(
    `{"jsonrpc":"2.0","id":"octet-check-oversize","method":"${UNKNOWN_METHOD}","params":{"pad":"${pad}"}}\n`,
  );
  const barrier = probe.request(UNKNOWN_METHOD, { after: "oversize" });
  const expected = "no result for it, and the next request answered, or an exit (FRAME-10: terminal)";
  try {
    const outcome = await probe.waitFor(
      () => {
        const result = probe.queue.find((f) => f["id"] === "octet-check-oversize" && "result" in f);
        if (result) return `a result for the oversize request: ${brief(result)}`;
        if (probe.queue.some((f) => f["id"] === barrier)) return "ok";
        return probe.exit ? "ok" : undefined;
      },
      ANSWER_MS,
      "an answer to the request after the oversize frame, or an exit",
      true,
    );
    const seen = probe.exit ? `exited (${exitText(probe)})` : "refused it and kept serving";
    r.check("FRAME-09", title, expected, outcome === "ok" ? null : outcome, seen);
  } catch (err) {
    r.fail("FRAME-09", title, expected, withStderr(probe, (err as Error).message));
  }
  stdoutChecks(probe, r, " (oversize pass)");
}

/** FRAME-12: stdin EOF ends the extension promptly, even with a request in flight. */
export async function eofPass(l: CheckLaunch, r: Recorder): Promise<void> {
  const probe = l.probe;
  const stage = bounds.SHUTDOWN_STAGE_TIMEOUT_MS;
  const title = "stdin EOF makes the extension exit, a request in flight";
  probe.request(UNKNOWN_METHOD, { before: "eof" });
  probe.closeStdin();
  try {
    await probe.exited(stage);
    r.pass("FRAME-12", title, `an exit within ${stage} ms`, exitText(probe));
  } catch (err) {
    r.fail("FRAME-12", title, `an exit within ${stage} ms`, withStderr(probe, (err as Error).message));
  }
}

async function parseError(probe: WireProbe, r: Recorder): Promise<void> {
  const title = "an unparseable line is answered -32700 with id null, and the extension keeps serving";
  probe.sendRaw("{this is not json\n");
  try {
    const answer = await probe.response(null, ANSWER_MS);
    const code = (answer["error"] as { code?: unknown } | undefined)?.code;
    if (code !== -32700) r.fail("FRAME-10", title, "error -32700, id null", `error ${brief(answer["error"])}`);
    else await expectError(probe, r, "FRAME-10", title, UNKNOWN_METHOD, {}, -32601);
  } catch (err) {
    r.fail("FRAME-10", title, "error -32700, id null", withStderr(probe, (err as Error).message));
  }
}

/** A request in JSON-RPC 1.0 clothes: refused with an error (its id, or null), never run. */
async function wrongVersion(probe: WireProbe, r: Recorder): Promise<void> {
  const title = 'a frame with "jsonrpc":"1.0" is refused with an error, and the extension keeps serving';
  const id = "octet-check-jsonrpc-1.0";
  probe.expectAnswerTo(id);
  probe.sendRaw(`${JSON.stringify({ jsonrpc: "1.0", id, method: UNKNOWN_METHOD, params: {} })}\n`);
  const expected = "an error response (id or null), then the next request answered";
  try {
    const answer = await probe.waitFor(
      () => {
        const i = probe.queue.findIndex((f) => !("method" in f) && (f["id"] === id || f["id"] === null));
        return i < 0 ? undefined : (probe.queue.splice(i, 1)[0] as Frame);
      },
      ANSWER_MS,
      "an answer to the jsonrpc 1.0 frame",
    );
    if (!("error" in answer)) r.fail("FRAME-01", title, expected, `a result: ${brief(answer["result"])}`);
    else await expectError(probe, r, "FRAME-01", title, UNKNOWN_METHOD, {}, -32601);
  } catch (err) {
    r.fail("FRAME-01", title, expected, withStderr(probe, (err as Error).message));
  }
}

/**
 * CANCEL-04, FRAME-14: each request is cancelled right after it is sent, among cancels of ids
 * never sent; every request is still answered exactly once (its answer or -32800), nothing
 * answers an unknown id, and the extension keeps serving.
 */
async function cancelStorm(probe: WireProbe, r: Recorder, busy: (i: number) => [string, unknown]): Promise<void> {
  const title =
    `a cancel storm (${STORM_REQUESTS} requests cancelled in flight, ${STORM_UNKNOWN} unknown ids) ` +
    "leaves every request answered once and the extension serving";
  const ids: number[] = [];
  for (let i = 0; i < STORM_REQUESTS; i++) {
    const id = probe.request(...busy(i));
    ids.push(id);
    probe.notify("$/cancelRequest", { id, reason: "user" });
    for (let k = 0; k < STORM_UNKNOWN / STORM_REQUESTS + 1; k++)
      probe.notify("$/cancelRequest", {
        id: k % 2 === 0 ? 10_000_000 + i * 8 + k : `octet-check-${i}-${k}`,
        reason: "user",
      });
  }
  const expected = "an answer to each request (its error or -32800), then the next request answered";
  try {
    const answers = await Promise.all(ids.map((id) => probe.response(id, ANSWER_MS)));
    const codes = new Map<string, number>();
    for (const a of answers) {
      const key = "error" in a ? String((a["error"] as { code: number }).code) : "result";
      codes.set(key, (codes.get(key) ?? 0) + 1);
    }
    const seen = [...codes].map(([k, n]) => `${n}× ${k}`).join(", ");
    const ok = await expectError(probe, r, "CANCEL-04", `${title} (the request after it)`, UNKNOWN_METHOD, {}, -32601);
    if (ok) r.pass("CANCEL-04", title, expected, seen);
  } catch (err) {
    r.fail("CANCEL-04", title, expected, withStderr(probe, (err as Error).message));
  }
}

function exitText(probe: WireProbe): string {
  const exit = probe.exit;
  if (!exit) return "running";
  return exit.signal ? `killed by ${exit.signal}` : `code ${exit.code}`;
}
