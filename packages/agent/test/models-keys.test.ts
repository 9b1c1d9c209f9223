// pi's value resolution for apiKey and headers, through real /bin/sh processes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfigValue } from "../src/models/keys.js";

const PATH = process.env["PATH"];

test("a value naming a set variable is the variable; an unset or empty one is the literal", async () => {
  assert.equal(await resolveConfigValue("MY_KEY", { MY_KEY: "secret" }, "apiKey"), "secret");
  assert.equal(await resolveConfigValue("MY_KEY", {}, "apiKey"), "MY_KEY");
  assert.equal(await resolveConfigValue("MY_KEY", { MY_KEY: "" }, "apiKey"), "MY_KEY");
  assert.equal(await resolveConfigValue("sk-123", { "sk-123": "no" }, "apiKey"), "no", "pi's rule, whatever the name");
});

test("a command killed by a signal is named as such", async () => {
  await assert.rejects(
    resolveConfigValue("!kill -TERM $$", { PATH }, "apiKey"),
    /command "!kill -TERM \$\$" was killed by SIGTERM/,
  );
});

test("a command past its time is killed with everything it started, and the error says so", async () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-keys-"));
  const pidFile = join(dir, "child.pid");
  // The background sleep keeps stdout open: only killing the whole group ends the wait.
  const command = `!sleep 30 & echo $! > ${pidFile}; wait`;
  await assert.rejects(
    resolveConfigValue(command, { PATH }, "providers.x.apiKey in models.json", 300),
    /providers\.x\.apiKey in models\.json: command "!sleep 30 & .*" did not finish within 0\.3 s/,
  );
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  let alive = true;
  for (let i = 0; i < 50 && alive; i++) {
    const state = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim();
    alive = state !== "" && !state.startsWith("Z");
    if (alive) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(alive, false, `the background sleep ${pid} was killed with its group`);
});
