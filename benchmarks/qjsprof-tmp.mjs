// scratch: QuickJS throughput, 64 in flight, host-thread CPU per call
import * as cand from "./candidates/quickjs.mjs";
const N = Number(process.env.N || 20000);
const c = await cand.connect({});
async function run(n) {
  let started = 0,
    done = 0;
  await new Promise((resolve) => {
    const next = () => {
      if (started >= n) return;
      started++;
      c.call({ text: "hello world ".repeat(8) }).then(() => {
        done++;
        if (done === n) resolve();
        else next();
      });
    };
    for (let i = 0; i < 64; i++) next();
  });
}
await run(5000);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await run(N);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(`calls/s ${((N / ms) * 1000).toFixed(0)}  process CPU/call ${((cpu.user + cpu.system) / N).toFixed(1)} us`);
await c.close();
