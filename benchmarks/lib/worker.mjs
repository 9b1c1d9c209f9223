// One measurement in a fresh process: `node worker.mjs '<json spec>'` imports one candidate and one
// scenario, runs it, and prints the metrics as a single JSON line on stdout. The runner starts it
// under taskset; the candidate pins its own child with `taskset -c <childCpu>`.
const spec = JSON.parse(process.argv[2] ?? "{}");
const candidate = await import(new URL(`../candidates/${spec.candidate}.mjs`, import.meta.url).href);
const scenario = await import(new URL(`../scenarios/${spec.scenario}.mjs`, import.meta.url).href);
const metrics = await scenario.run(candidate, spec.params, { childCpu: spec.childCpu });
process.stdout.write(JSON.stringify({ ok: true, metrics }) + "\n");
