import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { OCTET_VERSION, bounds } from "@octet/protocol";
import { discoverExtensions, resolveOctetHome } from "../../src/manifest/discovery.js";
import type { DiscoveredExtension } from "../../src/manifest/discovery.js";

interface Layout {
  root: string;
  workspace: string;
  /** The octet home; global extensions live in <home>/extensions. */
  home: string;
  project: string;
  global: string;
}

async function withLayout(fn: (l: Layout) => Promise<void>): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "octet-discovery-"));
  const workspace = path.join(root, "workspace");
  const home = path.join(root, "octet-home");
  const l: Layout = {
    root,
    workspace,
    home,
    project: path.join(workspace, ".octet", "extensions"),
    global: path.join(home, "extensions"),
  };
  await mkdir(workspace, { recursive: true });
  try {
    await fn(l);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function manifestText(name: string, extra = ""): string {
  return (
    `name = "${name}"\nversion = "0.1.0"\napi_version = "0.4"\n${extra}\n[entrypoint]\ncommand = ` +
    `"node"\nargs = ["ext.js"]\n`
  );
}

/** Writes <parent>/<dirName>/extension.toml and returns the manifest path. */
async function put(parent: string, dirName: string, text: string): Promise<string> {
  const dir = path.join(parent, dirName);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "extension.toml");
  await writeFile(file, text);
  return file;
}

function summary(list: DiscoveredExtension[]): Array<[string, string, boolean, string | null]> {
  return list.map((e) => [e.name, e.source, e.manifest !== null, e.shadowedBy]);
}

test("MAN-10: each discovered manifest has source explicit, project or global", async () => {
  await withLayout(async (l) => {
    const explicitDir = path.join(l.root, "mine");
    const e = await put(explicitDir, "hello-tools", manifestText("hello-tools"));
    const p = await put(l.project, "proj", manifestText("proj"));
    const g = await put(l.global, "glob", manifestText("glob"));
    const list = await discoverExtensions({ workspace: l.workspace, extensionDirs: [explicitDir], octetHome: l.home });
    assert.deepEqual(
      list.map((x) => [x.name, x.source, x.manifestPath, x.dir, x.errors, x.shadowedBy]),
      [
        ["hello-tools", "explicit", e, path.dirname(e), [], null],
        ["glob", "global", g, path.dirname(g), [], null],
        ["proj", "project", p, path.dirname(p), [], null],
      ],
    );
    for (const x of list) {
      assert.ok(["explicit", "project", "global"].includes(x.source));
      assert.ok(path.isAbsolute(x.manifestPath));
      assert.equal(x.manifest?.name, x.name);
    }
  });
});

test(
  "MAN-10, MAN-22: duplicate names resolve explicit over global over project (a repository cannot replace " +
    "a global extension); losers stay listed as shadowed",
  async () => {
    await withLayout(async (l) => {
      const explicitDir = path.join(l.root, "mine");
      const e = await put(explicitDir, "dup", manifestText("dup"));
      const p = await put(l.project, "dup", manifestText("dup"));
      const g = await put(l.global, "also-dup", manifestText("dup"));
      const gOnly = await put(l.global, "solo", manifestText("solo"));
      const pg = await put(l.project, "pg", manifestText("pg"));
      const gp = await put(l.global, "pg", manifestText("pg"));
      const list = await discoverExtensions({
        workspace: l.workspace,
        extensionDirs: [explicitDir],
        octetHome: l.home,
      });
      assert.deepEqual(summary(list), [
        ["dup", "explicit", true, null],
        ["dup", "global", true, e],
        ["pg", "global", true, null],
        ["solo", "global", true, null],
        ["dup", "project", true, e],
        ["pg", "project", true, gp],
      ]);
      const loser = list.find((x) => x.manifestPath === p)!;
      assert.equal(loser.errors.length, 1);
      const err = loser.errors[0]!;
      assert.equal(err.rule, "shadowed");
      assert.equal(err.file, p);
      assert.equal(err.key, "name");
      assert.ok(
        err.message.startsWith(`${p}: key "name": project extension "dup" is shadowed by explicit extension ${e}`),
        err.message,
      );
      assert.match(err.message, /explicit beats global beats project/);
      assert.equal(list.find((x) => x.manifestPath === g)!.errors[0]!.rule, "shadowed");
      assert.equal(
        list.find((x) => x.manifestPath === pg)!.shadowedBy,
        gp,
        "the project pg does not replace the global pg",
      );
      assert.deepEqual(list.find((x) => x.manifestPath === gOnly)!.errors, []);
    });
  },
);

test(
  "MAN-10: within one source the first directory in sorted order wins, and entries are sorted by " + "directory name",
  async () => {
    await withLayout(async (l) => {
      const c = await put(l.project, "c", manifestText("same"));
      const a = await put(l.project, "a", manifestText("same"));
      const b = await put(l.project, "B", manifestText("other"));
      const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
      assert.deepEqual(
        list.map((x) => x.manifestPath),
        [b, a, c],
      ); // code-unit order: "B" < "a" < "c"
      assert.equal(list[1]!.shadowedBy, null);
      assert.equal(list[2]!.shadowedBy, a);
    });
  },
);

