/**
 * `octet init [--ts | --python | --pi] NAME`: scaffolds a folder NAME holding a working extension
 * (manifest, source, a test under the real host, README, .gitignore) that passes its own test
 * and `octet extensions validate` at once. It parses its own flags: init takes none of the
 * global ones, and keeping them here leaves args.ts to the commands that start a host.
 *
 * The octet packages are pinned to this CLI's version. OCTET_INIT_TARBALLS=DIR points the
 * template at local files instead (the `npm pack` tarballs and the Python wheel in DIR): how the
 * templates are tested before the packages are published, and how to try unreleased builds.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { OCTET_VERSION } from "@octet/protocol";
import { EXIT_OK } from "./exit-codes.js";
import { COMMAND_HELP } from "./help.js";
import { type InitKind, type PackageSource, templateFiles } from "./init-templates.js";
import { UsageError } from "./usage-error.js";

/** The manifest's name rule (extension.toml's, also a valid npm package name and pi id). */
const NAME_RULE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** The Python SDK's distribution and version (sdk/python/pyproject.toml). */
const PY_DIST = "octet-extension-sdk";
const PY_VERSION = "0.9.5";

export async function initCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        ts: { type: "boolean" },
        python: { type: "boolean" },
        pi: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError(`init: ${err instanceof Error ? err.message.replace(/\. To specify.*$/s, "") : String(err)}`);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(COMMAND_HELP["init"]!);
    return EXIT_OK;
  }
  const kinds = (["ts", "python", "pi"] as const).filter((k) => v[k] === true);
  if (kinds.length > 1)
    throw new UsageError(`init takes one of --ts, --python, --pi; got ${kinds.map((k) => `--${k}`).join(" ")}`);
  const kind: InitKind = kinds[0] ?? "ts";
  const [target, ...extra] = parsed.positionals;
  if (target === undefined) throw new UsageError("init needs a NAME: octet init [--ts | --python | --pi] NAME");
  if (extra.length > 0) throw new UsageError(`init takes one NAME; got extra arguments: ${extra.join(" ")}`);
  const folder = resolve(target);
  const name = basename(folder);
  if (!NAME_RULE.test(name))
    throw new UsageError(
      `init: ${JSON.stringify(name)} is not a valid extension name: it must start with a lowercase letter or digit ` +
        'and hold only lowercase letters, digits, "-" and "_" (at most 64), e.g. my-ext',
    );
  if (existsSync(folder)) {
    if (!statSync(folder).isDirectory()) throw new UsageError(`init: ${folder} exists and is a file`);
    if (readdirSync(folder).length > 0)
      throw new UsageError(`init: ${folder} exists and is not empty; choose a new NAME or empty the folder`);
  }
  const source = packageSource(process.env["OCTET_INIT_TARBALLS"]);
  const files = templateFiles(kind, { name, ident: name.replace(/-/g, "_"), version: OCTET_VERSION, source });
  for (const [path, text] of Object.entries(files)) {
    const file = join(folder, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text, { flag: "wx" });
  }
  process.stdout.write(nextSteps(kind, name, relative(process.cwd(), folder) || ".", source, Object.keys(files)));
  return EXIT_OK;
}

function packageSource(dir: string | undefined): PackageSource {
  if (dir === undefined || dir === "") {
    return { npm: () => OCTET_VERSION, pip: `${PY_DIST}==${PY_VERSION}`, local: false };
  }
  const abs = resolve(dir);
  const need = (file: string): string => {
    const path = join(abs, file);
    if (!existsSync(path)) {
      const found = existsSync(abs) ? readdirSync(abs).join(", ") || "nothing" : "no such folder";
      throw new UsageError(
        `OCTET_INIT_TARBALLS=${dir}: ${file} is not there (expected the npm pack tarballs of octet ` +
          `${OCTET_VERSION} and the Python wheel; found: ${found})`,
      );
    }
    return path;
  };
  // npm pack names @octet/cli's tarball octet-cli-VERSION.tgz.
  const tarball = (pkg: string): string =>
    `file:${need(`${pkg.replace(/^@/, "").replace("/", "-")}-${OCTET_VERSION}.tgz`)}`;
  const wheel = `${PY_DIST.replace(/-/g, "_")}-${PY_VERSION}-py3-none-any.whl`;
  return {
    npm: tarball,
    // Checked only when a Python template asks for it, so an npm-only folder of tarballs serves TS and pi.
    get pip() {
      return `${PY_DIST} @ file://${need(wheel)}`;
    },
    local: true,
  };
}

function nextSteps(kind: InitKind, name: string, shown: string, source: PackageSource, files: string[]): string {
  const steps =
    kind === "python"
      ? [
          `cd ${shown}`,
          "python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt",
          ".venv/bin/python -m unittest      # needs the octet command on PATH (npm install -g @octet/cli)",
        ]
      : [`cd ${shown}`, "npm install", "npm test"];
  const what = kind === "ts" ? "a TypeScript" : kind === "python" ? "a Python" : "a pi";
  const shell =
    kind === "pi"
      ? "npx octet --pi-extension ."
      : `${kind === "python" ? "" : "npx "}octet --extension-dir . --enable-extension ${name}`;
  return (
    `Created ${what} extension "${name}" in ${shown}:\n` +
    files.map((f) => `  ${f}\n`).join("") +
    `${source.local ? `(octet packages from OCTET_INIT_TARBALLS=${process.env["OCTET_INIT_TARBALLS"]})\n` : ""}` +
    "\nNext steps:\n" +
    steps.map((s) => `  ${s}\n`).join("") +
    `  ${shell}      # the shell, with your extension\n`
  );
}
