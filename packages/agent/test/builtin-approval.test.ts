import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePolicyRules } from "@octet/host";
import { type ApprovalAnswer, type ApprovalQuestion, ToolApproval, builtinTool } from "../src/tools/index.js";

const read = builtinTool("read")!;
const write = builtinTool("write")!;
const edit = builtinTool("edit")!;
const bash = builtinTool("bash")!;
const live = () => new AbortController().signal;
const writeArgs = { path: "a.txt", content: "x\n" };

/** An ask that answers from a script and records every question. */
function scripted(...answers: ApprovalAnswer[]): {
  asked: ApprovalQuestion[];
  ask: (q: ApprovalQuestion) => Promise<ApprovalAnswer>;
} {
  const asked: ApprovalQuestion[] = [];
  return {
    asked,
    ask: async (q) => {
      asked.push(q);
      const a = answers.shift();
      if (a === undefined) throw new Error(`asked more often than scripted: ${q.summary}`);
      return a;
    },
  };
}

test("approval: read is approved without asking, even under --no-input and a deny-all policy", async () => {
  const rules = parsePolicyRules('default = "deny"\n[operations]\n"*" = "deny"\n', "toml");
  const gate = new ToolApproval({ yes: false, noInput: true, rules, ask: scripted().ask });
  assert.equal(await gate.check(read, { path: "a.txt" }, live()), null);
});

test("approval: a policy deny refuses, naming the operation, even with --yes", async () => {
  const rules = parsePolicyRules('[operations]\n"builtin.bash" = "deny"\n"builtin.*" = "allow"\n', "toml");
  const { asked, ask } = scripted();
  const gate = new ToolApproval({ yes: true, noInput: false, rules, ask });
  const refusal = await gate.check(bash, { command: "ls" }, live());
  assert.match(refusal ?? "", /^bash was not run: denied by the policy file \(builtin\.bash = deny\)/);
  assert.equal(await gate.check(write, writeArgs, live()), null);
  assert.equal(asked.length, 0);
});

test("approval: a policy without a rule for builtin.* falls to its default, deny (fail closed)", async () => {
  const rules = parsePolicyRules('{"operations": {"browser.*": "allow"}}', "json");
  const gate = new ToolApproval({ yes: true, noInput: false, rules, ask: scripted().ask });
  assert.match((await gate.check(edit, {}, live())) ?? "", /denied by the policy file \(builtin\.edit = deny\)/);
});

test("approval: a policy allow approves without asking, even under --no-input", async () => {
  const rules = parsePolicyRules('[operations]\n"builtin.write" = "allow"\n', "toml");
  const { asked, ask } = scripted();
  const gate = new ToolApproval({ yes: false, noInput: true, rules, ask });
  assert.equal(await gate.check(write, writeArgs, live()), null);
  assert.equal(asked.length, 0);
  // builtin.bash has no rule: the default (deny) applies.
  assert.match((await gate.check(bash, { command: "ls" }, live())) ?? "", /builtin\.bash = deny/);
});

test("approval: a policy ask falls through to the person, who is asked with the summary and operation", async () => {
  const rules = parsePolicyRules('[operations]\n"builtin.*" = "ask"\n', "toml");
  const { asked, ask } = scripted("yes");
  const gate = new ToolApproval({ yes: false, noInput: false, rules, ask });
  assert.equal(await gate.check(bash, { command: "make test" }, live()), null);
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.tool, "bash");
  assert.equal(asked[0]!.operation, "builtin.bash");
  assert.equal(asked[0]!.summary, "bash: make test");
});

test("approval: --yes approves everything and notes it once per tool", async () => {
  const notes: string[] = [];
  const { asked, ask } = scripted();
  const gate = new ToolApproval({ yes: true, noInput: false, ask, onNote: (t) => notes.push(t) });
  for (const tool of [write, write, bash]) assert.equal(await gate.check(tool, {}, live()), null);
  assert.deepEqual(notes, ["--yes: write calls run without asking", "--yes: bash calls run without asking"]);
  assert.equal(asked.length, 0);
});

test("approval: 'always' approves that tool for the rest of the session, and only that tool", async () => {
  const { asked, ask } = scripted("always", "no");
  const gate = new ToolApproval({ yes: false, noInput: false, ask });
  assert.equal(await gate.check(write, writeArgs, live()), null);
  assert.equal(await gate.check(write, { path: "b.txt", content: "" }, live()), null);
  assert.match((await gate.check(edit, { path: "a.txt", old_text: "x", new_text: "y" }, live())) ?? "", /declined/);
  assert.deepEqual(
    asked.map((q) => q.tool),
    ["write", "edit"],
  );
});

test("approval: 'yes' approves once and 'no' refuses; each call is asked again", async () => {
  const { asked, ask } = scripted("yes", "no");
  const gate = new ToolApproval({ yes: false, noInput: false, ask });
  assert.equal(await gate.check(bash, { command: "ls" }, live()), null);
  const refusal = await gate.check(bash, { command: "rm x" }, live());
  assert.equal(
    refusal,
    "bash was not run: the user declined it (bash: rm x). Do not retry the same call; ask the user",
  );
  assert.equal(asked.length, 2);
});

test("approval: --no-input refuses with how to allow it; so does a gate with no way to ask", async () => {
  const { asked, ask } = scripted();
  const noInput = new ToolApproval({ yes: false, noInput: true, ask });
  assert.equal(
    await noInput.check(write, writeArgs, live()),
    "write was not run: it needs approval and --no-input is set. To allow it, run with --yes, answer 'always' at " +
      "the prompt, or allow builtin.write in a --policy file",
  );
  assert.equal(asked.length, 0);
  const noAsk = new ToolApproval({ yes: false, noInput: false });
  assert.match(
    (await noAsk.check(edit, {}, live())) ?? "",
    /needs approval and there is no one to ask\. To allow it, .* allow builtin\.edit in a --policy file$/,
  );
});

test("approval: a cancelled or failing prompt refuses instead of approving", async () => {
  const aborted = new AbortController();
  aborted.abort();
  const gate = new ToolApproval({ yes: false, noInput: false, ask: scripted("yes").ask });
  assert.equal(
    await gate.check(bash, { command: "ls" }, aborted.signal),
    "bash was not run: cancelled before it was approved",
  );
  const during = new AbortController();
  const cancelling = new ToolApproval({
    yes: false,
    noInput: false,
    ask: (q) =>
      new Promise((_, reject) => {
        q.signal.addEventListener("abort", () => reject(new Error("prompt closed")));
        during.abort();
      }),
  });
  assert.equal(
    await cancelling.check(write, writeArgs, during.signal),
    "write was not run: cancelled before it was approved",
  );
  const broken = new ToolApproval({
    yes: false,
    noInput: false,
    ask: async () => {
      throw new Error("the terminal went away");
    },
  });
  assert.equal(
    await broken.check(write, writeArgs, live()),
    "write was not run: the approval prompt failed (the terminal went away)",
  );
});
