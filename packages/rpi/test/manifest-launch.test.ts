import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  RPI_MANIFEST_FILE,
  RPI_MAX_MANIFEST_BYTES,
  loadRpiManifest,
  parseRpiManifest,
  resolveRpiLaunch,
} from "../src/index.js";
import type { RpiLaunchOptions, RpiManifest } from "../src/index.js";

const EXPLICIT: RpiLaunchOptions = { source: "explicit", projectTrusted: false };

let root = "";
before(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "rpi-manifest-")));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

let counter = 0;
/** A fresh package directory with the given files (mode 0755 for names in `executables`). */
async function pkg(files: Record<string, string>, executables: string[] = []): Promise<string> {
  const dir = path.join(root, `pkg${counter++}`);
  await mkdir(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
    await chmod(path.join(dir, name), executables.includes(name) ? 0o755 : 0o644);
  }
  return dir;
}

function manifestOf(doc: object): RpiManifest {
  const r = parseRpiManifest(JSON.stringify(doc), "m");
  assert.ok(r.ok, r.ok ? "" : r.errors.map((e) => e.message).join("\n"));
  return r.manifest;
}

const processManifest = (executable: string, args: string[] = []) =>
  manifestOf({
    schemaVersion: 1,
    id: "pi-weather",
    executable,
    arguments: args,
    capabilities: ["tools"],
    uiCapabilities: [],
  });
const quickjsManifest = (entry: string) =>
  manifestOf({ schemaVersion: 1, id: "pi-weather", runtime: "quickjs", entry, capabilities: ["tools"] });

async function launchError(
  manifest: RpiManifest,
  dir: string,
  options: RpiLaunchOptions = EXPLICIT,
): Promise<{ error: string; key: string }> {
  const r = await resolveRpiLaunch(manifest, path.join(dir, RPI_MANIFEST_FILE), options);
  assert.equal(r.ok, false, `expected a refusal, got ${JSON.stringify(r)}`);
  return r.ok ? { error: "", key: "" } : r;
}

test("RPI-14, RPI-15: a contained executable file resolves to its canonical path with its arguments", async () => {
  const dir = await pkg({ main: "#!/bin/sh\n" }, ["main"]);
  const r = await resolveRpiLaunch(
    processManifest("./main", ["--a", "b"]),
    path.join(dir, RPI_MANIFEST_FILE),
    EXPLICIT,
  );
  assert.deepEqual(r, {
    ok: true,
    launch: { kind: "process", packageDir: dir, executable: path.join(dir, "main"), arguments: ["--a", "b"] },
  });
});

