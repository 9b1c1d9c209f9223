// pi's resources_discover and the working-row UI calls in a real session: pi's shipped
// dynamic-resources (node runtime: it finds its folder with node:url), working-indicator and
// working-message-test, loaded as shipped and driven through `octet run` and the shell over a pipe
// against the scripted OpenAI-compatible server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXAMPLES, session } from "./pi-examples-support.js";

test("pi example dynamic-resources (node): resources_discover after session_start; paths said ignored", async () => {
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

test("pi example dynamic-resources (node): /reload in the shell sends resources_discover again", async () => {
  const t = await session("dynamic-resources", [{ text: "hi" }, { text: "again" }], { runtime: "node" });
  try {
    const r = await t.octet([], "hello\n/reload\nmore\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    const said = out.split("\n").filter((l) => l.includes("octet does not load pi skills/prompts/themes"));
    assert.equal(said.length, 2, out);
  } finally {
    await t.server.close();
  }
});

test("pi example working-indicator: setWorkingIndicator is accepted, changes nothing; its command runs", async () => {
  const t = await session("working-indicator.ts", [{ text: "answered" }]);
  try {
    const r = await t.octet([], "hello\n/working-indicator pulse\n/working-indicator\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    assert.match(out, /answered/);
    assert.match(out, /Working indicator set to: custom pulse/);
    assert.match(out, /Working indicator: custom pulse/);
    assert.doesNotMatch(out, /setWorkingIndicator|not a function|\[working-indicator\] .*(error|failed)/i);
  } finally {
    await t.server.close();
  }
});

test("pi example working-message-test: setWorkingMessage and setWorkingIndicator in session_start hold", async () => {
  const t = await session("working-message-test.ts", [{ text: "first" }, { text: "second" }]);
  try {
    const r = await t.octet([], "one\ntwo\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /first/);
    assert.match(r.stdout, /second/);
    assert.equal(t.server.requests.length, 2);
    assert.doesNotMatch(r.stdout + r.stderr, /setWorking|not a function|failed/i);
  } finally {
    await t.server.close();
  }
});
