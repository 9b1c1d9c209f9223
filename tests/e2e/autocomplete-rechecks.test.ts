/**
 * The host's own checks of a completion provider's answer, through a real host and a wire-level
 * extension that sends what no SDK would (tests/fixtures/autocomplete-wire-ext.mjs): the 1,024-byte
 * and control bounds on receipt (ACMP-05), and the correlation kept host-side (ACMP-17): an answer
 * from a provider reloaded, re-registered or gone is dropped, and completionLive says so after.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type DraftCompletion, type FrontendService } from "@octet/host";
import { ROOT, processesMentioning, waitUntil } from "./helpers.js";

const FIXTURE = join(ROOT, "tests", "fixtures", "autocomplete-wire-ext.mjs");

async function withWireHost(body: (host: ExtensionHost, problems: string[]) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-acmp-"));
  await mkdir(join(dir, "wire"));
  await writeFile(
    join(dir, "wire", "extension.toml"),
    `name = "wire"\nversion = "0.0.1"\napi_version = "0.4"\n\n[entrypoint]\n` +
      `command = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([FIXTURE])}\n\n` +
      `[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false\n`,
  );
  const frontend: FrontendService = {
    interactive: () => true,
    composer: { get: () => "", set: () => {}, insert: () => {} },
  };
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["wire"],
    services: { frontend },
  });
  const problems: string[] = [];
  try {
    await waitUntil(() => host.status()[0]?.state === "ready", 10_000, "the wire extension ready");
    // The chain registers after the initialize answer: ask until it is admitted.
    let first: DraftCompletion | null = null;
    for (let i = 0; i < 150 && first === null; i++) {
      first = await host.frontend.completeDraft("ok", 2);
      if (first === null) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(first, "the chain registered and answered");
    await body(host, problems);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(processesMentioning(dir), []);
}

const ask = (host: ExtensionHost, text: string, problems: string[]) =>
  host.frontend.completeDraft(text, Buffer.byteLength(text), {
    onProblem: (extension, problem) => problems.push(`${extension}: ${problem}`),
  });

test("ACMP-05: the host checks each answer on receipt: 1,024 bytes pass, 1,025 or a control do not", async () => {
  await withWireHost(async (host, problems) => {
    const limit = await ask(host, "limit", problems);
    assert.ok(limit, `the answer at the limit was taken: ${problems.join("; ")}`);
    const [item] = limit.items;
    assert.deepEqual(
      [item?.value, item?.label, item?.description].map((s) => Buffer.byteLength(s ?? "")),
      [1024, 1024, 1024],
    );
    assert.equal(await ask(host, "past", problems), null, "1,025 bytes: nobody claims");
    assert.equal(await ask(host, "ctl", problems), null, "a control character: nobody claims");
    assert.equal(problems.length, 2, problems.join("\n"));
    assert.match(
      problems[0] ?? "",
      /^wire: ui\/autocomplete\/complete answer refused: items\[0\]\.label: 1025 bytes, over the 1024-byte limit/,
    );
    assert.match(
      problems[1] ?? "",
      /^wire: ui\/autocomplete\/complete answer refused: items\[0\]\.value: control character U\+001B/,
    );
  });
});

test("ACMP-17: a provider reloaded between request and answer is not heard; its old answers go stale", async () => {
  await withWireHost(async (host, problems) => {
    const before = await ask(host, "ok", problems);
    assert.ok(before);
    assert.equal(host.frontend.completionLive(before), true, "the provider that answered is live");
    // "hold" is answered only when the host shuts the old process down, i.e. during the reload.
    const pending = ask(host, "hold", problems);
    await new Promise((r) => setTimeout(r, 100));
    const status = await host.reload("wire");
    assert.equal(status.state, "ready");
    assert.equal(await pending, null, "the reloaded provider's answer was dropped");
    assert.equal(host.frontend.completionLive(before), false, "an answer of the old generation is stale");
    // The new generation registers and answers under its own generation.
    let after: DraftCompletion | null = null;
    for (let i = 0; i < 150 && after === null; i++) {
      after = await ask(host, "ok", problems);
      if (after === null) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(after);
    assert.notEqual(after.generation, before.generation);
    assert.equal(host.frontend.completionLive(after), true);
  });
});

test("ACMP-17: a re-registration (new revision) drops the answer; a provider that exits goes stale", async () => {
  await withWireHost(async (host, problems) => {
    const before = await ask(host, "ok", problems);
    assert.ok(before);
    assert.equal(before.revision, 1);
    // The provider registers revision 2 before it answers: the chain asked (revision 1) is gone.
    assert.equal(await ask(host, "rereg", problems), null);
    assert.equal(host.frontend.completionLive(before), false, "an answer under revision 1 is stale");
    const now = await ask(host, "ok", problems);
    assert.ok(now);
    assert.equal(now.revision, 2);
    assert.equal(host.frontend.completionLive(now), true);
    // The provider exits (a real exit of its process): what it answered before is stale.
    assert.equal(await ask(host, "exit", problems), null);
    const gone = () => !host.status().some((s) => s.state === "ready" && s.generation === now.generation);
    await waitUntil(gone, 10_000, "the provider's exit seen by the host");
    assert.equal(host.frontend.completionLive(now), false, "a provider that exited is not live");
    assert.equal(host.frontend.completionLive({ ...now, generation: now.generation + 1 }), false);
  });
});