test("RPI-07, RPI-14: a contained QuickJS entry resolves to its canonical path", async () => {
  const dir = await pkg({ "lib/index.mjs": "export default () => {};\n" });
  const r = await resolveRpiLaunch(quickjsManifest("./lib/index.mjs"), path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.deepEqual(r, {
    ok: true,
    launch: { kind: "quickjs", packageDir: dir, entry: path.join(dir, "lib", "index.mjs") },
  });
});

test("RPI-14: a symlink that stays inside the package is followed to its canonical target", async () => {
  const dir = await pkg({ "real/main": "#!/bin/sh\n", "real/index.js": "" }, ["real/main"]);
  await mkdir(path.join(dir, "bin"));
  await symlink("../real/main", path.join(dir, "bin", "run"));
  await symlink("real", path.join(dir, "src"));
  const exe = await resolveRpiLaunch(processManifest("bin/run"), path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.ok(exe.ok && exe.launch.kind === "process");
  assert.equal(exe.launch.executable, path.join(dir, "real", "main"));
  const entry = await resolveRpiLaunch(quickjsManifest("src/index.js"), path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.ok(entry.ok && entry.launch.kind === "quickjs");
  assert.equal(entry.launch.entry, path.join(dir, "real", "index.js"));
});

test("RPI-13, RPI-14: a symlink that escapes the package directory fails closed", async () => {
  const outside = await pkg({ tool: "#!/bin/sh\n", "index.mjs": "" }, ["tool"]);
  const dir = await pkg({});
  await symlink(path.join(outside, "tool"), path.join(dir, "main"));
  const exe = await launchError(processManifest("./main"), dir);
  assert.equal(exe.key, "executable");
  assert.match(
    exe.error,
    new RegExp(
      `key "executable": "\\./main" resolves to ${path.join(outside, "tool")}, outside the package directory ${dir}; ` +
        `a symlink must not escape the package`,
    ),
  );
  // Through a symlinked directory, and through a link to the package directory's parent.
  await symlink(outside, path.join(dir, "lib"));
  assert.match(
    (await launchError(quickjsManifest("lib/index.mjs"), dir)).error,
    /key "entry": "lib\/index\.mjs" resolves to .* outside the package directory/,
  );
  await symlink("..", path.join(dir, "up"));
  assert.match(
    (await launchError(processManifest(`up/${path.basename(outside)}/tool`), dir)).error,
    /outside the package directory/,
  );
  // A link to the package directory itself names a directory, not a file inside it.
  await symlink(".", path.join(dir, "self"));
  assert.match(
    (await launchError(processManifest("self"), dir)).error,
    /key "executable": "self" resolves to the package directory itself, not a file inside it/,
  );
});

test("RPI-13: a missing executable or entry fails closed with a clear error", async () => {
  const dir = await pkg({});
  const exe = await launchError(processManifest("./main"), dir);
  assert.equal(
    exe.error,
    `${path.join(dir, RPI_MANIFEST_FILE)}: key "executable": "./main" does not exist in the package directory ${dir}`,
  );
  assert.match(
    (await launchError(quickjsManifest("dist/index.mjs"), dir)).error,
    /key "entry": "dist\/index\.mjs" does not exist in the package directory/,
  );
  await symlink("nowhere", path.join(dir, "dangling"));
  assert.match((await launchError(processManifest("dangling"), dir)).error, /"dangling" does not exist/);
  await symlink("loop", path.join(dir, "loop"));
  assert.match((await launchError(processManifest("loop"), dir)).error, /"loop" is a symlink loop/);
});

test("RPI-15: a directory where the executable or entry should be is refused: they must be regular files", async () => {
  const dir = await pkg({ "main/x": "", "index.mjs/y": "" });
  assert.match(
    (await launchError(processManifest("./main"), dir)).error,
    /key "executable": "\.\/main" must be a regular file, but it is a directory/,
  );
  assert.match(
    (await launchError(quickjsManifest("./index.mjs"), dir)).error,
    /key "entry": "\.\/index\.mjs" must be a regular file, but it is a directory/,
  );
});

test("RPI-15: a process executable without an execute bit is refused on Unix", {
  skip: process.platform === "win32",
}, async () => {
  const dir = await pkg({ main: "#!/bin/sh\n" });
  const r = await launchError(processManifest("./main"), dir);
  assert.equal(r.key, "executable");
  assert.match(
    r.error,
    new RegExp(
      /key "executable": "\.\/main" \(.*\/main\) is not executable \(mode 0644\); process executables must /.source +
        /have an execute bit on Unix \(chmod \+x\)/.source,
    ),
  );
  // A QuickJS entry is read, never executed: no execute bit is needed.
  const js = await pkg({ "index.mjs": "" });
  assert.equal(
    (await resolveRpiLaunch(quickjsManifest("index.mjs"), path.join(js, RPI_MANIFEST_FILE), EXPLICIT)).ok,
    true,
  );
});

test("RPI-07, RPI-13: a QuickJS entry whose canonical file is not .js/.mjs is refused", async () => {
  const dir = await pkg({ "index.ts": "export default () => {}" });
  await symlink("index.ts", path.join(dir, "index.mjs"));
  const r = await launchError(quickjsManifest("./index.mjs"), dir);
  assert.equal(r.key, "entry");
  assert.match(
    r.error,
    new RegExp(
      /key "entry": "\.\/index\.mjs" resolves through a symlink to ".*\/index\.ts" is a TypeScript file /.source +
        /\(\.ts\).*TypeScript is not supported by the in-process runtime/.source,
    ),
  );
});

test(
  "RPI-13, RPI-14: a hand-built manifest is checked again: path syntax and the runtime shape hold before any " +
    "filesystem access",
  async () => {
    const dir = await pkg({ main: "" }, ["main"]);
    const bad = { ...processManifest("./main"), executable: "../main" };
    assert.match((await launchError(bad, dir)).error, /key "executable": "\.\.\/main" contains a "\.\." segment/);
    const ts = { ...quickjsManifest("./index.mjs"), entry: "./index.ts" };
    assert.match((await launchError(ts, dir)).error, /TypeScript is not supported by the in-process runtime/);
    const mixed = { ...quickjsManifest("./index.mjs"), arguments: ["x"] };
    assert.match(
      (await launchError(mixed, dir)).error,
      /a QuickJS manifest needs an entry and no executable or arguments/,
    );
  },
);

test(
  "RPI-16, QJS-19: project manifests are refused until the project is trusted; explicit and global ones " + "load",
  async () => {
    const dir = await pkg({ main: "", "index.mjs": "" }, ["main"]);
    const file = path.join(dir, RPI_MANIFEST_FILE);
    for (const m of [processManifest("./main"), quickjsManifest("./index.mjs")]) {
      const r = await launchError(m, dir, { source: "project", projectTrusted: false });
      assert.equal(
        r.error,
        `${file}: untrusted project manifest for extension "pi-weather": project extensions load only in a trusted ` +
          `project; trust the project to load it`,
      );
      assert.equal((await resolveRpiLaunch(m, file, { source: "project", projectTrusted: true })).ok, true);
      assert.equal((await resolveRpiLaunch(m, file, { source: "global", projectTrusted: false })).ok, true);
      assert.equal((await resolveRpiLaunch(m, file, { source: "explicit", projectTrusted: false })).ok, true);
    }
  },
);

const SPEC_PROCESS = `{
  "schemaVersion": 1,
  "id": "pi-weather",
  "executable": "./main",
  "arguments": [],
  "capabilities": ["tools"],
  "uiCapabilities": []
}
`;

test(
  "RPI-02, RPI-14: loadRpiManifest reads, parses and resolves; the package directory is the canonical manifest " +
    "directory",
  async () => {
    const dir = await pkg({ [RPI_MANIFEST_FILE]: SPEC_PROCESS, main: "#!/bin/sh\n" }, ["main"]);
    await symlink(dir, path.join(root, "linked"));
    const r = await loadRpiManifest(
      path.relative(process.cwd(), path.join(root, "linked", RPI_MANIFEST_FILE)),
      EXPLICIT,
    );
    assert.ok(r.ok, r.ok ? "" : r.errors.map((e) => e.message).join("\n"));
    assert.equal(r.manifestPath, path.join(root, "linked", RPI_MANIFEST_FILE));
    assert.equal(r.manifest.id, "pi-weather");
    assert.deepEqual(r.launch, { kind: "process", packageDir: dir, executable: path.join(dir, "main"), arguments: [] });
  },
);

test("RPI-02: without a pi-extension.json the extension is not loaded", async () => {
  const dir = await pkg({ main: "" }, ["main"]);
  const file = path.join(dir, RPI_MANIFEST_FILE);
  const r = await loadRpiManifest(file, EXPLICIT);
  assert.equal(r.ok, false);
  assert.deepEqual(!r.ok && r.errors, [
    {
      file,
      key: "",
      message:
        `${file}: no pi-extension.json here: every rpi extension needs an explicit pi-extension.json ` +
        `manifest, and one without it is not loaded`,
    },
  ]);
});

test("RPI-02: a manifest that is not a regular file is refused without blocking", {
  skip: process.platform === "win32",
}, async () => {
  const dir = await pkg({ [`${RPI_MANIFEST_FILE}/x`]: "" });
  const asDir = await loadRpiManifest(path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.match(
    !asDir.ok ? (asDir.errors[0]?.message ?? "") : "",
    /pi-extension\.json: the manifest must be a regular file, but it is a directory/,
  );
  const fifoDir = await pkg({});
  execFileSync("mkfifo", [path.join(fifoDir, RPI_MANIFEST_FILE)]);
  const fifo = await loadRpiManifest(path.join(fifoDir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.match(
    !fifo.ok ? (fifo.errors[0]?.message ?? "") : "",
    /the manifest must be a regular file, but it is a FIFO/,
  );
});

test("RPI-02: the read is bounded at 64 KiB: a larger manifest is refused, one of exactly 64 KiB loads", async () => {
  const padTo = (n: number) => SPEC_PROCESS + " ".repeat(n - Buffer.byteLength(SPEC_PROCESS));
  const big = await pkg({ [RPI_MANIFEST_FILE]: padTo(RPI_MAX_MANIFEST_BYTES + 1), main: "" }, ["main"]);
  const r = await loadRpiManifest(path.join(big, RPI_MANIFEST_FILE), EXPLICIT);
  assert.match(
    !r.ok ? (r.errors[0]?.message ?? "") : "",
    /: the manifest is 65537 bytes, over the 65536-byte \(64 KiB\) manifest limit$/,
  );
  // The size is checked before reading: a huge file is refused by its size, not after 64 KiB of it.
  const huge = await pkg({ main: "" }, ["main"]);
  await writeFile(path.join(huge, RPI_MANIFEST_FILE), "");
  await truncate(path.join(huge, RPI_MANIFEST_FILE), 64 * 1024 * 1024);
  const h = await loadRpiManifest(path.join(huge, RPI_MANIFEST_FILE), EXPLICIT);
  assert.match(
    !h.ok ? (h.errors[0]?.message ?? "") : "",
    /: the manifest is 67108864 bytes, over the 65536-byte \(64 KiB\) manifest limit$/,
  );
  const edge = await pkg({ [RPI_MANIFEST_FILE]: padTo(RPI_MAX_MANIFEST_BYTES), main: "" }, ["main"]);
  assert.equal((await loadRpiManifest(path.join(edge, RPI_MANIFEST_FILE), EXPLICIT)).ok, true);
});

test("RPI-02: a manifest that is not valid UTF-8 is refused", async () => {
  const dir = await pkg({ main: "" }, ["main"]);
  await writeFile(path.join(dir, RPI_MANIFEST_FILE), Buffer.from([0x7b, 0xff, 0x7d]));
  const r = await loadRpiManifest(path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.match(!r.ok ? (r.errors[0]?.message ?? "") : "", /pi-extension\.json: the manifest is not valid UTF-8$/);
});

test("RPI-16: loadRpiManifest refuses an untrusted project manifest before reading it", async () => {
  // The file is not even JSON: a loader that read or parsed it before the trust gate would say so.
  const dir = await pkg({ [RPI_MANIFEST_FILE]: "not json" });
  const file = path.join(dir, RPI_MANIFEST_FILE);
  const r = await loadRpiManifest(file, { source: "project", projectTrusted: false });
  assert.deepEqual(!r.ok && r.errors, [
    {
      file,
      key: "",
      message:
        `${file}: untrusted project manifest: project extensions load only in a trusted project; trust the ` +
        `project to load it`,
    },
  ]);
});

test("RPI-03, RPI-13: loadRpiManifest reports every parse problem, then a launch problem under its key", async () => {
  const dir = await pkg({
    [RPI_MANIFEST_FILE]: `{"schemaVersion":2,"id":"a b","executable":"./main","capabilities":["tools"]}`,
  });
  const parse = await loadRpiManifest(path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.deepEqual(!parse.ok && parse.errors.map((e) => e.key), ["schemaVersion", "id"]);
  await writeFile(
    path.join(dir, RPI_MANIFEST_FILE),
    `{"schemaVersion":1,"id":"a","executable":"./main","capabilities":["tools"]}`,
  );
  const launch = await loadRpiManifest(path.join(dir, RPI_MANIFEST_FILE), EXPLICIT);
  assert.equal(!launch.ok && launch.errors.length, 1);
  assert.equal(!launch.ok && launch.errors[0]?.key, "executable");
  assert.match(!launch.ok ? (launch.errors[0]?.message ?? "") : "", /key "executable": "\.\/main" does not exist/);
});
