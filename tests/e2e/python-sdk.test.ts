/**
 * The Python SDK (sdk/python) from the outside: its unittest suite, its generated bounds against
 * the TypeScript ones, an offline `pip install ./sdk/python` into a fresh virtual environment,
 * and real Python processes through the real host and CLI: the hello-tools recipe of the guide,
 * cancellation during bounded work, and clean shutdown.
 */
import { createHash } from "node:crypto";
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { bounds } from "@octet/protocol";
import { EXAMPLES, ROOT, processesMentioning, runCli } from "./helpers.js";

const SDK = join(ROOT, "sdk", "python");
let temp = "";
/** PATH with the virtual environment's python3 first: what `python3` in a manifest runs. */
let venvPath = "";

before(async () => {
  temp = await mkdtemp(join(tmpdir(), "octet-py-"));
  const venv = join(temp, "venv");
  const made = spawnSync("python3", ["-m", "venv", "--without-pip", venv], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  const python = join(venv, "bin", "python3");
  const purelib = spawnSync(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {
    encoding: "utf8",
  }).stdout.trim();
  // The venv has no pip of its own: the system pip installs into its site-packages, offline.
  // Run by the base interpreter itself, not a pyenv shim: `python3 -m pip install` through a shim
  // rehashes pyenv's shims under one machine-wide lock, and a concurrent run failed on it.
  const base = spawnSync("python3", ["-c", "import sys; print(getattr(sys, '_base_executable', sys.executable))"], {
    encoding: "utf8",
  }).stdout.trim();
  const installed = spawnSync(
    base || "python3",
    ["-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir", "--target", purelib, SDK],
    {
      encoding: "utf8",
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONPATH: "" },
    },
  );
  assert.equal(installed.status, 0, `pip install ./sdk/python failed:\n${installed.stdout}\n${installed.stderr}`);
  venvPath = [join(venv, "bin"), process.env["PATH"] ?? ""].join(delimiter);
});

after(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

test(
  "PY-25: the SDK's unittest suite passes with PYTHONPATH=sdk/python python3 -m unittest discover -s " +
    "sdk/python/tests",
  () => {
    const r = spawnSync("python3", ["-m", "unittest", "discover", "-s", join(SDK, "tests")], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PYTHONPATH: SDK },
      timeout: 110_000,
    });
    assert.equal(r.status, 0, `python unittest failed:\n${r.stderr.slice(-6_000)}`);
    assert.match(r.stderr, /\nOK/);
  },
);

test("PY-01: the Python bounds are generated from packages/protocol/src/bounds.ts and have not drifted", () => {
  const check = spawnSync(process.execPath, [join(ROOT, "scripts", "gen-python-bounds.mjs"), "--check"], {
    encoding: "utf8",
  });
  assert.equal(check.status, 0, check.stderr);
  const script =
    "import json, octet_extension._bounds as b; print(json.dumps({k: v for k, v in vars(b).items() if k.isupper()}))";
  const r = spawnSync("python3", ["-c", script], { encoding: "utf8", env: { ...process.env, PYTHONPATH: SDK } });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { ...bounds });
});

test(
  "PY-01, PY-02: pip install ./sdk/python works offline and installs octet-extension-sdk 0.9.5 importable as " +
    "octet_extension",
  () => {
    const script =
      "import importlib.metadata as m, octet_extension as o; print(m.version('octet-extension-sdk'), o.__version__, " +
      "o.__file__)";
    const r = spawnSync("python3", ["-c", script], { encoding: "utf8", env: { PATH: venvPath }, cwd: temp });
    assert.equal(r.status, 0, r.stderr);
    const [dist, version, file] = r.stdout.trim().split(" ");
    assert.equal(dist, "0.9.5");
    assert.equal(version, "0.9.5");
    assert.ok(file?.startsWith(temp), `imported from the virtual environment, not the checkout: ${file}`);
  },
);

