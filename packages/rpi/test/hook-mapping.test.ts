import { test } from "node:test";
import assert from "node:assert/strict";
import {
  lifecycleEventData,
  lifecycleSubscriptions,
  octetHookResult,
  octetHooksFor,
  piCallsFor,
} from "../src/octet/hook-mapping.js";

test("QJS-13: pi hook events map onto octet hooks, and only the hooked ones are called", () => {
  assert.deepEqual(octetHooksFor(["tool_call", "input", "before_agent_start", "agent_end", "turn_start"]).sort(), [
    "after_response",
    "before_prompt",
    "before_tool_call",
  ]);
  assert.deepEqual(piCallsFor("before_tool_call", { name: "bash", arguments: { command: "ls" } }, ["tool_call"]), [
    { event: "tool_call", data: { toolName: "bash", input: { command: "ls" } } },
  ]);
  assert.deepEqual(piCallsFor("before_tool_call", { name: "bash", arguments: {} }, ["input"]), []);
  assert.deepEqual(
    piCallsFor("before_prompt", { prompt: "hi" }, ["input", "before_agent_start"]).map((c) => c.event),
    ["input", "before_agent_start"],
  );
  assert.deepEqual(piCallsFor("before_prompt", { prompt: "hi" }, ["before_agent_start"])[0]!.data, {
    prompt: "hi",
    systemPrompt: "",
  });
});

test("QJS-13: tool_call block denies; an edited input is refused (fail closed); an unchanged one passes", () => {
  const data = { toolName: "bash", input: { command: "rm -rf /" } };
  assert.deepEqual(
    octetHookResult([{ event: "tool_call", value: { block: true, reason: "no" }, data }]).result.disposition,
    { action: "deny", reason: "no" },
  );
  assert.deepEqual(octetHookResult([{ event: "tool_call", value: { block: true }, data }]).result.disposition, {
    action: "deny",
    reason: "blocked by a tool_call hook",
  });
  const edited = octetHookResult([{ event: "tool_call", value: { input: { command: "rm -rf ./tmp" } }, data }]).result
    .disposition;
  assert.equal(edited.action, "deny");
  assert.match((edited as { reason: string }).reason, /changed the tool's arguments, which octet cannot apply/);
  assert.deepEqual(
    octetHookResult([{ event: "tool_call", value: { input: { command: "rm -rf /" } }, data }]).result.disposition,
    { action: "continue" },
  );
  assert.deepEqual(octetHookResult([{ event: "tool_call", value: null, data }]).result.disposition, {
    action: "continue",
  });
});

test(
  "QJS-13, issue 13.5: before_agent_start's systemPrompt and messages become context; input handled and transform " +
    "deny; a tool_result rewrite is refused aloud",
  () => {
    const { result } = octetHookResult([
      {
        event: "before_agent_start",
        value: {
          systemPrompt: "\nBe terse.",
          messages: [{ role: "custom", content: "remember X" }, { content: [{ type: "text", text: "and Y" }] }],
        },
        data: {},
      },
    ]);
    assert.deepEqual(result.context, [
      { label: "system prompt", content: "Be terse.", placement: "system_suffix" },
      { label: "message", content: "remember X", placement: "prompt_prefix" },
      { label: "message", content: "and Y", placement: "prompt_prefix" },
    ]);
    assert.deepEqual(octetHookResult([{ event: "input", value: { action: "handled" }, data: {} }]).result.disposition, {
      action: "deny",
      reason: "handled by the extension's input hook",
    });
    const t = octetHookResult([{ event: "input", value: { action: "transform", text: "x" }, data: {} }]);
    assert.equal(t.result.disposition.action, "deny");
    assert.match(
      t.result.disposition.action === "deny" ? t.result.disposition.reason : "",
      /input hook transformed the prompt.*refused rather than sent unchanged/,
    );
    assert.match(t.unapplied[0]!, /refused the prompt/);
    const r = octetHookResult([
      { event: "tool_result", value: { content: [{ type: "text", text: "[redacted]" }] }, data: { toolName: "read" } },
    ]);
    assert.deepEqual(r.result.disposition, { action: "continue" });
    assert.match(r.unapplied[0]!, /tool_result hook rewrote the result of tool "read".*refused/);
    assert.deepEqual(
      octetHookResult([{ event: "tool_result", value: null, data: { toolName: "read" } }]).unapplied,
      [],
    );
  },
);

test("QJS-08: lifecycle notifications become pi events with pi's field names", () => {
  assert.deepEqual(lifecycleSubscriptions(["session_start", "tool_execution_end"]), [
    "session/started",
    "tool/settled",
  ]);
  assert.deepEqual(
    lifecycleEventData("tool/settled", {
      session_id: "s",
      run_id: "r",
      turn_id: "t",
      tool_call_id: "c",
      tool_name: "bash",
      outcome: "failed",
      duration_ms: 3,
      reason: "boom",
    }),
    {
      sessionId: "s",
      turnId: "t",
      toolCallId: "c",
      toolName: "bash",
      outcome: "failed",
      isError: true,
      reason: "boom",
    },
  );
});

test(
  "issue 13.5 (review): a transform that leaves the prompt as it was, and a tool_result handed back unchanged, " +
    "are not refusals",
  () => {
    const same = octetHookResult([
      {
        event: "input",
        value: { action: "transform", text: "hello there" },
        data: { text: "hello there", source: "interactive" },
      },
    ]);
    assert.equal(same.result.disposition.action, "continue");
    assert.deepEqual(same.unapplied, []);
    const changed = octetHookResult([
      {
        event: "input",
        value: { action: "transform", text: "hello [redacted]" },
        data: { text: "hello there", source: "interactive" },
      },
    ]);
    assert.equal(changed.result.disposition.action, "deny");
    const content = [{ type: "text", text: "out" }];
    const unchanged = octetHookResult([
      {
        event: "tool_result",
        value: { content, isError: false },
        data: { toolName: "read", input: {}, content, isError: false },
      },
    ]);
    assert.deepEqual(unchanged.unapplied, []);
    const flipped = octetHookResult([
      {
        event: "tool_result",
        value: { content, isError: true },
        data: { toolName: "read", input: {}, content, isError: false },
      },
    ]);
    assert.equal(flipped.unapplied.length, 1);
  },
);
