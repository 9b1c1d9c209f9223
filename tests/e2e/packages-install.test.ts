/**
 * Issue 18.1-18.3: octet installed as a user outside this checkout installs it. Every npm package
 * is packed once (`npm pack`); `octet init` (this build's) makes a TypeScript and a pi extension
 * in a temporary folder outside the repository with OCTET_INIT_TARBALLS pointing at the
 * tarballs; the TypeScript folder's `npm install` installs them (from the npm cache when it has
 * them: --prefer-offline), and each folder's own test passes with the installed packages, as do
 * `octet extensions validate` and a call through the installed `octet` bin; @octet/agent (the
 * CLI's optional peer) is checked from its unpacked tarball. The Python wheel's part is
 * init-python.test.ts.
 *
 * To keep the file short, one npm install serves two folders: the pi folder's node_modules is a
 * link to the TypeScript folder's, which holds every package the pi template depends on.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { isBuiltin } from "node:module";
import { CLI, ROOT, processesMentioning } from "./helpers.js";
import { bareImports, checkInstalledPackage, cleanEnv, ok, run } from "./install-support.js";

const PACKAGES = [
  "packages/protocol",
  "sdk/typescript",
  "packages/host",
  "packages/rpi",
  "packages/agent",
  "packages/cli",
];

let temp = "";
let tarballs = "";
let ts = "";
let pi = "";
const npmEnv = (): NodeJS.ProcessEnv => cleanEnv({ OCTET_HOME: join(temp, "home") });

before(
  async () => {
    temp = realpathSync(await mkdtemp(join(tmpdir(), "octet-packages-")));
    assert.ok(relative(ROOT, temp).startsWith(".."), "the folder is outside the repository");
    tarballs = join(temp, "tarballs");
    await mkdir(tarballs);
    await ok("npm", ["pack", "--silent", "--pack-destination", tarballs, ...PACKAGES.map((p) => `./${p}`)], ROOT);
    const init = (kind: string, name: string): Promise<string> =>
      ok(process.execPath, [CLI, "init", `--${kind}`, name], temp, cleanEnv({ OCTET_INIT_TARBALLS: tarballs }));
    await Promise.all([init("ts", "demo"), init("pi", "pidemo")]);
    [ts, pi] = [join(temp, "demo"), join(temp, "pidemo")];
    // --ignore-scripts: npm 11's default for dependencies; esbuild finds its platform binary without its own.
    await ok("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], ts, npmEnv());
    await symlink(join(ts, "node_modules"), join(pi, "node_modules"));
  },
  { timeout: 170_000 },
);

after(async () => {
  if (temp !== "") await rm(temp, { recursive: true, force: true });
});

test(
  "issue 18.1: each installed package is self-contained: its relative imports and source maps stay inside " +
    "it, its exports have types, its dependencies are exact",
  () => {
    const installed = join(ts, "node_modules", "@octet");
    // @octet/agent is the CLI's optional peer: an extension's project gets the CLI without the model
    // loop and pi-ai's providers (the last test adds it).
    assert.deepEqual(readdirSync(installed).sort(), ["cli", "extension", "host", "protocol", "rpi"]);
    for (const name of readdirSync(installed)) checkInstalledPackage(join(installed, name), name);
  },
);

// The checks after the one setup share nothing: they run at once (the file must stay short).
describe("the installed packages", { concurrency: true }, () => {
  test(
    "issue 18.2/18.3: octet init --ts: npm test passes with the installed packages, validate is ok, the " +
      "installed octet calls the tool",
    async () => {
      const octet = join(ts, "node_modules", ".bin", "octet");
      const [testRun, validate] = await Promise.all([
        ok("npm", ["test"], ts, npmEnv()),
        ok(octet, ["--extension-dir", ".", "extensions", "validate"], ts, npmEnv()),
      ]);
      // After npm test, which built dist/.
      const call = await ok(
        octet,
        ["--extension-dir", ".", "--enable-extension", "demo", "call", "demo_greet", '{"name":"you"}'],
        ts,
        npmEnv(),
      );
      // Without its optional peer @octet/agent, a model says what to install instead of failing.
      const model = await run(octet, ["--model", "anthropic/claude-sonnet-4-5", "run", "hi"], ts, npmEnv());
      assert.match(testRun, /# pass 3\n# fail 0/);
      assert.match(validate, /^ok +demo /m);
      assert.equal(call, "Hello, you!\n");
      assert.equal(model.code, 2, model.stderr);
      assert.match(model.stderr, /a model needs octet's agent, the package @octet\/agent, which is not installed/);
      assert.deepEqual(processesMentioning(ts), []);
    },
  );

  test("issue 18.2/18.3: octet init --pi: npm test runs the pi extension in QuickJS under the host", async () => {
    const [testRun, validate] = await Promise.all([
      ok("npm", ["test"], pi, npmEnv()),
      ok("npm", ["run", "validate"], pi, npmEnv()),
    ]);
    assert.match(testRun, /# pass 2\n# fail 0/);
    assert.match(validate, /^ok +pidemo /m);
  });
});

test("issue 18.2: octet init refuses a non-empty folder and a bad name, saying the rule", async () => {
  const refused = await run(process.execPath, [CLI, "init", "--ts", "demo"], temp);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /demo exists and is not empty/);
  const bad = await run(process.execPath, [CLI, "init", "--python", "My Ext"], temp);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"My Ext" is not a valid extension name: it must start with a lowercase letter or digit/);
  assert.equal(existsSync(join(temp, "My Ext")), false);
});

// The agent, the CLI's optional peer: its tarball unpacked and checked as the others, and every
// package it imports declared (a real install would fetch pi-ai's ~130 MB of provider libraries,
// most of this file's time; the agent itself runs in the agent tests and the CLI's).
test("issue 18.1: @octet/agent's tarball is self-contained and declares every package it imports", async () => {
  const dir = join(temp, "agent-unpacked");
  await mkdir(dir);
  await ok("tar", ["xzf", join(tarballs, "octet-agent-0.1.0.tgz"), "-C", dir, "--strip-components=1"], temp);
  checkInstalledPackage(dir, "agent", { tarball: true });
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const imported = bareImports(join(dir, "dist", "src"));
  assert.ok(imported.has("@mariozechner/pi-ai"), "the scan finds the agent's imports");
  const undeclared = [...imported].filter((p) => !declared.has(p) && !isBuiltin(p));
  assert.deepEqual(undeclared, [], "every package the agent imports is in its dependencies");
  // The bundle carries pi-ai's core, typebox and partial-json inside: what it still imports (pi-ai's
  // providers by the package's subpaths, the host, the protocol) is declared too, and nothing it
  // carries is imported again.
  const bundled = bareImports(join(dir, "dist", "bundle"));
  assert.ok(bundled.has("@mariozechner/pi-ai") && bundled.has("@octet/host"), "the scan finds the bundle's imports");
  assert.deepEqual(
    [...bundled].filter((p) => !declared.has(p) && !isBuiltin(p)),
    [],
    "every package the agent's bundle imports is in its dependencies",
  );
});
