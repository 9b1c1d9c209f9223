/**
 * The interactive shell on a real pseudo-terminal (tests/fixtures/pty-driver.py): the edit and
 * reload loop (issue 13.8: /extensions reload refuses a changed catalog and points at /reload,
 * which rebuilds the host and takes it), /tools NAME (13.6), and the start banner naming an
 * enabled broken manifest and a start failure's cause (13.3, 13.4).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeExtensions, processesMentioning } from "./helpers.js";
import { plain, runOnPty } from "./pty.js";

const PROMPT = /octet> (\u001b\[\d+G)?$/;

test("issue 13.8: in the shell, /reload rebuilds the host from disk and takes a changed tool description", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "ed", behaviour: "good" }]);
  const workspace = await mkdtemp(join(tmpdir(), "octet-reload-ws-"));
  try {
    const run = await runOnPty(["--extension-dir", dir, "--enable-extension", "ed", "--workspace", workspace], {
      env: { NO_COLOR: "1" },
    });
    await run.waitFor(/running ed\. Type \/help\.[^]*octet> /, "the shell");
    run.type("/tools echo\r");
    await run.waitFor(
      /echo\(\) -> text {4}\[ed\]\r?\n {2}Echo the arguments\r?\n[^]*octet> (\u001b\[\d+G)?$/,
      "the tool as it starts",
    );
    // The author edits the extension: the next generation's echo tool has a new description.
    await writeFile(join(workspace, "fake-ext-changed"), "");
    let from = run.output().length;
    run.type("/extensions reload ed\r");
    await run.waitFor(
      /re-registration required[^]*type \/reload to rebuild the host[^]*octet> (\u001b\[\d+G)?$/,
      "the refused live reload and the way out",
      { from },
    );
    from = run.output().length;
    run.type("/reload\r");
    await run.waitFor(
      new RegExp(
        String.raw`rebuilt the host from the manifests on disk: running ed 0\.0\.1\r?\ncatalog: ` +
          String.raw`changed tool ed\/echo\r?\n[^]*octet> (\u001b\[\d+G)?$`,
      ),
      "the rebuild, saying what changed",
      { from },
    );
    from = run.output().length;
    run.type("/tools echo\r");
    await run.waitFor(/Echo the arguments, changed\r?\n[^]*octet> (\u001b\[\d+G)?$/, "the new description", { from });
    run.type("/quit\r");
    assert.equal(await run.exit(), 0, plain(run.output()));
    assert.deepEqual(processesMentioning(dir), [], "the old and the new generation are both gone");
  } finally {
    await cleanup();
    await rm(workspace, { recursive: true, force: true });
  }
});

test(
  "issue 13.3, 13.4: the shell's banner names an enabled broken manifest with file and key, and a start failure " +
    "with its stderr cause",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-banner-"));
    try {
      await mkdir(join(dir, "broken"));
      await mkdir(join(dir, "crash"));
      const head = (name: string): string =>
        `name = "${name}"\nversion = "0.1.0"\napi_version = "0.1"\n[entrypoint]\ncommand ` +
        `= ${JSON.stringify(process.execPath)}\nargs = ["./main.js"]\n`;
      await writeFile(join(dir, "broken", "extension.toml"), `${head("broken")}[capabilities]\nnetwork = "yes"\n`);
      await writeFile(join(dir, "crash", "extension.toml"), `${head("crash")}[contributes]\ntools = ["c"]\n`);
      await writeFile(join(dir, "crash", "main.js"), "require('./missing-dep.js');\n");
      const run = await runOnPty(
        ["--extension-dir", dir, "--enable-extension", "broken", "--enable-extension", "crash"],
        { env: { NO_COLOR: "1" } },
      );
      await run.waitFor(PROMPT, "the prompt", { timeoutMs: 15_000 });
      const banner = plain(run.output());
      assert.match(banner, /octet shell: no extension running\. Type \/help\./);
      assert.match(
        banner,
        /not ready: extension "broken" has an invalid manifest: .*broken\/extension\.toml: key "capabilities\.network"/,
      );
      assert.match(
        banner,
        /not ready: extension "crash" could not start: .*stderr: Error: Cannot find module '\.\/missing-dep\.js'/,
      );
      const from = run.output().length;
      run.type("/tools c\r");
      await run.waitFor(
        /no ready extension provides tool "c"[^]*octet> (\u001b\[\d+G)?$/,
        "the answer for a tool of a failed extension",
        { from },
      );
      run.type("/quit\r");
      assert.equal(await run.exit(), 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
