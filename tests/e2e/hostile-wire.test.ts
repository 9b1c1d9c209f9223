/**
 * Issue 13, "what hostile extensions broke", the wire and process items, through real processes:
 * a fake extension (tests/fixtures/fake-ext.mjs) misbehaves next to a good one, and the host must
 * refuse or end it at the cause while the good one goes on answering.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent, type SupervisorClock } from "@octet/host";
import { CLI, makeExtensions, processesMentioning, ROOT, startHostRunner, waitUntil } from "./helpers.js";

/** Restarts are scheduled but never fired: the ended generation stays visible. */
const held: SupervisorClock = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };

async function withFaulty(
  behaviour: string,
  run: (host: ExtensionHost, diagnostics: () => string[], faultyDir: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const { dir, cleanup } = await makeExtensions([
    { name: "good", behaviour: "good", tools: ["echo", "slow"] },
    { name: "faulty", behaviour, tools: ["f_echo", "f_slow"] },
  ]);
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["good", "faulty"],
    onEvent: (e) => events.push(e),
    supervision: { clock: held },
    env: { ...process.env, ...env },
  });
  const faultyDir = join(dir, "faulty");
  try {
    assert.equal(host.status().find((x) => x.name === "faulty")?.state, "ready");
    await run(
      host,
      () => events.flatMap((e) => (e.type === "diagnostic" && e.extension === "faulty" ? [e.message] : [])),
      faultyDir,
    );
    assert.equal((await host.callTool("echo", { still: "up" })).text, '{"still":"up"}');
  } finally {
    await host.shutdown();
    assert.deepEqual(processesMentioning(faultyDir), [], "no process of the faulty extension is left");
    await cleanup();
  }
}

function faultyStatus(host: ExtensionHost): ReturnType<ExtensionHost["status"]>[number] {
  return host.status().find((x) => x.name === "faulty")!;
}

test(
  'issue 13.13: an answer whose real id is spelled "\\u0069d" after a ' +
    "decoy id is refused, not taken as the answer",
  async () => {
    await withFaulty("escaped-id", async (host, diagnostics) => {
      await assert.rejects(host.callTool("f_echo", {}));
      await waitUntil(() => faultyStatus(host).state === "crashed", 10_000, "the faulty generation to be terminated");
      assert.match(faultyStatus(host).lastError ?? "", /member "id" appears more than once/);
      assert.ok(diagnostics().some((d) => /protocol violation: .*member "id" appears more than once/.test(d)));
    });
  },
);

test("issue 13.13: an answer whose id is written 2.00000000000000001 is refused, not aliased to id 2", async () => {
  await withFaulty("fractional-id", async (host) => {
    await assert.rejects(host.callTool("f_echo", {}));
    await waitUntil(() => faultyStatus(host).state === "crashed", 10_000, "the faulty generation to be terminated");
    assert.match(faultyStatus(host).lastError ?? "", /id \d+\.00000000000000001 is not written as an integer/);
  });
});

// Both tiers: behind the namespace launcher the pipe never reads EOF (the launcher holds it open).
for (const tier of ["default containment", "process-group"]) {
  test(
    `issue 13.13: an extension that closes stdout but keeps running is stopped at once (${tier}): calls fail with ` +
      `the cause, not a timeout`,
    async () => {
      await withFaulty(
        "close-stdout",
        async (host, diagnostics, faultyDir) => {
          // Without a timeout of its own the call could wait the full 60 s default; it must end with the transport.
          const outcome = await host.callTool("f_echo", {}).then(
            () => "answered",
            (err: Error) => err.message,
          );
          assert.match(outcome, /closed its stdout/);
          await waitUntil(
            () => faultyStatus(host).state === "crashed",
            10_000,
            "the faulty generation to be terminated",
          );
          assert.match(
            faultyStatus(host).lastError ?? "",
            /transport ended: the extension closed its stdout but kept running/,
          );
          assert.ok(diagnostics().some((d) => /closed its stdout but kept running; terminating it/.test(d)));
          assert.deepEqual(processesMentioning(faultyDir), [], "the still-running process was killed");
        },
        tier === "process-group" ? { OCTET_CONTAINMENT: "process-group" } : {},
      );
    },
  );
}

