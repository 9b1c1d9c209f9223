// How a candidate says it does not support a scenario, so the table shows "-" instead of a failure:
// - the candidate module exports `unsupported = ["<scenario name>", ...]`;
// - or it lacks a module export the scenario lists in `requires` (e.g. `importModules`);
// - or its connection lacks a method the scenario needs: the scenario calls `needs(conn, "pids")`,
//   which closes the connection and throws Unsupported; the worker reports it as unsupported.
export class Unsupported extends Error {}

export function unsupportedReason(candidate, scenario) {
  if (candidate.unsupported?.includes(scenario.name)) return `${candidate.name} declares ${scenario.name} unsupported`;
  const missing = (scenario.requires ?? []).filter((k) => candidate[k] === undefined);
  return missing.length ? `${candidate.name} does not export ${missing.join(", ")}` : null;
}

/** Throws Unsupported when the connection lacks a method the scenario needs (the caller closes it). */
export function needs(conn, ...methods) {
  const missing = methods.filter((m) => typeof conn[m] !== "function");
  if (missing.length) throw new Unsupported(`connection has no ${missing.join(", ")}`);
}

/** A steady-state scenario's run() on its own connection: connect, measure, close. */
export async function onOwnConnection(candidate, ctx, measure) {
  const conn = await candidate.connect(ctx);
  try {
    return await measure(conn);
  } finally {
    await conn.close();
  }
}
