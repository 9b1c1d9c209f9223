/**
 * Issue 13.9: the README's Python install path, run exactly as the README writes it. On Debian
 * `python3 -m pip install ./sdk/python` is refused (PEP 668), so the README installs the SDK into
 * a virtual environment in the extension's folder and the manifest names that interpreter as
 * `./.venv/bin/python`. This test takes the manifest, the extension and the shell commands from
 * README.md itself (so the two cannot drift), writes the files, and runs the commands in a
 * temporary folder where `./sdk` is this checkout's and `octet` is this build's CLI. The
 * environment is never activated and the interpreter that tells the negative case is isolated
 * (`python3 -I -S`), so it cannot import the SDK on any machine: only the manifest's relative
 * command can make the call answer. The `apt-get` line is .ci/run's to run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { CLI, ROOT, processesMentioning } from "./helpers.js";

/** The README's fenced blocks of one language, as written. */
function blocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm"))].map((m) => m[1]!);
}

test(
  "issue 13.9: the README's Python path (a venv in the extension's folder, the manifest's ./.venv/bin/python) works " +
    "as written, without activation",
  async () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    // The files the README shows, each headed by a comment naming its path.
    const files = [...blocks(readme, "toml"), ...blocks(readme, "python")].filter((b) => /^# my-extensions\//.test(b));
    assert.deepEqual(
      files.map((f) => f.split("\n")[0]),
      ["# my-extensions/hello-py/extension.toml", "# my-extensions/hello-py/extension.py"],
    );
    const commands = blocks(readme, "sh").find((b) => b.includes("python3 -m venv my-extensions/"));
    assert.ok(commands, "README.md has the sh block that creates the virtual environment");
    const lines = commands.split("\n").filter((l) => l.trim() !== "");
    assert.match(
      lines[0]!,
      /^apt-get update && apt-get install -y python3-venv /,
      "the first line is the one .ci/run runs",
    );
    assert.ok(
      readFileSync(join(ROOT, ".ci", "run"), "utf8").includes(lines[0]!.split("#")[0]!.trim()),
      ".ci/run runs the README's apt-get line as written",
    );

    const temp = await mkdtemp(join(tmpdir(), "octet-venv-"));
    try {
      for (const file of files) {
        const path = join(temp, file.split("\n")[0]!.slice(2));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, file);
      }
      await symlink(join(ROOT, "sdk"), join(temp, "sdk"));
      const bin = join(temp, "bin");
      await mkdir(bin);
      await writeFile(
        join(bin, "octet"),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      );
      await chmod(join(bin, "octet"), 0o755);
      const env = {
        ...process.env,
        PATH: [bin, process.env["PATH"] ?? ""].join(delimiter),
        PIP_DISABLE_PIP_VERSION_CHECK: "1",
        PYTHONPATH: "",
        VIRTUAL_ENV: "",
        NO_COLOR: "1",
        OCTET_HOME: join(temp, "home"),
      };
      // The PATH's python3 may have the SDK on some machine (a user site, a .pth): isolated (-I: no
      // PYTHON* variables, no user site, no cwd) and without site-packages (-S), it certainly has not.
      const isolated = ["-I", "-S", "-c", "import octet_extension"];
      const bare = spawnSync("python3", isolated, { cwd: tmpdir(), env, encoding: "utf8" });
      assert.match(bare.stderr, /ModuleNotFoundError: No module named 'octet_extension'/, "only the venv can answer");
      const script = lines.slice(1).join("\n");
      const r = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
        cwd: temp,
        env,
        encoding: "utf8",
        timeout: 110_000,
      });
      assert.equal(r.status, 0, `the README's commands failed:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /Hello from octet\.\n$/);
      assert.deepEqual(processesMentioning(join(temp, "my-extensions")), []);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  },
);