test("PY-08, PY-07: the guide's hello-tools recipe answers `octet call hello` with Hello from octet.", async () => {
  const r = await runCli(["--extension-dir", EXAMPLES, "--enable-extension", "hello-tools", "call", "hello"], {
    env: { PATH: venvPath },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "Hello from octet.");
  assert.deepEqual(processesMentioning(join(EXAMPLES, "hello-tools")), []);
});

test(
  "PY-12, PY-13, PY-14, PY-20: the guide's typed echo example round-trips its Record as structured content through " +
    "the CLI; bad input is refused before the handler",
  async () => {
    const args = { name: "a", enabled: true, samples: [1, 2.5] };
    const r = await runCli(
      ["--extension-dir", EXAMPLES, "--enable-extension", "typed-echo", "--json", "call", "echo", JSON.stringify(args)],
      { env: { PATH: venvPath } },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { is_error: boolean; text: string; structured_content: unknown };
    assert.equal(out.is_error, false);
    assert.match(out.text, /Echoed typed record\./);
    // The integer 1 in a float field is a float (the same JSON number); the Optional note is explicit null.
    assert.deepEqual(out.structured_content, { name: "a", enabled: true, samples: [1, 2.5], note: null });
    const bad = await runCli(
      [
        "--extension-dir",
        EXAMPLES,
        "--enable-extension",
        "typed-echo",
        "call",
        "echo",
        JSON.stringify({ ...args, enabled: "yes" }),
      ],
      { env: { PATH: venvPath } },
    );
    assert.equal(bad.code, 1, `refused as a tool error: ${bad.stderr}`);
    assert.match(bad.stdout + bad.stderr, /-32602|invalid arguments/);
    assert.deepEqual(processesMentioning(join(EXAMPLES, "typed-echo")), []);
  },
);

test(
  "PY-46, PY-49: the guide's cache-warming example advises through the real host: stop above 5,000 microdollars, no " +
    "opinion below",
  async () => {
    const host = await ExtensionHost.start({
      workspace: temp,
      extensionDirs: [EXAMPLES],
      enable: ["cache-advice"],
      env: { ...process.env, PATH: venvPath },
    });
    try {
      assert.ok(
        host
          .status()
          .find((s) => s.name === "cache-advice")!
          .features.includes("cache_warming_decision"),
      );
      const decision = (warm: number) => ({
        model: "m",
        decision: {
          phase: "idle" as const,
          warm_cost_microdollars: warm,
          miss_cost_microdollars: 9_000,
          continuation_probability: 0.5,
          expected_savings_microdollars: 100,
          economics_available: true,
          host_action: "warm" as const,
        },
      });
      assert.deepEqual(await host.adviseCacheWarming(decision(6_000)), { action: "stop", decidedBy: "cache-advice" });
      assert.deepEqual(await host.adviseCacheWarming(decision(4_000)), { action: "warm", decidedBy: null });
    } finally {
      await host.shutdown();
    }
  },
);

const SERVICES = `import hashlib, os, struct, zlib
from octet_extension import Extension
ext = Extension(api_version="0.2")

def png(width, height):
    # Random RGB pixels barely compress: a PNG larger than the 256 KiB inline bound.
    rows = b"".join(b"\\x00" + os.urandom(width * 3) for _ in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1))
            + chunk(b"IEND", b""))

@ext.tool(name="big_png", description="Publish a PNG larger than 256 KiB")
def big_png(args, ctx):
    data = png(320, 300)
    published = ctx.publish_artifact(data, "image/png", alt="noise")
    digest = hashlib.sha256(data).hexdigest()
    return {"content": [{"type": "text", "text": digest + " " + str(len(data))}, published["part"]]}

@ext.tool(name="show", description="Publish a presentation snapshot for this call")
def show(args, ctx):
    ext.presentation.update({"revision": 7, "activities": []})
    return "shown"

ext.run()
`;

test(
  "PY-57, ART-07: the Python SDK publishes an artifact over 256 KiB through its scratch directory, and presentation " +
    "snapshots reach the embedder",
  async () => {
    const dir = join(temp, "extensions-services");
    await mkdir(join(dir, "py-services"), { recursive: true });
    await writeFile(join(dir, "py-services", "extension.py"), SERVICES);
    await writeFile(
      join(dir, "py-services", "extension.toml"),
      'name = "py-services"\nversion = "0.1.0"\napi_version = "0.2"\n[entrypoint]\ncommand = "python3"\nargs = ' +
        '["./extension.py"]\n[contributes]\ntools = ["big_png", "show"]\npresentation = true\n',
    );
    const host = await ExtensionHost.start({
      workspace: temp,
      extensionDirs: [dir],
      enable: ["py-services"],
      env: { ...process.env, PATH: venvPath },
      services: { artifacts: true, presentation: true },
    });
    try {
      assert.equal(
        host.status().find((s) => s.name === "py-services")?.state,
        "ready",
        JSON.stringify(host.status()[0]?.lastError),
      );
      const out = await host.callTool("big_png", {});
      assert.equal(out.is_error, false, out.text);
      const [digest, size] = out.text.split(" ");
      assert.ok(Number(size) > 262_144, `the PNG is ${size} bytes: over the inline bound, so it went by path`);
      const bytes = Buffer.from(out.media![0]!.bytes);
      assert.equal(bytes.length, Number(size));
      assert.equal(
        createHash("sha256").update(bytes).digest("hex"),
        digest,
        "the host verified and kept exactly the published bytes",
      );
      assert.equal((await host.callTool("show", {})).text, "shown");
      const record = host.presentation("py-services");
      assert.equal(record?.revision, 7);
      assert.equal(record?.scope, "request");
    } finally {
      await host.shutdown();
    }
  },
);

const SLOW = `from octet_extension import Extension
ext = Extension(api_version="0.4", max_concurrent_requests=2)
print("loading (this goes to stderr)")

@ext.tool(name="count", description="Count in bounded steps, polling cancellation",
          parameters={"type": "object", "properties": {"steps": {"type": "integer"}}},
          output_schema={"type": "object", "properties": {"steps": {"type": "integer"}}, "required": ["steps"]})
def count(args, ctx):
    for i in range(args.get("steps", 3)):
        ext.cancellation.raise_if_cancelled()
        ext.progress.status("counting", current=i, total=args.get("steps", 3))
        ext.cancellation.wait(0.02)
    return {"content": "counted", "structured_content": {"steps": args.get("steps", 3)}}

ext.run()
`;

test(
  "PY-26, PY-04, PY-06: a real Python process through the host: progress, cancellation during bounded work answered " +
    "-32800, still ready, clean shutdown",
  async () => {
    const dir = join(temp, "extensions");
    await mkdir(join(dir, "py-count"), { recursive: true });
    await writeFile(join(dir, "py-count", "extension.py"), SLOW);
    await writeFile(
      join(dir, "py-count", "extension.toml"),
      'name = "py-count"\nversion = "0.1.0"\napi_version = "0.4"\n[entrypoint]\ncommand = "python3"\nargs = ' +
        '["./extension.py"]\n[contributes]\ntools = ["count"]\n',
    );
    const events: HostEvent[] = [];
    const host = await ExtensionHost.start({
      workspace: temp,
      extensionDirs: [dir],
      enable: ["py-count"],
      env: { ...process.env, PATH: venvPath },
      onEvent: (e) => events.push(e),
    });
    try {
      assert.equal(host.status().find((s) => s.name === "py-count")?.state, "ready");
      const done = await host.callTool("count", { steps: 3 });
      assert.equal(done.text, "counted");
      assert.deepEqual(done.structured_content, { steps: 3 });
      const controller = new AbortController();
      const call = host.callTool(
        "count",
        { steps: 500 },
        {
          signal: controller.signal,
          onProgress: (e) => {
            if (e.type === "status" && e.current === 2) controller.abort();
          },
        },
      );
      await assert.rejects(call, /cancelled/);
      const again = await host.callTool("count", { steps: 1 });
      assert.equal(again.is_error, false);
      assert.equal(host.status().find((s) => s.name === "py-count")?.state, "ready");
      assert.ok(
        !events.some((e) => e.type === "diagnostic" && /did not settle/.test(e.message)),
        "the cancelled call settled within the grace",
      );
    } finally {
      await host.shutdown();
    }
    // This checkout's folder: another checkout running the same test at once has its own py-count.
    assert.deepEqual(processesMentioning(join(dir, "py-count")), []);
  },
);
