import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { NODE_DEFAULT_PATH, rpiEnvironment } from "../src/manifest/environment.js";
import { resolveRpiLaunch } from "../src/manifest/resolve-launch.js";
import { parseRpiManifest, type RpiManifest } from "../src/manifest/rpi-manifest.js";
import { NODE_RUNNER_PATH, nodeProcessSpec } from "../src/node/launch-node.js";
import { nodePackage } from "./node-support.js";

const NODE = {
  schemaVersion: 1,
  id: "pi-node",
  runtime: "node",
  entry: "./index.mjs",
  capabilities: ["tools", "ui"],
  uiCapabilities: ["notify"],
};

function parse(doc: Record<string, unknown>): ReturnType<typeof parseRpiManifest> {
  return parseRpiManifest(JSON.stringify(doc), "/pkg/pi-extension.json");
}

function problems(doc: Record<string, unknown>): string[] {
  const r = parse(doc);
  assert.equal(r.ok, false, `expected ${JSON.stringify(doc)} to be refused`);
  return r.ok ? [] : r.errors.map((e) => `${e.key}: ${e.message}`);
}

test('node manifest: "runtime": "node" with a .js or .mjs entry is valid and keeps the entry as written', () => {
  for (const entry of ["./index.mjs", "lib/main.js"]) {
    const r = parse({ ...NODE, entry });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.manifest, {
      schemaVersion: 1,
      id: "pi-node",
      runtime: "node",
      arguments: [],
      entry,
      capabilities: ["tools", "ui"],
      uiCapabilities: ["notify"],
    });
  }
});

const ENTRY_RULES =
  "node manifest: the QuickJS entry rules hold (entry required, no executable or arguments, .js/.mjs only, no " +
  "renderer or provider capabilities)";
test(ENTRY_RULES, () => {
  const { entry: _, ...noEntry } = NODE;
  assert.match(
    problems(noEntry).join("\n"),
    /^entry: .*is required: runtime is "node", which runs a \.js or \.mjs entry/m,
  );
  assert.match(
    problems({ ...noEntry, executable: "./main" }).join("\n"),
    /^executable: .*is process-only but runtime is "node"; a node manifest names an "entry"/m,
  );
  assert.match(problems({ ...NODE, executable: "./main" }).join("\n"), /^entry: .*either "executable".*not both/m);
  assert.match(
    problems({ ...NODE, arguments: [] }).join("\n"),
    /^arguments: .*node manifests reject it, got array of 0/m,
  );
  assert.match(problems({ ...NODE, entry: "./index.ts" }).join("\n"), /^entry: .*is a TypeScript file \(\.ts\)/m);
  assert.match(problems({ ...NODE, entry: "../index.mjs" }).join("\n"), /^entry: .*contains a "\.\." segment/m);
  const caps = problems({ ...NODE, capabilities: ["tools", "message_renderers", "provider_metadata"] }).join("\n");
  assert.match(caps, /^capabilities\[1\]: .*"message_renderers" is not available to node entries/m);
  assert.doesNotMatch(caps, /provider_metadata/, "provider data crosses the protocol");
  // An entry without a runtime is still the process shape's mistake, and the message names both script runtimes.
  const { runtime: __, ...noRuntime } = NODE;
  assert.match(problems(noRuntime).join("\n"), /a script entry needs "runtime": "quickjs" \(or "node"\)/);
});

const CONTAINED =
  "node launch: the entry must be a regular file inside the package (symlinks resolved); the launch names it " +
  "canonically";
test(CONTAINED, async () => {
  const dir = nodePackage({ "index.mjs": "export default () => {};\n", "real/lib.mjs": "export default () => {};\n" });
  try {
    const manifest = parse({ ...NODE }) as { ok: true; manifest: RpiManifest };
    const path = join(dir, "pi-extension.json");
    const ok = await resolveRpiLaunch(manifest.manifest, path, { source: "explicit", projectTrusted: true });
    assert.deepEqual(ok, { ok: true, launch: { kind: "node", packageDir: dir, entry: join(dir, "index.mjs") } });
    symlinkSync(join(dir, "real", "lib.mjs"), join(dir, "link.mjs"));
    const linked = await resolveRpiLaunch({ ...manifest.manifest, entry: "./link.mjs" }, path, {
      source: "explicit",
      projectTrusted: true,
    });
    assert.ok(linked.ok && linked.launch.kind === "node" && linked.launch.entry === join(dir, "real", "lib.mjs"));
    symlinkSync("/etc/hostname", join(dir, "out.mjs"));
    const escaped = await resolveRpiLaunch({ ...manifest.manifest, entry: "./out.mjs" }, path, {
      source: "explicit",
      projectTrusted: true,
    });
    assert.ok(!escaped.ok && /outside the package directory/.test(escaped.error), JSON.stringify(escaped));
    const gone = await resolveRpiLaunch({ ...manifest.manifest, entry: "./nope.mjs" }, path, {
      source: "explicit",
      projectTrusted: true,
    });
    assert.ok(!gone.ok && /does not exist in the package directory/.test(gone.error));
    const untrusted = await resolveRpiLaunch(manifest.manifest, path, { source: "project", projectTrusted: false });
    assert.ok(!untrusted.ok && /untrusted project manifest/.test(untrusted.error));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  "node launch: process.execPath runs the runner in the package directory with the QuickJS variables plus PATH and " +
    "HOME, and nothing else of the host's environment",
  () => {
    const manifest = (parse({ ...NODE }) as { ok: true; manifest: RpiManifest }).manifest;
    const launch = { kind: "node" as const, packageDir: "/pkg", entry: "/pkg/index.mjs" };
    const saved = { path: process.env["PATH"], home: process.env["HOME"], secret: process.env["OCTET_TEST_SECRET"] };
    process.env["OCTET_TEST_SECRET"] = "hunter2";
    process.env["HOME"] = "/home/someone";
    try {
      const env = rpiEnvironment(manifest, launch, { maxFrameBytes: 4096 });
      assert.deepEqual(env, {
        PI_EXTENSION_PROTOCOL_VERSION: "1",
        PI_EXTENSION_ID: "pi-node",
        PI_EXTENSION_PACKAGE_ID: "pi-node",
        PI_EXTENSION_ENTRY: "/pkg/index.mjs",
        PI_EXTENSION_CAPABILITIES: '["tools","ui"]',
        PI_EXTENSION_UI_CAPABILITIES: '["notify"]',
        PI_EXTENSION_MAX_FRAME_BYTES: "4096",
        PATH: saved.path,
        HOME: "/home/someone",
      });
      delete process.env["PATH"];
      delete process.env["HOME"];
      const bare = rpiEnvironment(manifest, launch);
      assert.equal(bare["PATH"], NODE_DEFAULT_PATH);
      assert.equal(bare["HOME"], undefined);
      assert.equal(rpiEnvironment(manifest, launch, { path: "/opt/bin" })["PATH"], "/opt/bin");
      assert.deepEqual(nodeProcessSpec(launch, env), {
        command: process.execPath,
        args: ["--enable-source-maps", NODE_RUNNER_PATH],
        cwd: "/pkg",
        env,
      });
      assert.match(NODE_RUNNER_PATH, /dist\/src\/node\/runner\.js$/);
    } finally {
      for (const [key, value] of [
        ["PATH", saved.path],
        ["HOME", saved.home],
        ["OCTET_TEST_SECRET", saved.secret],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  },
);
