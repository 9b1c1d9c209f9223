// One measurement in a fresh process: `node worker.mjs '<json spec>'` imports one candidate and one
// scenario, runs it, and prints the metrics as a single JSON line on stdout. The runner starts it
// under taskset; the candidate pins its own child with `taskset -c <childCpu>`. A scenario the
// candidate does not support (lib/support.mjs) prints `{"ok":true,"unsupported":"<why>"}`.
import { Unsupported, unsupportedReason } from "./support.mjs";

const spec = JSON.parse(process.argv[2] ?? "{}");
const candidate = await import(new URL(`../candidates/${spec.candidate}.mjs`, import.meta.url).href);
const scenario = await import(new URL(`../scenarios/${spec.scenario}.mjs`, import.meta.url).href);
const why = unsupportedReason(candidate, scenario);
if (why) {
  process.stdout.write(JSON.stringify({ ok: true, unsupported: why }) + "\n");
} else {
  try {
    const metrics = await scenario.run(candidate, spec.params, { childCpu: spec.childCpu });
    process.stdout.write(JSON.stringify({ ok: true, metrics }) + "\n");
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    process.stdout.write(JSON.stringify({ ok: true, unsupported: e.message }) + "\n");
  }
}
