/**
 * Issue 13.4 left-over (issue 14.3): the exit of a child can be seen before the last of its stderr
 * is read, and that is where it says why it failed. The cause is composed once stderr has ended
 * (bounded), so it names the error however the two race.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OctetError } from "@octet/protocol";
import { Generation } from "../../src/generation/generation.js";
import { parseManifest } from "../../src/manifest/manifest.js";
import { FakeChild } from "./fake-child.js";
import { harness, started } from "./harness.js";
import { BARE_HOST, bindModules } from "../../src/modules/registry.js";

test("issue 13.4: stderr that arrives after the exit event still becomes the cause of a start failure", async () => {
  const h = harness("0.1");
  const start = h.g.start();
  await h.child.next("initialize");
  h.child.exit(1, null, false);
  setTimeout(() => {
    h.child.stderr.end("Error: the late cause\n    at main (x.js:1:1)\n");
    h.child.stdout.end();
  }, 10);
  const err = await start.then(
    () => assert.fail("started"),
    (e: unknown) => e as OctetError,
  );
  assert.equal(err.code, "transport_closed");
  assert.match(err.message, /ended: process exited with code 1; stderr: Error: the late cause$/);
  assert.match(h.g.lastError ?? "", /stderr: Error: the late cause/);
  assert.equal(h.g.state, "crashed");
});

test("issue 13.4: a crash while ready is reported with its late stderr to the supervisor", async () => {
  const h = await started("0.2");
  const ended = new Promise<OctetError>((resolve) => (h.g.spec.onUnexpectedEnd = resolve));
  h.child.exit(2, null, false);
  setTimeout(() => h.child.stderr.end("TypeError: x is not a function\n"), 10);
  const err = await ended;
  assert.equal(err.message, 'extension "fake" process exited with code 2; stderr: TypeError: x is not a function');
  assert.equal(h.g.state, "crashed");
});

test(
  "issue 13.4: a stderr that never ends holds the cause back only for the bound; an in-process instance " +
    "says it ended",
  async () => {
    const h = await started("0.2", { child: new FakeChild(null) });
    const ended = new Promise<OctetError>((resolve) => (h.g.spec.onUnexpectedEnd = resolve));
    h.child.stderr.write("Error: said before the exit\n");
    h.child.exit(1, null, false);
    const err = await ended;
    assert.equal(err.message, 'extension "fake" instance ended; stderr: Error: said before the exit');
  },
);

test(
  "issue 13.4: a real child that writes its error and exits at once is reported with that error, every " +
    "time (both containment tiers)",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-exit-cause-"));
    try {
      await mkdir(join(dir, "quick"));
      // Written and gone at once: the exit and the last stderr bytes reach the host in either order.
      const script = 'echo "Error: cause $OCTET_PROCESS_GENERATION" >&2; exit 3';
      const toml = [
        'name = "quick"',
        'version = "0.1.0"',
        'api_version = "0.1"',
        "[entrypoint]",
        'command = "/bin/sh"',
        `args = ["-c", ${JSON.stringify(script)}]`,
        "[contributes]",
        'tools = ["z"]',
        "",
      ].join("\n");
      await writeFile(join(dir, "quick", "extension.toml"), toml);
      const parsed = parseManifest(toml, join(dir, "quick", "extension.toml"));
      if (!parsed.ok) assert.fail(parsed.errors.map((e) => e.message).join("\n"));
      const tiers = [{}, { OCTET_CONTAINMENT: "process-group" }];
      for (let n = 1; n <= 20; n++) {
        const g = new Generation({
          manifest: parsed.manifest,
          manifestPath: join(dir, "quick", "extension.toml"),
          extensionDir: join(dir, "quick"),
          source: "explicit",
          workspace: dir,
          number: n,
          instanceId: "i-cause",
          host: { session_id: null, session_name: null, model: null, reasoning: null, active_skills: [] },
          parentEnv: { PATH: process.env["PATH"], ...tiers[n % 2] },
          emit: () => undefined,
          modules: bindModules({}, BARE_HOST),
        });
        const err = await g.start().then(
          () => assert.fail("started"),
          (e: unknown) => e as OctetError,
        );
        const expected = new RegExp(`process exited with code 3; stderr: Error: cause ${n}$`);
        assert.match(err.message, expected, `run ${n}: ${err.message}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
