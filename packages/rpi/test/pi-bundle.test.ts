// bundlePiExtension at its limits, with real files and the real esbuild: the cache (a hit runs no
// esbuild, a changed import re-bundles), errors naming file:line:column, the one refusal for every
// escape, pi packages by path, and the Node target's imports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  PI_IMPORT_REFUSED,
  PiBundleError,
  bundlePiExtension,
  piBundleBuilds,
  resolvePiExtensionPath,
} from "../src/index.js";

async function pkg(files: Record<string, string>): Promise<{ root: string; dir: string; cache: string }> {
  const root = await mkdtemp(join(tmpdir(), "octet-pi-bundle-"));
  const dir = join(root, "ext");
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return { root, dir, cache: join(root, "cache") };
}

const TOOL = `import { Type } from "typebox";
import { greet } from "./lib/greet.js";
export default function (pi: any) {
  pi.registerTool({ name: "hi", parameters: Type.Object({ who: Type.String() }), execute: async () => greet("x") });
}
`;

test("bundlePiExtension: a cache hit runs no esbuild and rewrites nothing; a changed import re-bundles", async () => {
  const { root, dir, cache } = await pkg({
    "index.ts": TOOL,
    "lib/greet.ts": `export const greet = (w: string): string => "hello " + w;\n`,
  });
  try {
    const first = await bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "quickjs", cacheDir: cache });
    assert.equal(first.fromCache, false);
    assert.match(first.code, /hello /);
    assert.doesNotMatch(first.code, /from "\.\/lib/, "relative imports are bundled in");
    const mtime = (await stat(first.file)).mtimeMs;
    const builds = piBundleBuilds();
    const again = await bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "quickjs", cacheDir: cache });
    assert.equal(again.fromCache, true);
    assert.equal(piBundleBuilds(), builds, "a cache hit does not run esbuild");
    assert.equal((await stat(first.file)).mtimeMs, mtime, "a cache hit does not rewrite the bundle");
    assert.equal(again.code, first.code);

    await writeFile(join(dir, "lib/greet.ts"), `export const greet = (w: string): string => "bonjour " + w;\n`);
    const changed = await bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "quickjs", cacheDir: cache });
    assert.equal(changed.fromCache, false, "a changed imported file re-bundles");
    assert.equal(piBundleBuilds(), builds + 1);
    assert.match(changed.code, /bonjour /);
    const node = await bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "node", cacheDir: cache });
    assert.equal(node.fromCache, false, "the target is part of the cache key");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("bundlePiExtension: a TypeScript syntax error names the file (relative to the package), line and column", {
  timeout: 60_000,
}, async () => {
  const { root, dir, cache } = await pkg({
    "index.ts": `import { f } from "./lib/bad.js";\nexport default function (pi: any) { f(); }\n`,
    "lib/bad.ts": `export function f(): void {\n  const a: number = 1;\n  let b = a +* 2;\n}\n`,
  });
  try {
    await assert.rejects(
      bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "quickjs", cacheDir: cache }),
      (e: unknown) => {
        assert.ok(e instanceof PiBundleError);
        assert.match(e.message, /^the pi extension \.\/index\.ts failed to load: lib\/bad\.ts:3:14: /);
        assert.ok(!e.message.includes(root), `no host path in ${e.message}`);
        assert.deepEqual(
          e.problems.map((p) => [p.file, p.line]),
          [["lib/bad.ts", 3]],
        );
        return true;
      },
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("bundlePiExtension: an escape by ../ or by a symlink, and a missing file, get the one refusal", async () => {
  const { root, dir, cache } = await pkg({
    "index.ts": `export default function () {}\n`,
    "up.ts": `import "../secret.js";\nexport default function () {}\n`,
    "link.ts": `import "./outside.js";\nexport default function () {}\n`,
    "missing.ts": `import "./nothing.js";\nexport default function () {}\n`,
  });
  try {
    await writeFile(join(root, "secret.ts"), "export const s = 1;\n");
    await symlink(join(root, "secret.ts"), join(dir, "outside.ts"));
    const messages: string[] = [];
    for (const entry of ["up.ts", "link.ts", "missing.ts"]) {
      const error = await bundlePiExtension({ packageDir: dir, entry, target: "quickjs", cacheDir: cache }).then(
        () => assert.fail(`${entry} was bundled`),
        (e: Error) => e,
      );
      assert.ok(error instanceof PiBundleError, String(error));
      assert.ok(error.message.includes(PI_IMPORT_REFUSED), error.message);
      assert.ok(!error.message.includes(root), `no host path in ${error.message}`);
      messages.push(error.message.replace(/^.*?: (import "[^"]+")/, "$1").replace(/"[^"]+"/, "X"));
    }
    assert.equal(new Set(messages).size, 1, `one message whatever the reason: ${messages.join(" | ")}`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("bundlePiExtension: target node keeps Node builtins and resolves installed packages to files", async () => {
  const { root, dir, cache } = await pkg({
    "index.ts":
      `import { join } from "node:path";\nimport { Type } from "typebox";\n` +
      `import { StringEnum } from "@mariozechner/pi-ai";\n` +
      `export default function () { return [join("a", "b"), Type.String().type, StringEnum(["x"]).enum[0]]; }\n`,
  });
  try {
    const b = await bundlePiExtension({ packageDir: dir, entry: "index.ts", target: "node", cacheDir: cache });
    assert.match(b.code, /from "node:path"/);
    assert.match(b.code, /from "\/[^"]*node_modules\/typebox\//, "typebox is the installed package");
    const mod = (await import(b.file)) as { default: () => unknown[] };
    assert.deepEqual(mod.default(), ["a/b", "string", "x"]);
    assert.match(await readFile(b.file, "utf8"), /sourceMappingURL=/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("resolvePiExtensionPath: a file, a folder with index.ts, a package.json pi entry; several are refused", {
  timeout: 60_000,
}, async () => {
  const { root, dir } = await pkg({
    "single.ts": "export default function () {}\n",
    "folder/index.ts": "export default function () {}\n",
    "pkg/package.json": JSON.stringify({ name: "p", pi: { extensions: ["./src/main.ts"] } }),
    "pkg/src/main.ts": "export default function () {}\n",
    "two/package.json": JSON.stringify({ pi: { extensions: ["./a.ts", "./b.ts"] } }),
  });
  try {
    const file = await resolvePiExtensionPath(join(dir, "single.ts"));
    assert.ok(file.ok);
    assert.equal(file.source.id, "single");
    assert.equal(file.source.manifest.entry, "./single.ts");
    assert.equal(file.source.manifest.runtime, "quickjs");
    assert.ok(!file.source.manifest.capabilities.includes("message_renderers"));
    assert.ok(file.source.manifest.capabilities.includes("provider_metadata"));
    const folder = await resolvePiExtensionPath("folder", dir);
    assert.ok(folder.ok);
    assert.deepEqual([folder.source.id, folder.source.manifest.entry], ["folder", "./index.ts"]);
    const declared = await resolvePiExtensionPath(join(dir, "pkg"));
    assert.ok(declared.ok);
    assert.deepEqual([declared.source.id, declared.source.manifest.entry], ["pkg", "./src/main.ts"]);
    const two = await resolvePiExtensionPath(join(dir, "two"));
    assert.ok(!two.ok);
    assert.match(two.error, /declares 2 extensions \(\.\/a\.ts, \.\/b\.ts\).*name each file/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
