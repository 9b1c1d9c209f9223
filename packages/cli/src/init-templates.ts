/**
 * The files `octet init` writes, per kind. Each template is a working extension with a test that
 * runs it under the real host: @octet/extension/testing for TypeScript and pi, and
 * octet_extension.testing (through the `octet` command) for Python.
 */

export type InitKind = "ts" | "python" | "pi";

/** Where the octet packages come from: the registry at this version, or local files (OCTET_INIT_TARBALLS). */
export interface PackageSource {
  /** An npm dependency spec for package `name` (e.g. "@octet/cli"): "0.1.0" or "file:/abs/octet-cli-0.1.0.tgz". */
  npm(name: string): string;
  /** The pip requirement line of the Python SDK. */
  pip: string;
  /** True when the specs are local files: every @octet package is then pinned with npm overrides too. */
  local: boolean;
}

export interface TemplateVars {
  name: string;
  /** The name as an identifier part: "my-ext" gives "my_ext" (tool names). */
  ident: string;
  version: string;
  source: PackageSource;
}

/** Every @octet package, so that local tarballs also replace the ones the others depend on. */
const ALL_PACKAGES = ["@octet/protocol", "@octet/extension", "@octet/host", "@octet/rpi", "@octet/agent", "@octet/cli"];

function packageJson(v: TemplateVars, body: Record<string, unknown>): string {
  const overrides = v.source.local
    ? { overrides: Object.fromEntries(ALL_PACKAGES.map((p) => [p, v.source.npm(p)])) }
    : {};
  return (
    JSON.stringify({ name: v.name, version: "0.1.0", private: true, type: "module", ...body, ...overrides }, null, 2) +
    "\n"
  );
}

const deps = (v: TemplateVars, names: string[]): Record<string, string> =>
  Object.fromEntries(names.map((n) => [n, v.source.npm(n)]));

const TS_TEST = (
  v: TemplateVars,
): string => `// Runs the extension under the real octet host: npm test (after npm run build).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startExtension } from "@octet/extension/testing";

const folder = fileURLToPath(new URL("..", import.meta.url));
let ext;
before(async () => {
  ext = await startExtension(folder);
});
after(() => ext?.close());

test("${v.ident}_greet greets by name", async () => {
  const result = await ext.call("${v.ident}_greet", { name: "octet" });
  assert.equal(result.isError, false);
  assert.equal(result.text, "Hello, octet!");
});

test("the host refuses a call without the required name", async () => {
  await assert.rejects(ext.call("${v.ident}_greet", {}), /name/);
});

test("/${v.name} answers", async () => {
  const result = await ext.command("${v.name}", ["you"]);
  assert.equal(result.text, "Hello from ${v.name}, you!");
});
`;

const MANIFEST = (
  v: TemplateVars,
  command: string,
  args: string,
): string => `# The manifest octet reads: see the octet README, "extension.toml".
name = "${v.name}"
version = "0.1.0"
api_version = "0.4"

[entrypoint]
# "./" paths are resolved against this folder; the working directory is the workspace.
command = "${command}"
args = [${args}]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
tools = ["${v.ident}_greet"]
commands = ["${v.name}"]
`;

function tsFiles(v: TemplateVars): Record<string, string> {
  return {
    "package.json": packageJson(v, {
      scripts: {
        build: "tsc",
        test: "npm run build && node --test",
        validate: "octet --extension-dir . extensions validate",
      },
      dependencies: deps(v, ["@octet/extension"]),
      devDependencies: {
        ...deps(v, ["@octet/cli", "@octet/host"]),
        "@types/node": "20.19.8",
        typescript: "5.9.3",
      },
    }),
    "tsconfig.json":
      JSON.stringify(
        {
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            rootDir: "src",
            outDir: "dist",
            types: ["node"],
          },
          include: ["src"],
        },
        null,
        2,
      ) + "\n",
    "extension.toml": MANIFEST(v, "node", '"./dist/extension.js"'),
    "src/extension.ts": `import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4" });

ext.tool(
  {
    name: "${v.ident}_greet",
    description: "Greet someone by name",
    parameters: {
      type: "object",
      properties: { name: { type: "string", description: "Who to greet" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  (args) => \`Hello, \${String(args["name"])}!\`,
);

ext.command({ name: "${v.name}", description: "Say hello", usage: "/${v.name} [name]" }, (args) => ({
  text: \`Hello from ${v.name}, \${args.join(" ") || "you"}!\`,
}));

void ext.run();
`,
    "test/extension.test.mjs": TS_TEST(v),
    ".gitignore": "node_modules/\ndist/\n",
    "README.md": readme(v, "TypeScript", [
      "npm install                 # @octet/extension, and @octet/cli + @octet/host for the tests",
      "npm test                    # tsc, then test/*.test.mjs under the real host",
      "npx octet --extension-dir . extensions validate",
      `npx octet --extension-dir . --enable-extension ${v.name} call ${v.ident}_greet '{"name":"you"}'`,
    ]),
  };
}

