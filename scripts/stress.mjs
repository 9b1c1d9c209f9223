#!/usr/bin/env node
// npm run stress [-- --crashes N] [--kills N]
//
// Not part of npm test (it takes a few minutes). Two loops against real processes, each ending
// with the count of orphans: processes of the stress run still alive when none should be.
//   1. crash-restart: one host, one extension; N times, a call makes the extension exit and the
//      supervisor restarts it (backoff delay 0, no parking: the loop tests process hygiene, not
//      the policy). Orphans: processes of finished generations alive after each restart, and
//      anything alive after shutdown.
//   2. host kill -9: N times, a host (tests/fixtures/host-runner.mjs) starts two extensions, one of
//      which leaves its process group with setsid; the host is killed with SIGKILL. Orphans:
//      processes of that run still alive 5 s later.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
// The end-to-end tests' helpers (compiled by npm run build): fake-ext manifests and /proc scans.
import { ROOT, makeExtensions, processesMentioning } from "../tests/dist/e2e/helpers.js";

const RUNNER = join(ROOT, "tests", "fixtures", "host-runner.mjs");

function args() {
  const out = { crashes: 1000, kills: 100 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in out)) throw new Error(`unknown option ${argv[i]}; known: --crashes N, --kills N`);
    const n = Number(argv[++i]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${key} needs a non-negative integer, got ${argv[i]}`);
    out[key] = n;
  }
  return out;
}

const generationOf = (pid) => {
  try {
    return /OCTET_PROCESS_GENERATION=(\d+)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1] ?? null;
  } catch {
    return null;
  }
};

async function waitFor(check, ms) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

async function crashLoop(n) {
  const { dir, cleanup } = await makeExtensions([{ name: "crasher", behaviour: "good" }]);
  const instant = {
    now: () => Date.now(),
    random: () => 0,
    setTimer: (fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  };
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["crasher"],
    supervision: { clock: instant, policy: { maxAttempts: Number.MAX_SAFE_INTEGER } },
  });
  let orphans = 0;
  let failures = 0;
  const started = Date.now();
  try {
    for (let i = 1; i <= n; i++) {
      const before = host.status()[0].generation;
      await host.callTool("echo", { __exit: 1 }).catch(() => undefined);
      const back = await waitFor(() => {
        const s = host.status()[0];
        return s.state === "ready" && s.generation !== before;
      }, 10_000);
      if (!back) {
        failures++;
        console.error(`  cycle ${i}: not back within 10 s: ${JSON.stringify(host.status()[0]).slice(0, 300)}`);
        break;
      }
      const current = String(host.status()[0].generation);
      const stale = processesMentioning(dir).filter((pid) => {
        const g = generationOf(pid);
        return g !== null && g !== current;
      });
      // A finished generation's processes may take a moment to be reaped; count what stays.
      if (
        stale.length > 0 &&
        !(await waitFor(() => processesMentioning(dir).every((pid) => generationOf(pid) === current), 2_000))
      )
        orphans += stale.length;
      if (i % 100 === 0)
        process.stdout.write(
          `  ${i} crash-restart cycles, ${orphans} orphans so far (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
        );
    }
  } finally {
    await host.shutdown();
  }
  await waitFor(() => processesMentioning(dir).length === 0, 2_000);
  const left = processesMentioning(dir);
  for (const pid of left) process.kill(pid, "SIGKILL");
  await cleanup();
  return { orphans: orphans + left.length, failures, restarts: host.status()[0].restarts };
}

async function killLoop(n) {
  let orphans = 0;
  let containment = "unknown";
  const started = Date.now();
  for (let i = 1; i <= n; i++) {
    const { dir, cleanup } = await makeExtensions([
      { name: "plain", behaviour: "good" },
      { name: "escaper", behaviour: "setsid-grandchild", tools: ["e_echo", "e_slow"] },
    ]);
    const runner = spawn(process.execPath, [RUNNER, dir], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise((resolve) => {
      let out = "";
      runner.stdout.setEncoding("utf8").on("data", (d) => {
        out += d;
        if (out.includes("\n")) resolve(out.split("\n")[0]);
      });
      runner.once("exit", () => resolve(null));
    });
    if (line) containment = JSON.parse(line)[0]?.containment ?? containment;
    runner.kill("SIGKILL");
    await waitFor(() => processesMentioning(dir).length === 0, 5_000);
    const left = processesMentioning(dir);
    orphans += left.length;
    for (const pid of left) process.kill(pid, "SIGKILL");
    await cleanup();
    if (i % 10 === 0)
      process.stdout.write(
        `  ${i} host kill -9 cycles, ${orphans} orphans so far (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
  }
  return { orphans, containment };
}

const opts = args();
console.log(`octet stress: ${opts.crashes} crash-restart cycles, ${opts.kills} host kill -9 cycles`);
const crash = await crashLoop(opts.crashes);
console.log(`crash-restart: ${crash.restarts} restarts, ${crash.failures} failed cycles, orphans: ${crash.orphans}`);
const kill = await killLoop(opts.kills);
console.log(`host kill -9: containment ${kill.containment}, orphans: ${kill.orphans}`);
process.exitCode = crash.orphans + kill.orphans + crash.failures > 0 ? 1 : 0;
