/**
 * What the `octet check` tests share: the examples with a manifest, a PATH whose python3 finds
 * the checkout's SDK, and running the kit on examples with every check required to pass.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, readdirSync } from "node:fs";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { EXAMPLES, ROOT, processesMentioning, runCli } from "./helpers.js";

export interface Report {
  extension: string;
  ok: boolean;
  results: { id: string; title: string; outcome: string; expected: string; seen: string }[];
}

/** A PATH whose python3 finds the checkout's SDK: what `python3` in the Python examples' manifests runs. */
async function pythonPath(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await mkdir(bin);
  const shim = join(bin, "python3");
  const real = (process.env["PATH"] ?? "")
    .split(delimiter)
    .map((d) => join(d, "python3"))
    .find((p) => existsSync(p));
  assert.ok(real, "python3 is on PATH");
  await writeFile(shim, `#!/bin/sh\nPYTHONPATH=${join(ROOT, "sdk", "python")} exec ${real} "$@"\n`);
  chmodSync(shim, 0o755);
  return [bin, process.env["PATH"] ?? ""].join(delimiter);
}

/** The examples with a manifest (scripted-model is a model server, no extension); the other file checks the rest. */
const MANIFESTS = ["extension.toml", "pi-extension.json", "mcp-server.json"];

export function examplesWithManifest(): string[] {
  return readdirSync(EXAMPLES).filter((d) => MANIFESTS.some((m) => existsSync(join(EXAMPLES, d, m))));
}

/** Runs `octet --json check` on these examples and asserts every one passes the kit. */
export async function checkExamples(names: string[]): Promise<void> {
  const temp = await mkdtemp(join(tmpdir(), "octet-check-e2e-"));
  try {
    const r = await runCli(["--json", "check", ...names.map((n) => join(EXAMPLES, n))], {
      env: { PATH: await pythonPath(temp), TMPDIR: temp },
      timeoutMs: 120_000,
    });
    const out = JSON.parse(r.stdout) as { ok: boolean; reports: Report[] };
    const failures = out.reports.flatMap((rep) =>
      rep.results.filter((c) => c.outcome === "fail").map((c) => `${rep.extension} ${c.id}: ${c.seen}`),
    );
    assert.deepEqual(failures, []);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(out.ok, true);
    assert.equal(out.reports.length, names.length);
    for (const rep of out.reports) {
      const ids = new Set(rep.results.filter((c) => c.outcome === "pass").map((c) => c.id));
      for (const id of [
        "INIT-01",
        "TDEF-01",
        "ERR-01",
        "ERR-02",
        "FRAME-10",
        "SHUT-01",
        "SHUT-02",
        "FRAME-03",
        "FRAME-12",
      ])
        assert.ok(ids.has(id), `${rep.extension} passed ${id}`);
    }
    // The kit's workspace and scratch folders are made under TMPDIR: every process of this run
    // mentions `temp`, and none of another test's runs of the same examples does.
    assert.deepEqual(processesMentioning(temp), []);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Extensions whose code runs in Python or as pi extensions: cli-check-foreign.test.ts checks them. */
export function foreignExamples(): string[] {
  return examplesWithManifest().filter((d) =>
    ["pi-extension.json", "mcp-server.json", "extension.py"].some((f) => existsSync(join(EXAMPLES, d, f))),
  );
}
