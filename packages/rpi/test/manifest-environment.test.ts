import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  DEFAULT_MAX_FRAME_BYTES,
  RPI_MANIFEST_FILE,
  loadRpiManifest,
  parseRpiManifest,
  rpiEnvironment,
} from "../src/index.js";
import type { RpiLaunch, RpiManifest } from "../src/index.js";

let root = "";
before(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "rpi-env-")));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

function manifestOf(doc: object): RpiManifest {
  const r = parseRpiManifest(JSON.stringify(doc), "m");
  assert.ok(r.ok);
  return r.manifest;
}

const PROCESS = manifestOf({
  schemaVersion: 1,
  id: "pi-weather",
  executable: "./main",
  arguments: [],
  capabilities: ["tools"],
  uiCapabilities: [],
});
const QUICKJS = manifestOf({
  schemaVersion: 1,
  id: "pi-weather",
  runtime: "quickjs",
  entry: "./index.mjs",
  capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
  uiCapabilities: ["notify", "status"],
});
const PROCESS_LAUNCH: RpiLaunch = { kind: "process", packageDir: "/p", executable: "/p/main", arguments: [] };
const QUICKJS_LAUNCH: RpiLaunch = { kind: "quickjs", packageDir: "/p", entry: "/p/index.mjs" };

test(
  "RPI-18, RPI-19: a process child gets exactly the three PI_EXTENSION_* variables and nothing of the host's " +
    "environment",
  () => {
    process.env["RPI_TEST_SECRET"] = "leak";
    try {
      assert.deepEqual(
        rpiEnvironment(PROCESS, PROCESS_LAUNCH, { packageId: "git:github.com/owner/pi-weather", maxFrameBytes: 4096 }),
        {
          PI_EXTENSION_PROTOCOL_VERSION: "1",
          PI_EXTENSION_ID: "pi-weather",
          PI_EXTENSION_PACKAGE_ID: "git:github.com/owner/pi-weather",
        },
      );
    } finally {
      delete process.env["RPI_TEST_SECRET"];
    }
  },
);

test("RPI-19: the package id defaults to the manifest id", () => {
  const other = { ...PROCESS, id: "other.ext" };
  assert.equal(rpiEnvironment(other, PROCESS_LAUNCH)["PI_EXTENSION_PACKAGE_ID"], "other.ext");
});

test(
  "RPI-20: a QuickJS instance also gets its canonical entry, its capabilities as JSON arrays and the frame " + "bound",
  () => {
    assert.deepEqual(rpiEnvironment(QUICKJS, QUICKJS_LAUNCH, { packageId: "weather-pkg", maxFrameBytes: 65536 }), {
      PI_EXTENSION_PROTOCOL_VERSION: "1",
      PI_EXTENSION_ID: "pi-weather",
      PI_EXTENSION_PACKAGE_ID: "weather-pkg",
      PI_EXTENSION_ENTRY: "/p/index.mjs",
      PI_EXTENSION_CAPABILITIES: '["commands","tools","event_hooks","session_actions","ui"]',
      PI_EXTENSION_UI_CAPABILITIES: '["notify","status"]',
      PI_EXTENSION_MAX_FRAME_BYTES: "65536",
    });
    const noUi = manifestOf({ schemaVersion: 1, id: "t", runtime: "quickjs", entry: "a.js", capabilities: ["tools"] });
    const env = rpiEnvironment(noUi, QUICKJS_LAUNCH);
    assert.equal(env["PI_EXTENSION_UI_CAPABILITIES"], "[]");
    assert.equal(env["PI_EXTENSION_MAX_FRAME_BYTES"], String(DEFAULT_MAX_FRAME_BYTES));
  },
);

test("RPI-18: a launch of the other runtime or a malformed option is a programming error", () => {
  assert.throws(
    () => rpiEnvironment(PROCESS, QUICKJS_LAUNCH),
    /a quickjs launch does not belong to the process manifest "pi-weather"/,
  );
  assert.throws(
    () => rpiEnvironment(QUICKJS, QUICKJS_LAUNCH, { maxFrameBytes: 0 }),
    /maxFrameBytes must be a positive integer, got 0/,
  );
  assert.throws(() => rpiEnvironment(QUICKJS, QUICKJS_LAUNCH, { maxFrameBytes: 1.5 }), /got 1\.5/);
  assert.throws(
    () => rpiEnvironment(PROCESS, PROCESS_LAUNCH, { packageId: "a\u0000b" }),
    /PI_EXTENSION_PACKAGE_ID must be a non-empty string without NUL/,
  );
  assert.throws(
    () => rpiEnvironment(PROCESS, PROCESS_LAUNCH, { packageId: "" }),
    /PI_EXTENSION_PACKAGE_ID must be a non-empty string/,
  );
});

test("RPI-18, RPI-19: a real child launched from a loaded manifest sees exactly that environment", {
  skip: process.platform === "win32",
}, async () => {
  // The interpreter is named by absolute path: the child has no PATH to search.
  const main = path.join(root, "main");
  await writeFile(
    main,
    `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({ env: process.env, argv: process.argv.slice(2) }));\n`,
  );
  await chmod(main, 0o755);
  await writeFile(
    path.join(root, RPI_MANIFEST_FILE),
    JSON.stringify({
      schemaVersion: 1,
      id: "pi-env",
      executable: "main",
      arguments: ["--x", "y z"],
      capabilities: ["tools"],
    }),
  );
  const loaded = await loadRpiManifest(path.join(root, RPI_MANIFEST_FILE), {
    source: "explicit",
    projectTrusted: false,
  });
  assert.ok(loaded.ok && loaded.launch.kind === "process");
  const env = rpiEnvironment(loaded.manifest, loaded.launch, { packageId: "pkg" });
  process.env["RPI_TEST_SECRET"] = "leak";
  try {
    const out = execFileSync(loaded.launch.executable, loaded.launch.arguments, {
      env,
      cwd: loaded.launch.packageDir,
      encoding: "utf8",
    });
    assert.deepEqual(JSON.parse(out), {
      env: { PI_EXTENSION_PROTOCOL_VERSION: "1", PI_EXTENSION_ID: "pi-env", PI_EXTENSION_PACKAGE_ID: "pkg" },
      argv: ["--x", "y z"],
    });
  } finally {
    delete process.env["RPI_TEST_SECRET"];
  }
});
