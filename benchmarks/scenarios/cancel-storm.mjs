// Cancellation storm: `calls` calls of the `wait` tool (it runs until cancelled, checking for
// cancellation every 1 ms), all issued at once, each cancelled 1 ms after it was issued (octet: an
// AbortSignal to host.callTool; MCP: the request's AbortSignal; raw: a `$/cancelRequest` line).
// Reports the time from the first call until every caller settled, and until the extension holds no
// live handler (its `live` tool, polled until it answers 0, with a deadline). Every call must settle
// as cancelled: one that resolves means the cancellation was lost and fails the run.
import { needs, onOwnConnection } from "../lib/support.mjs";
import { nowNs } from "../lib/stats.mjs";

export const name = "cancel-storm";
export const title = (p) =>
  `cancellation storm (${p.calls} wait calls at once, each cancelled ${p.cancelAfterMs} ms after it was issued)`;
export const metrics = [
  { key: "settled_ms", label: "all callers settled", unit: "ms", better: "lower" },
  { key: "drained_ms", label: "no live handler", unit: "ms", better: "lower" },
];
export const params = {
  full: { calls: 200, cancelAfterMs: 1, deadlineMs: 20_000, maxWaitMs: 30_000 },
  quick: { calls: 200, cancelAfterMs: 1, deadlineMs: 20_000, maxWaitMs: 30_000 },
};

/** Runs on a connection the worker shares between the steady-state scenarios (lib/worker.mjs). */
export const steady = true;

export async function measure(conn, p) {
  needs(conn, "callTool"); // else the table shows "-" for this candidate
  if ((await conn.callTool("live", {})) !== "0") throw new Error("live handlers before the storm");
  let resolved = 0;
  const t0 = nowNs();
  const calls = [];
  for (let i = 0; i < p.calls; i++) {
    const ac = new AbortController();
    calls.push(
      conn.callTool("wait", { max_ms: p.maxWaitMs }, { signal: ac.signal }).then(
        () => resolved++,
        () => {},
      ),
    );
    setTimeout(() => ac.abort(new Error("cancelled by the storm")), p.cancelAfterMs);
  }
  await Promise.all(calls);
  const settled_ms = Number(nowNs() - t0) / 1e6;
  if (resolved > 0) throw new Error(`${resolved} of ${p.calls} wait calls completed instead of being cancelled`);
  const deadline = Date.now() + p.deadlineMs;
  let live;
  while ((live = await conn.callTool("live", {})) !== "0") {
    if (Date.now() > deadline)
      throw new Error(`extension still holds ${live} live handlers ${p.deadlineMs} ms after the storm`);
    await new Promise((r) => setTimeout(r, 1));
  }
  return { settled_ms, drained_ms: Number(nowNs() - t0) / 1e6 };
}

export const run = (candidate, p, ctx) => onOwnConnection(candidate, ctx, (conn) => measure(conn, p));
