// The README's "Embedding the agent" example is real code: it is taken from the README as written
// and run against the scripted model server (issue 15.7).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";

function readmeExample(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Embedding the agent"));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(m, "the section has a js example");
  return m[1]!;
}

test("issue 15.7: the README's embedding example runs: a prompt, the extension's tool, the answer", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = await mod.startScriptedServer({
    script: mod.loadScript(join(ROOT, "examples/scripted-model/demo.json")),
  });
  const home = mkdtempSync(join(tmpdir(), "octet-embed-doc-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  // Inside the repository, so the example's imports resolve as they would in a project using octet.
  const file = join(ROOT, `.embed-example-${process.pid}.mjs`);
  writeFileSync(file, readmeExample());
  try {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [file], {
        cwd: ROOT,
        env: { ...process.env, OCTET_HOME: home, MODEL: "scripted/scripted-model" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /\[hello_world\] \{"name":"octet"\}/);
    assert.match(out.stdout, /Hello, octet! Greetings from the hello-world extension\./);
    assert.match(out.stdout, /completed: 2 requests/);
  } finally {
    rmSync(file, { force: true });
    rmSync(home, { recursive: true, force: true });
    await server.close();
  }
});
