// pi's resources_discover and the working-row UI calls in a real session: pi's shipped
// dynamic-resources (node runtime: it finds its folder with node:url), working-indicator and
// working-message-test, loaded as shipped and driven through `octet run` and the shell over a pipe
// against the scripted OpenAI-compatible server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXAMPLES, session } from "./pi-examples-support.js";

test("pi example dynamic-resources (node): resources_discover after session_start; its paths said as ignored", async () => {
  const t = await session("dynamic-resources", [{ text: "hi" }], { runtime: "node" });
  try {
    const r = await t.octet(["run", "hello"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "hi\n");
    const dir = join(EXAMPLES, "dynamic-resources");
    const said = r.stderr.split("\n").filter((l) => l.includes("octet does not load pi skills/prompts/themes"));
    assert.equal(said.length, 1, r.stderr);
    assert.ok(
      said[0]!.includes(
        `ignored skillPaths [${join(dir, "SKILL.md")}], promptPaths [${join(dir, "dynamic.md")}], ` +
          `themePaths [${join(dir, "dynamic.json")}]`,
      ),
      said[0],
    );
  } finally {
    await t.server.close();
  }
});
