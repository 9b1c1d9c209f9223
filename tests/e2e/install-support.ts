/**
 * What the install tests share: commands run with a clean environment (none of an enclosing
 * `npm test`'s or test runner's variables) and a deadline, and a check that one succeeded.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts_ from "typescript";
import { ROOT } from "./helpers.js";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of every command, without what an enclosing `npm test` or test runner set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // NODE_TEST_CONTEXT would make a folder's own `node --test` report to this test runner, not print.
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT") env[k] = v;
  return { ...env, NO_COLOR: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1", ...extra };
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Run> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, env, timeout: 100_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
      done({ code, stdout, stderr });
    });
  });
}

export async function ok(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(cmd, args, cwd, env);
  assert.equal(r.code, 0, `${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Every file under dir, relative to it. */
function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((n) => {
    const rel = prefix === "" ? n : `${prefix}/${n}`;
    return statSync(join(dir, n)).isDirectory() ? filesUnder(join(dir, n), rel) : [rel];
  });
}

/**
 * An installed @octet package (`dir`, from its tarball) is self-contained: installed, not linked;
 * version, license, LICENSE and README; exact dependencies; exports with types and code; every
 * relative import (read by the TypeScript compiler) and source map entry inside the package.
 */
export function checkInstalledPackage(dir: string, name: string, o: { tarball?: boolean } = {}): void {
  if (!o.tarball)
    assert.ok(!realpathSync(dir).startsWith(ROOT), `@octet/${name} is installed from its tarball, not linked`);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  assert.equal(pkg.version, "0.1.0");
  assert.equal(pkg.license, "MIT");
  assert.ok(existsSync(join(dir, "LICENSE")), `@octet/${name} ships its LICENSE`);
  assert.ok(existsSync(join(dir, "README.md")), `@octet/${name} has a README`);
  for (const [dep, spec] of Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies }))
    assert.match(String(spec), /^\d+\.\d+\.\d+$/, `@octet/${name}: ${dep} is pinned exactly`);
  if (pkg.bin !== undefined) assert.ok(existsSync(join(dir, pkg.bin.octet)), "the octet bin is there");
  for (const [path, entry] of Object.entries(pkg.exports ?? {})) {
    const e = entry as { types?: string; default?: string };
    assert.ok(e.types && existsSync(join(dir, e.types)), `@octet/${name} "${path}" has its types`);
    assert.ok(e.default && existsSync(join(dir, e.default)), `@octet/${name} "${path}" has its code`);
  }
  for (const file of filesUnder(dir)) {
    const abs = join(dir, file);
    const inside = (target: string, what: string): void => {
      assert.ok(!relative(dir, target).startsWith(".."), `@octet/${name}/${file}: ${what} leaves the package`);
      assert.ok(existsSync(target), `@octet/${name}/${file}: ${what} is not in the package`);
    };
    if (file.endsWith(".map")) {
      const map = JSON.parse(readFileSync(abs, "utf8")) as { sources: string[] };
      for (const s of map.sources) inside(resolve(dirname(abs), s), `source map entry ${s}`);
    } else if (/\.(js|d\.ts)$/.test(file)) {
      // The compiler's own reading of the imports: a comment or a string never counts.
      const { importedFiles } = ts_.preProcessFile(readFileSync(abs, "utf8"), true, true);
      for (const { fileName } of importedFiles.filter((f) => f.fileName.startsWith("."))) {
        const target = resolve(dirname(abs), fileName);
        const typed = file.endsWith(".d.ts") ? target.replace(/\.js$/, ".d.ts") : target;
        inside(typed, `import "${fileName}"`);
      }
    }
  }
}

/** The packages (not relative paths) the .js files under `dir` import, by package name. */
export function bareImports(dir: string): Set<string> {
  const found = new Set<string>();
  for (const file of filesUnder(dir).filter((f) => f.endsWith(".js"))) {
    const { importedFiles } = ts_.preProcessFile(readFileSync(join(dir, file), "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith(".") || fileName.startsWith("node:")) continue;
      const parts = fileName.split("/");
      found.add(fileName.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
    }
  }
  return found;
}