test("MAN-10: explicit dirs keep the order given; a dir holding extension.toml is itself one extension", async () => {
  await withLayout(async (l) => {
    const single = path.join(l.root, "single");
    await mkdir(single);
    await writeFile(path.join(single, "extension.toml"), manifestText("one"));
    await put(single, "ignored-child", manifestText("child"));
    const many = path.join(l.root, "many");
    await put(many, "z", manifestText("zed"));
    await put(many, "one", manifestText("one"));
    const list = await discoverExtensions({ workspace: l.workspace, extensionDirs: [single, many], octetHome: l.home });
    assert.deepEqual(summary(list), [
      ["one", "explicit", true, null],
      ["one", "explicit", true, path.join(single, "extension.toml")],
      ["zed", "explicit", true, null],
    ]);
    assert.equal(list[0]!.dir, single);
  });
});

test("MAN-10: relative --extension-dir values resolve against the workspace", async () => {
  await withLayout(async (l) => {
    const m = await put(path.join(l.workspace, "my-extensions"), "hello-tools", manifestText("hello-tools"));
    const list = await discoverExtensions({
      workspace: l.workspace,
      extensionDirs: ["./my-extensions"],
      octetHome: l.home,
    });
    assert.deepEqual(
      list.map((x) => [x.name, x.manifestPath]),
      [["hello-tools", m]],
    );
  });
});

test("MAN-10: missing project and global directories yield no entries", async () => {
  await withLayout(async (l) => {
    assert.deepEqual(await discoverExtensions({ workspace: l.workspace, octetHome: l.home }), []);
    // A file where .octet should be is "no project extensions", not a crash.
    await writeFile(path.join(l.workspace, ".octet"), "not a dir");
    assert.deepEqual(await discoverExtensions({ workspace: l.workspace, octetHome: l.home }), []);
  });
});

test("MAN-10: a missing or non-directory --extension-dir is an error entry with an empty name", async () => {
  await withLayout(async (l) => {
    const missing = path.join(l.root, "nope");
    const file = path.join(l.root, "file.txt");
    await writeFile(file, "x");
    await put(l.global, "g", manifestText("g"));
    const list = await discoverExtensions({
      workspace: l.workspace,
      extensionDirs: [missing, file],
      octetHome: l.home,
    });
    assert.deepEqual(summary(list), [
      ["", "explicit", false, null],
      ["", "explicit", false, null],
      ["g", "global", true, null],
    ]);
    assert.equal(list[0]!.manifestPath, missing);
    assert.equal(list[0]!.errors[0]!.message, `${missing}: --extension-dir does not exist`);
    assert.equal(list[0]!.errors[0]!.rule, "extension_dir");
    assert.equal(list[1]!.errors[0]!.message, `${file}: --extension-dir is not a directory`);
  });
});

test("MAN-10: a global extensions path that is a file is an error entry", async () => {
  await withLayout(async (l) => {
    await mkdir(l.home, { recursive: true });
    await writeFile(l.global, "x");
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.equal(list.length, 1);
    assert.equal(list[0]!.source, "global");
    assert.equal(list[0]!.errors[0]!.message, `${l.global}: global extensions directory is not a directory`);
  });
});

test("MAN-10: discovery looks one level deep only and skips directories without a manifest", async () => {
  await withLayout(async (l) => {
    await put(path.join(l.project, "outer"), "inner", manifestText("deep"));
    await mkdir(path.join(l.project, "empty"), { recursive: true });
    await writeFile(path.join(l.project, "extension.toml"), manifestText("root-file"));
    await writeFile(path.join(l.project, "stray.toml"), manifestText("stray"));
    assert.deepEqual(await discoverExtensions({ workspace: l.workspace, octetHome: l.home }), []);
  });
});

test("MAN-10: a symlinked extension directory is followed one level", async () => {
  await withLayout(async (l) => {
    const real = await put(path.join(l.root, "elsewhere"), "real", manifestText("linked"));
    await mkdir(l.project, { recursive: true });
    await symlink(path.dirname(real), path.join(l.project, "link"));
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.deepEqual(
      list.map((x) => [x.name, x.manifestPath]),
      [["linked", path.join(l.project, "link", "extension.toml")]],
    );
  });
});