// The Python SDK keeps the wire on a private duplicate of fd 1 and points fd 1 at stderr (so
// print() cannot corrupt the wire): the pipe is still open, so the transport has not ended. The
// namespace watch once compared fd 1 alone and killed every Python extension after 500 ms.
test(
  "issue 13.13: an extension that moves its stdout pipe to another descriptor (the Python SDK) is not taken as " +
    "closed",
  async () => {
    const fixtures = join(ROOT, "tests", "fixtures");
    const events: HostEvent[] = [];
    const host = await ExtensionHost.start({
      workspace: fixtures,
      extensionDirs: [fixtures],
      enable: ["py-matrix"],
      onEvent: (e) => events.push(e),
      supervision: { clock: held },
    });
    try {
      const status = (): ReturnType<ExtensionHost["status"]>[number] =>
        host.status().find((x) => x.name === "py-matrix")!;
      assert.equal(status().state, "ready", status().lastError ?? "");
      // Several periods of the stdout watch (500 ms) go by with the extension idle.
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      assert.equal(status().state, "ready", status().lastError ?? "");
      assert.equal(status().generation, 1);
      assert.deepEqual(
        events.flatMap((e) => (e.type === "diagnostic" && /closed its stdout/.test(e.message) ? [e.message] : [])),
        [],
      );
      assert.equal(JSON.parse((await host.callTool("plain_sync", { helper: "confirm" })).text).ctx, false);
    } finally {
      await host.shutdown();
    }
  },
);