function pythonFiles(v: TemplateVars): Record<string, string> {
  return {
    "extension.toml": MANIFEST(v, "./.venv/bin/python", '"./extension.py"'),
    "extension.py": `from octet_extension import Extension

ext = Extension(api_version="0.4")


@ext.tool(
    name="${v.ident}_greet",
    description="Greet someone by name",
    parameters={
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Who to greet"}},
        "required": ["name"],
        "additionalProperties": False,
    },
)
def greet(args):
    return f"Hello, {args['name']}!"


@ext.command(name="${v.name}", description="Say hello", usage="/${v.name} [name]")
def hello(args):
    return f"Hello from ${v.name}, {' '.join(args) or 'you'}!"


if __name__ == "__main__":
    ext.run()
`,
    "test_extension.py": `"""Runs the extension under the real octet host: .venv/bin/python -m unittest"""
import os
import unittest

from octet_extension.testing import ExtensionUnderTest

HERE = os.path.dirname(os.path.abspath(__file__))


class ExtensionTest(unittest.TestCase):
    ext = ExtensionUnderTest(HERE)

    def test_greet(self):
        result = self.ext.call("${v.ident}_greet", {"name": "octet"})
        self.assertFalse(result.is_error)
        self.assertEqual(result.text, "Hello, octet!")

    def test_required_name(self):
        with self.assertRaisesRegex(Exception, "name"):
            self.ext.call("${v.ident}_greet", {})

    def test_command(self):
        self.assertEqual(self.ext.command("${v.name}", "you")["text"], "Hello from ${v.name}, you!")

    def test_manifest_is_valid(self):
        self.assertTrue(self.ext.validate()["valid"])


if __name__ == "__main__":
    unittest.main()
`,
    "requirements.txt": `${v.source.pip}\n`,
    ".gitignore": ".venv/\n__pycache__/\n",
    "README.md": readme(v, "Python", [
      "python3 -m venv .venv       # Debian/Ubuntu: apt-get install python3-venv first",
      ".venv/bin/python -m pip install -r requirements.txt",
      "npm install -g @octet/cli   # the tests run the extension under the octet command",
      ".venv/bin/python -m unittest   # (or python3 -m unittest with the venv activated)",
      "octet --extension-dir . extensions validate",
      `octet --extension-dir . --enable-extension ${v.name} call ${v.ident}_greet '{"name":"you"}'`,
    ]),
  };
}

function piFiles(v: TemplateVars): Record<string, string> {
  return {
    "index.ts": `// A pi extension: pi loads it with \`pi -e .\`, octet with \`octet --pi-extension .\`, in its
// QuickJS sandbox (no filesystem, no network; --pi-runtime node gives pi's full API).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "${v.ident}_greet",
    label: "Greet",
    description: "Greet someone by name",
    parameters: Type.Object({ name: Type.String({ description: "Who to greet" }) }),
    async execute(_toolCallId, params) {
      return { content: [{ type: "text", text: \`Hello, \${params.name}!\` }], details: {} };
    },
  });

  pi.registerCommand("${v.name}", {
    description: "Say hello",
    handler: async (args, ctx) => {
      ctx.ui.notify(\`Hello from ${v.name}, \${String(args ?? "").trim() || "you"}!\`, "info");
    },
  });
}
`,
    "package.json": packageJson(v, {
      scripts: { test: "node --test", validate: "octet --pi-extension . extensions validate" },
      devDependencies: deps(v, ["@octet/cli", "@octet/extension", "@octet/host", "@octet/rpi"]),
    }),
    "test/extension.test.mjs": `// Runs the pi extension under the real octet host, as octet --pi-extension . loads it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startExtension } from "@octet/extension/testing";

const folder = fileURLToPath(new URL("..", import.meta.url));
let ext;
before(async () => {
  ext = await startExtension(folder);
});
after(() => ext?.close());

test("${v.ident}_greet greets by name", async () => {
  const result = await ext.call("${v.ident}_greet", { name: "octet" });
  assert.equal(result.isError, false);
  assert.equal(result.text, "Hello, octet!");
});

test("/${v.name} notifies", async () => {
  const result = await ext.command("${v.name}", ["you"]);
  const said = [...result.notifications, ...ext.notifications].map((n) => n.title + " " + (n.message ?? ""));
  assert.match(said.join("\\n"), /Hello from ${v.name}, you!/);
});
`,
    ".gitignore": "node_modules/\n",
    "README.md": readme(v, "pi", [
      "npm install                 # @octet/cli, and the test harness with @octet/host and @octet/rpi",
      "npm test                    # test/*.test.mjs: the extension in octet's QuickJS sandbox",
      "npx octet --pi-extension . extensions validate",
      `npx octet --pi-extension . call ${v.ident}_greet '{"name":"you"}'`,
      "npx octet --pi-extension .    # the shell with it (pi: pi -e .)",
    ]),
  };
}

function readme(v: TemplateVars, kind: string, commands: string[]): string {
  return `# ${v.name}

An octet extension in ${kind}, made by \`octet init\`: one tool (\`${v.ident}_greet\`) and one slash
command (\`/${v.name}\`), with a test that runs it under the real octet host.

\`\`\`sh
${commands.join("\n")}
\`\`\`

${
  kind === "pi"
    ? `Use it from anywhere: \`octet --pi-extension /path/to/${v.name}\` (and in pi: \`pi -e /path/to/${v.name}\`).`
    : `Use it from anywhere: \`octet --extension-dir /path/to/${v.name} --enable-extension ${v.name}\`, or copy\n` +
      `the folder to ~/.octet/extensions/ and pass \`--enable-extension ${v.name}\`.`
}
`;
}

export function templateFiles(kind: InitKind, vars: TemplateVars): Record<string, string> {
  return kind === "ts" ? tsFiles(vars) : kind === "python" ? pythonFiles(vars) : piFiles(vars);
}