test("MAN-10: the global root is octetHome, else a non-empty $OCTET_HOME, else ~/.octet", async () => {
  await withLayout(async (l) => {
    const viaEnv = path.join(l.root, "env-home");
    await put(path.join(viaEnv, "extensions"), "e", manifestText("from-env"));
    await put(path.join(l.root, "user", ".octet", "extensions"), "h", manifestText("from-home"));
    const homeDir = path.join(l.root, "user");
    const a = await discoverExtensions({
      workspace: l.workspace,
      octetHome: undefined,
      env: { OCTET_HOME: viaEnv },
      homeDir,
    });
    assert.deepEqual(
      a.map((x) => [x.name, x.source]),
      [["from-env", "global"]],
    );
    const b = await discoverExtensions({ workspace: l.workspace, env: { OCTET_HOME: "" }, homeDir });
    assert.deepEqual(
      b.map((x) => [x.name, x.source]),
      [["from-home", "global"]],
    );
    assert.equal(resolveOctetHome({ octetHome: l.home, env: { OCTET_HOME: viaEnv } }), l.home);
  });
});

test("MAN-10: when the workspace is the home directory its extensions are global, listed once", async () => {
  await withLayout(async (l) => {
    const m = await put(path.join(l.workspace, ".octet", "extensions"), "x", manifestText("x"));
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: path.join(l.workspace, ".octet") });
    assert.deepEqual(
      list.map((e) => [e.name, e.source, e.manifestPath]),
      [["x", "global", m]],
    );
  });
});

test(
  "MAN-10: one manifest reached through --extension-dir and the project root is listed once, " + "as explicit",
  async () => {
    await withLayout(async (l) => {
      await put(l.project, "x", manifestText("x"));
      const list = await discoverExtensions({ workspace: l.workspace, extensionDirs: [l.project], octetHome: l.home });
      assert.deepEqual(summary(list), [["x", "explicit", true, null]]);
    });
  },
);

test(
  "MAN-03: an invalid manifest is listed with its errors, named by its manifest name or else its " + "directory",
  async () => {
    await withLayout(async (l) => {
      await put(l.project, "dir-a", manifestText("named", 'homepage = "x"'));
      await put(l.project, "dir-b", "this is [not toml");
      const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
      assert.deepEqual(summary(list), [
        ["named", "project", false, null],
        ["dir-b", "project", false, null],
      ]);
      assert.equal(list[0]!.errors[0]!.rule, "unknown_key");
      assert.equal(list[1]!.errors[0]!.rule, "toml_syntax");
      assert.ok(list[1]!.errors[0]!.message.startsWith(path.join(l.project, "dir-b", "extension.toml")));
    });
  },
);

test("MAN-03: a broken higher-precedence manifest still shadows a valid lower one", async () => {
  await withLayout(async (l) => {
    const g = await put(l.global, "x", manifestText("x", "bogus = 1"));
    await put(l.project, "x", manifestText("x"));
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.deepEqual(summary(list), [
      ["x", "global", false, null],
      ["x", "project", true, g],
    ]);
  });
});

test("MAN-05: a requires_octet mismatch is found at discovery, before any process starts", async () => {
  await withLayout(async (l) => {
    await put(l.project, "pinned", manifestText("pinned", 'requires_octet = "9.9.9"'));
    const [entry] = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.equal(entry?.manifest, null);
    assert.equal(entry?.name, "pinned");
    assert.equal(entry?.errors[0]?.code, "version_mismatch");
    assert.match(
      entry?.errors[0]?.message ?? "",
      new RegExp(`requires octet 9\\.9\\.9 but this host is octet ${OCTET_VERSION.replaceAll(".", "\\.")}`),
    );
    const [ok] = await discoverExtensions({ workspace: l.workspace, octetHome: l.home, hostVersion: "9.9.9" });
    assert.deepEqual(ok?.errors, []);
  });
});

test("MAN-08: discovery refuses a manifest one byte over 256 KiB and keeps the directory name", async () => {
  await withLayout(async (l) => {
    const body = (name: string, size: number): string => {
      const base = manifestText(name) + "# ";
      return base + "x".repeat(size - Buffer.byteLength(base) - 1) + "\n";
    };
    await put(l.project, "at-limit", body("big1", bounds.MAX_MANIFEST_BYTES));
    const past = await put(l.project, "past-limit", body("big2", bounds.MAX_MANIFEST_BYTES + 1));
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.deepEqual(summary(list), [
      ["big1", "project", true, null],
      ["past-limit", "project", false, null],
    ]);
    assert.equal(
      list[1]!.errors[0]!.message,
      `${past}: manifest is 262145 bytes, over the 262144-byte (256 KiB) manifest limit`,
    );
  });
});

test("MAN-09: the discovery path applies the 256 KiB bound, not the 64 KiB load default", async () => {
  await withLayout(async (l) => {
    const base = manifestText("mid") + "# ";
    const size = 100 * 1024;
    await put(l.project, "mid", base + "x".repeat(size - Buffer.byteLength(base) - 1) + "\n");
    const list = await discoverExtensions({ workspace: l.workspace, octetHome: l.home });
    assert.equal(list.length, 1);
    assert.deepEqual(list[0]!.errors, []);
    assert.equal(list[0]!.manifest?.name, "mid");
  });
});
