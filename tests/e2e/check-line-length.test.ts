/**
 * scripts/check-line-length.mjs on fixture trees (issue 14.6): a source file with a line over 120
 * characters fails, naming file, line and length; without one the check passes; dist,
 * node_modules and non-source files are not checked; characters, not bytes, are counted.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";

const CHECKER = join(ROOT, "scripts", "check-line-length.mjs");

interface Checker {
  checkLineLength(root: string, paths: string[] | null, max?: number): string[];
}
const checker = (await import(pathToFileURL(CHECKER).href)) as Checker;

/** Writes `files` (path -> text) into a fresh tree and runs `body` on its root, then removes the tree. */
function withTree<T>(files: Record<string, string>, body: (root: string) => T): T {
  const root = mkdtempSync(join(tmpdir(), "octet-line-length-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const line = (n: number, ch = "x"): string => ch.repeat(n);

// Lines that are at most 120 characters, or not in a checked file.
const SHORT = {
  "src/a.ts": `const a = 1;\n// ${line(117)}\n`,
  "src/b.py": `${line(120)}\r\n`,
  // 120 characters but 240 bytes: characters are what count.
  "src/c.mjs": `${line(120, "é")}\n`,
  "src/dist/out.js": `${line(300)}\n`,
  "node_modules/dep/index.js": `${line(300)}\n`,
  "docs/notes.md": `${line(300)}\n`,
};

test("issue 14.6: a tree without a line over 120 characters passes", () => {
  withTree(SHORT, (root) => {
    assert.deepEqual(checker.checkLineLength(root, ["."]), []);
  });
});

test("issue 14.6: each line over 120 characters is named by file, line and length", () => {
  const files = {
    ...SHORT,
    "src/a.ts": `const a = 1;\n// ${line(118)}\n`,
    "src/deep/d.toml": `x = 1\n\n${line(121, "é")}\n`,
    "src/e.py": `# ok\n${line(200)}\n${line(130)}\n`,
  };
  withTree(files, (root) => {
    assert.deepEqual(checker.checkLineLength(root, ["src"]), [
      "src/a.ts:2: 121 characters",
      "src/deep/d.toml:3: 121 characters",
      "src/e.py:2: 200 characters",
      "src/e.py:3: 130 characters",
    ]);
    // --paths narrows the check to a subset: one file, or one folder.
    assert.deepEqual(checker.checkLineLength(root, ["src/a.ts"]), ["src/a.ts:2: 121 characters"]);
    assert.deepEqual(checker.checkLineLength(root, ["src/deep"]), ["src/deep/d.toml:3: 121 characters"]);
  });
});

test("issue 14.6: without --paths only tracked files are checked", () => {
  const files = { "a.ts": "const a = 1;\n", "untracked.ts": `${line(130)}\n` };
  withTree(files, (root) => {
    const git = (...args: string[]): void => {
      const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
    };
    git("init", "-q");
    git("add", "a.ts");
    assert.deepEqual(checker.checkLineLength(root, null), []);
    git("add", "untracked.ts");
    assert.deepEqual(checker.checkLineLength(root, null), ["untracked.ts:1: 130 characters"]);
  });
});

test("issue 14.6: the command exits 1 and prints each long line, 0 when there is none", () => {
  const files = { "a.ts": `${line(125)}\n`, "b.ts": "const b = 2;\n" };
  withTree(files, (root) => {
    const run = (...paths: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [CHECKER, "--root", root, "--paths", ...paths], { encoding: "utf8" });
    const failed = run("a.ts", "b.ts");
    assert.equal(failed.status, 1);
    assert.equal(failed.stderr, "a.ts:1: 125 characters\ncheck-line-length: 1 line(s) over 120 characters\n");
    const passed = run("b.ts");
    assert.equal(passed.status, 0, String(passed.stderr));
    assert.match(String(passed.stdout), /no line over 120 characters/);
  });
});
