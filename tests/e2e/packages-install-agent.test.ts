/**
 * Issue 18.1, the agent's half: @octet/agent (the model loop, with pi-ai's provider libraries) is
 * an optional peer of @octet/cli, so packages-install.test.ts installs the CLI without it. Here
 * both tarballs are installed into a fresh folder outside the repository (npm install, from the
 * npm cache when it has them), the agent package is checked as the others are, and the installed
 * `octet` runs a prompt against the scripted OpenAI-compatible server over real HTTP.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { realpathSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";
import { checkInstalledPackage, cleanEnv, ok } from "./install-support.js";

const PACKAGES = ["packages/protocol", "packages/host", "packages/rpi", "packages/agent", "packages/cli"];
let temp = "";

before(
  async () => {
    temp = realpathSync(await mkdtemp(join(tmpdir(), "octet-agent-install-")));
    assert.ok(relative(ROOT, temp).startsWith(".."), "the folder is outside the repository");
    const tarballs = join(temp, "tarballs");
    await mkdir(tarballs);
    await ok("npm", ["pack", "--silent", "--pack-destination", tarballs, ...PACKAGES.map((p) => `./${p}`)], ROOT);
    const tgz = (name: string): string => `file:${join(tarballs, `octet-${name}-0.1.0.tgz`)}`;
    const names = ["protocol", "host", "rpi", "agent", "cli"];
    writeFileSync(
      join(temp, "package.json"),
      JSON.stringify({
        name: "agent-install",
        private: true,
        dependencies: { "@octet/cli": tgz("cli"), "@octet/agent": tgz("agent") },
        overrides: Object.fromEntries(names.map((n) => [`@octet/${n}`, tgz(n)])),
      }),
    );
    await ok("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], temp, cleanEnv());
  },
  { timeout: 170_000 },
);

after(async () => {
  if (temp !== "") await rm(temp, { recursive: true, force: true });
});

test("issue 18.1: @octet/agent installed beside @octet/cli: self-contained, and octet run answers", async () => {
  checkInstalledPackage(join(temp, "node_modules", "@octet", "agent"), "agent");
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = await mod.startScriptedServer({ script: [{ text: "Installed and answering." }] });
  try {
    const home = join(temp, "home");
    await mkdir(home, { recursive: true });
    writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
    const octet = join(temp, "node_modules", ".bin", "octet");
    const out = await ok(
      octet,
      ["--model", "scripted/scripted-model", "run", "are you there?"],
      temp,
      cleanEnv({ OCTET_HOME: home }),
    );
    assert.equal(out, "Installed and answering.\n");
    assert.equal(server.requests.length, 1, "one real HTTP request reached the scripted server");
  } finally {
    await server.close();
  }
});