/** Runs `octet ... call` through bash with fd 77 open on a secret file, as a wrapper script would. */
function callWithFd77(
  args: string[],
  secret: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    const child = spawn("bash", ["-c", `exec 77<'${secret}'; exec ${quoted}`], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the CLI did not finish: ${stderr}`));
    }, 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

for (const tier of ["default containment", "process-group"]) {
  test(
    `issue 13.13: a descriptor the CLI inherited (fd 77 on a secret ` + `file) is not open in the extension (${tier})`,
    async () => {
      const { dir, cleanup } = await makeExtensions([
        { name: "faulty", behaviour: "good", tools: ["f_echo", "f_slow"] },
      ]);
      const secret = join(dir, "secret.txt");
      await writeFile(secret, "hunter2\n");
      try {
        const env: Record<string, string> = tier === "process-group" ? { OCTET_CONTAINMENT: "process-group" } : {};
        const r = await callWithFd77(
          ["--extension-dir", dir, "--enable-extension", "faulty", "--json", "call", "f_echo", '{"__show":"fds"}'],
          secret,
          env,
        );
        assert.equal(r.code, 0, r.stderr);
        const text = (JSON.parse(r.stdout) as { content: unknown }).content;
        const fds = JSON.parse(typeof text === "string" ? text : (text as { text: string }[])[0]!.text) as Record<
          string,
          string
        >;
        assert.ok(Object.keys(fds).length >= 3, `the listing worked: ${JSON.stringify(fds)}`);
        // The number may stay open, but on nothing: /dev/null (see inherited-fds.ts).
        assert.ok(
          fds["77"] === undefined || fds["77"] === "/dev/null",
          `fd 77 holds nothing in the extension: ${JSON.stringify(fds)}`,
        );
        assert.ok(!Object.values(fds).includes(secret), `no descriptor on the secret file: ${JSON.stringify(fds)}`);
      } finally {
        await cleanup();
      }
    },
  );
}

test(
  "issue 13.13: 128 reverse requests open on one call raise no " + "MaxListenersExceededWarning in the host",
  async () => {
    const { dir, cleanup } = await makeExtensions([
      {
        name: "faulty",
        behaviour: "confirm-flood",
        api: "0.2",
        tools: ["f_echo", "f_slow"],
        extraToml: "confirmations = true",
      },
    ]);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    // Confirmations never answered: every admitted one stays open on the same call.
    const host = await ExtensionHost.start({
      workspace: dir,
      extensionDirs: [dir],
      enable: ["faulty"],
      services: { confirm: () => new Promise<boolean>(() => undefined) },
    });
    try {
      const refused = JSON.parse((await host.callTool("f_echo", {})).text) as Record<string, number>;
      assert.equal(
        Object.values(refused).reduce((a, b) => a + b, 0),
        72,
        `72 of 200 were refused over the bound, 128 stayed open: ${JSON.stringify(refused)}`,
      );
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
      assert.deepEqual(
        warnings.filter((w) => /MaxListeners/.test(w)),
        [],
      );
    } finally {
      process.off("warning", onWarning);
      await host.shutdown();
      await cleanup();
    }
  },
);

test("issue 13.13: no Node runtime warning reaches the CLI's user; -v shows it as a line of detail", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "faulty", behaviour: "good", tools: ["f_echo", "f_slow"] }]);
  const probe = join(dir, "warn-probe.mjs");
  // Emitted once the CLI is done, so it cannot come before the CLI's own set-up.
  await writeFile(
    probe,
    'process.once("beforeExit", () => process.emitWarning("probe for issue 13", "ProbeWarning"));\n',
  );
  try {
    const args = ["--extension-dir", dir, "--enable-extension", "faulty", "call", "f_echo", "{}"];
    const quiet = await callWithFd77(args, probe, { NODE_OPTIONS: `--import=${probe}` });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /ProbeWarning|probe for issue 13|Warning/);
    const verbose = await callWithFd77(["-v", ...args], probe, { NODE_OPTIONS: `--import=${probe}` });
    assert.match(verbose.stderr, /octet: node warning: ProbeWarning: probe for issue 13/);
  } finally {
    await cleanup();
  }
});

test(
  "issue 13.13: the scratch directory of a host killed with " + "SIGKILL is removed when the next host starts",
  async () => {
    const { dir, cleanup } = await makeExtensions([{ name: "plain", behaviour: "good" }]);
    // Both hosts keep their scratch directories under a temp root of their own: any host sweeps
    // the dead hosts' directories of its root when it starts, and the other test files start
    // hosts all the time under the shared one.
    const root = await mkdtemp(join(tmpdir(), "octet-scratch-root-"));
    const empty = await mkdtemp(join(tmpdir(), "octet-no-extensions-"));
    const runners: ChildProcess[] = [];
    const startRunner = async (extensions: string): Promise<ChildProcess> => {
      const { runner } = await startHostRunner(extensions, { ...process.env, TMPDIR: root });
      runners.push(runner);
      return runner;
    };
    try {
      const runner = await startRunner(dir);
      const pids = processesMentioning(join(dir, "plain"));
      const scratch = pids
        .map(
          (pid) => /(?:^|\0)OCTET_EXTENSION_SCRATCH=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, "utf8"))?.[1],
        )
        .find((s) => s !== undefined);
      assert.ok(scratch && existsSync(scratch), `the extension's scratch directory: ${scratch}`);
      assert.ok(scratch.startsWith(root), `the scratch directory is under the test's temp root: ${scratch}`);
      runner.kill("SIGKILL");
      await waitUntil(() => processesMentioning(dir).length === 0, 10_000, "the extension to end with its host");
      assert.ok(existsSync(scratch), "nothing removed it: the host was killed");
      await startRunner(empty);
      await waitUntil(() => !existsSync(scratch), 10_000, "the next host to remove the dead host's scratch directory");
    } finally {
      for (const r of runners) r.kill("SIGKILL");
      for (const pid of processesMentioning(dir)) process.kill(pid, "SIGKILL");
      await cleanup();
      await rm(root, { recursive: true, force: true });
      await rm(empty, { recursive: true, force: true });
    }
  },
);
