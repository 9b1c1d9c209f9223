/**
 * Issue 18.1-18.3, the Python side: the SDK built into a wheel (standard library only: the
 * in-tree PEP 517 backend of sdk/python/_build, run as a script), `octet init --python` with
 * OCTET_INIT_TARBALLS pointing at it, the wheel installed into a fresh venv in a folder outside
 * the repository, and the folder's own test (`python -m unittest`, octet_extension.testing) run
 * through this build's `octet` command on PATH, as an installed @octet/cli would be.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { CLI, ROOT, processesMentioning } from "./helpers.js";
import { cleanEnv, ok, run } from "./install-support.js";

let temp = "";
let py = "";
let bin = "";

before(
  async () => {
    temp = realpathSync(await mkdtemp(join(tmpdir(), "octet-init-python-")));
    assert.ok(relative(ROOT, temp).startsWith(".."), "the folder is outside the repository");
    const dist = join(temp, "dist");
    // The in-tree backend run as a script: a bare Debian python3 has no pip to run `pip wheel` with.
    await ok("python3", ["sdk/python/_build/octet_build.py", dist], ROOT);
    await ok(process.execPath, [CLI, "init", "--python", "pydemo"], temp, cleanEnv({ OCTET_INIT_TARBALLS: dist }));
    py = join(temp, "pydemo");
    // The README's commands (the venv's own pip, from python3-venv's ensurepip), with --no-index: the
    // requirement is the local wheel.
    await ok("python3", ["-m", "venv", ".venv"], py);
    await ok(".venv/bin/python", ["-m", "pip", "install", "-q", "--no-index", "-r", "requirements.txt"], py);
    bin = join(temp, "bin");
    await mkdir(bin);
    await writeFile(
      join(bin, "octet"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    );
    await chmod(join(bin, "octet"), 0o755);
  },
  { timeout: 170_000 },
);

after(async () => {
  if (temp !== "") await rm(temp, { recursive: true, force: true });
});

test("issue 18.2/18.3: octet init --python: the wheel in a fresh venv, python -m unittest through octet", async () => {
  const python = join(py, ".venv", "bin", "python");
  const where = await ok(python, ["-c", "import octet_extension; print(octet_extension.__file__)"], py);
  assert.ok(where.startsWith(join(py, ".venv")), `the SDK comes from the venv: ${where}`);
  const env = cleanEnv({ PATH: [bin, process.env["PATH"] ?? ""].join(delimiter), OCTET_HOME: join(temp, "home") });
  const r = await run(python, ["-m", "unittest", "-v"], py, env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Ran 4 tests/);
  assert.deepEqual(processesMentioning(py), []);
  // init pins the SDK's version: the wheel it names is the one pyproject.toml builds.
  const pyproject = readFileSync(join(ROOT, "sdk/python/pyproject.toml"), "utf8");
  assert.match(
    readFileSync(join(py, "requirements.txt"), "utf8"),
    new RegExp(`-${/^version = "(.*)"/m.exec(pyproject)?.[1]}-`),
  );
});
