// Cold start: from spawning the extension (handshake included) to the first tool result, in a
// fresh process whose candidate library is already imported (import time is its own scenario).
import { SMALL_ARGS } from "../lib/payload.mjs";
import { nowNs } from "../lib/stats.mjs";

export const name = "cold-start";
export const title = () => "cold start (spawn + handshake + first result, fresh process)";
export const metrics = [{ key: "first_result_ms", label: "first result", unit: "ms", better: "lower" }];
export const params = { full: {}, quick: {} };

export async function run(candidate, _p, ctx) {
  const t0 = nowNs();
  const conn = await candidate.connect(ctx);
  try {
    await conn.call(SMALL_ARGS);
    return { first_result_ms: Number(nowNs() - t0) / 1e6 };
  } finally {
    await conn.close();
  }
}
