// The user's `!command` / `!!command` (Agent.userBash, pi's executeBash): the command runs in the
// workspace through the bash tool's backend, is recorded as a bash_execution entry, and the next
// request to the scripted model (real HTTP through pi-ai) carries pi's text of a `!` run and
// nothing of a `!!` run. The session file with such entries opens again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { Agent, buildContext, SessionFile, type SessionEntry } from "../src/index.js";
import { piEntry } from "../src/loop/pi-entries.js";
import { scriptedHome, scriptedModel, scriptedServer, tempWorkspace, until } from "./support/harness.js";

function userTexts(body: Record<string, unknown>): string[] {
  const messages = body["messages"] as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

test("user bash: ! goes into the next request as pi's text, !! is only recorded; the file opens again", async () => {
  const server = await scriptedServer([{ match: "what ran", text: "ok" }]);
  const home = await scriptedHome(server.url);
  const workspace = realpathSync(tempWorkspace());
  const session = await SessionFile.create({ home, workspace });
  const agent = new Agent({ session, model: await scriptedModel(home), maxRetries: 0 });
  try {
    const streamed: string[] = [];
    const shown = await agent.userBash("printf 'one\\n'; pwd; exit 2", { onOutput: (t) => streamed.push(t) });
    assert.deepEqual(
      { output: shown.output, exitCode: shown.exitCode, cancelled: shown.cancelled, by: shown.by },
      { output: `one\n${workspace}`, exitCode: 2, cancelled: false, by: null },
    );
    assert.equal(streamed.join(""), `one\n${workspace}\n`, "the output came as it was printed");
    const hidden = await agent.userBash("echo hidden-output", { excludeFromContext: true });
    assert.equal(hidden.output, "hidden-output");
    await agent.prompt("what ran");
    const sent = userTexts(server.requests[0]!);
    assert.deepEqual(sent, [
      `Ran \`printf 'one\\n'; pwd; exit 2\`\n\`\`\`\none\n${workspace}\n\`\`\`\n\nCommand exited with code 2`,
      "what ran",
    ]);
  } finally {
    await agent.close();
    await server.close();
  }
  const reopened = await SessionFile.open(session.path);
  try {
    const runs = reopened.entries().filter((e) => e.type === "bash_execution");
    assert.deepEqual(
      runs.map((e) => [e.command, e.exit_code, e.exclude_from_context, e.truncated]),
      [
        ["printf 'one\\n'; pwd; exit 2", 2, false, false],
        ["echo hidden-output", 0, true, false],
      ],
    );
    const context = buildContext(reopened.pathToLeaf()).messages.map((m) => JSON.stringify(m.content));
    assert.equal(context.filter((c) => c.includes("hidden-output")).length, 0, "!! stays out after a reload too");
    assert.equal(context.filter((c) => c.includes("Ran `printf")).length, 1);
  } finally {
    await reopened.close();
  }
});

test("user bash: a command run while a prompt streams is recorded after the prompt's entries", async () => {
  const server = await scriptedServer([{ match: "slow", chunks: ["a ", "slow ", "answer"], delay_ms: 300 }]);
  const home = await scriptedHome(server.url);
  const session = await SessionFile.create({ home, workspace: tempWorkspace() });
  const agent = new Agent({ session, model: await scriptedModel(home), maxRetries: 0 });
  try {
    const running = agent.prompt("slow one");
    await until(() => !agent.isIdle(), "the prompt to run");
    const ran = await agent.userBash("echo during");
    assert.equal(ran.output, "during");
    await running;
    const kinds = session
      .pathToLeaf()
      .map((e) => (e.type === "message" ? e.message.role : e.type))
      .filter((k) => k !== "model_change");
    assert.deepEqual(kinds, ["user", "assistant", "bash_execution"]);
  } finally {
    await agent.close();
    await server.close();
  }
});

test("user bash: bash_execution entries are checked; pi extensions read pi's bashExecution message", async () => {
  const session = await SessionFile.create({ home: tempWorkspace(), workspace: tempWorkspace() });
  try {
    const base = { type: "bash_execution", command: "ls", output: "", cancelled: false, truncated: false } as const;
    await assert.rejects(
      session.append({ ...base, exit_code: 0, exclude_from_context: "no" as unknown as boolean }),
      /exclude_from_context.*must be a boolean/,
    );
    await assert.rejects(session.append({ ...base, exit_code: 1.5, exclude_from_context: false }), /exit_code/);
    const entry = await session.append({ ...base, exit_code: null, cancelled: true, exclude_from_context: true });
    const pi = piEntry(entry as SessionEntry);
    assert.equal(pi["type"], "message");
    assert.deepEqual(pi["message"], {
      role: "bashExecution",
      command: "ls",
      output: "",
      exitCode: undefined,
      cancelled: true,
      truncated: false,
      timestamp: entry.timestamp_unix_ms,
      excludeFromContext: true,
    });
  } finally {
    await session.close();
  }
});
