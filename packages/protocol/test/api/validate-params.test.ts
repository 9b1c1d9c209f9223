import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  validateCommandExecuteParams,
  validateContextCollectParams,
  validateHookRunParams,
  validateStatusCollectParams,
  validateToolCallParams,
  validateToolRenderParams,
} from "../../src/api/validate-params.js";
import { accepted, clone, refused } from "../helpers/checked.js";
import {
  COMMAND_EXECUTE_PARAMS,
  CONTEXT_COLLECT_PARAMS,
  HOOK_RUN_PARAMS,
  STATUS_COLLECT_PARAMS,
  TOOL_CALL_PARAMS,
  TOOL_RENDER_PARAMS,
} from "../helpers/spec-fixtures.js";

const CTX = { workspace: "/w", execution_scope: null, host: {} };

test("CALL-01: the tool/call params of the spec are accepted unchanged", () => {
  assert.deepEqual(accepted(validateToolCallParams(TOOL_CALL_PARAMS)), TOOL_CALL_PARAMS);
});

test("CALL-01: name, an arguments object and a context with a workspace and a host object are required", () => {
  const base = { name: "t", arguments: {}, context: CTX };
  accepted(validateToolCallParams(base));
  refused(validateToolCallParams({ ...base, name: undefined }), "name: missing; expected a string");
  refused(validateToolCallParams({ ...base, name: "" }), "name: must not be empty");
  refused(validateToolCallParams({ ...base, arguments: [] }), "arguments: expected an object, got array");
  refused(validateToolCallParams({ ...base, arguments: undefined }), "arguments: missing; expected an object");
  refused(validateToolCallParams({ ...base, context: undefined }), "context: missing; expected an object");
  refused(validateToolCallParams({ ...base, context: { host: {} } }), "context.workspace: missing; expected a string");
  refused(
    validateToolCallParams({ ...base, context: { workspace: "/w" } }),
    "context.host: missing; expected an object",
  );
  refused(
    validateToolCallParams({ ...base, context: { ...CTX, host: { model: 3 } } }),
    "context.host.model: expected a string or null, got number",
  );
  refused(
    validateToolCallParams({ ...base, context: { ...CTX, host: { active_skills: {} } } }),
    "context.host.active_skills: expected an array, got object",
  );
  refused(validateToolCallParams(null), "expected an object, got null");
});

test("CALL-02: execution_scope reads as null whether null, absent or an undefined future value", () => {
  for (const scope of [null, undefined, { kind: "future" }]) {
    const context = scope === undefined ? { workspace: "/w", host: {} } : { ...CTX, execution_scope: scope };
    assert.equal(accepted(validateToolCallParams({ name: "t", arguments: {}, context })).context.execution_scope, null);
  }
});

test("CALL-03: catalog_revision is optional and, when present, an unsigned integer", () => {
  const base = { name: "t", arguments: {}, context: CTX };
  assert.equal("catalog_revision" in accepted(validateToolCallParams(base)), false);
  assert.equal(accepted(validateToolCallParams({ ...base, catalog_revision: 0 })).catalog_revision, 0);
  refused(validateToolCallParams({ ...base, catalog_revision: -1 }), "catalog_revision: -1 is below the minimum 0");
  refused(validateToolCallParams({ ...base, catalog_revision: 1.5 }), "catalog_revision: expected an integer, got 1.5");
  refused(validateToolCallParams({ ...base, catalog_revision: "2" }), 'catalog_revision: expected an integer, got "2"');
});

test("CALL-05: resource_owner, when present, is {session_id, extension_instance_id, process_generation}", () => {
  const owner = TOOL_CALL_PARAMS.context.resource_owner;
  const withOwner = (o: unknown): unknown => ({ name: "t", arguments: {}, context: { ...CTX, resource_owner: o } });
  assert.deepEqual(accepted(validateToolCallParams(withOwner(owner))).context.resource_owner, owner);
  assert.equal(
    "resource_owner" in accepted(validateToolCallParams({ name: "t", arguments: {}, context: CTX })).context,
    false,
  );
  refused(
    validateToolCallParams(withOwner({ ...owner, process_generation: "3" })),
    'context.resource_owner.process_generation: expected an integer, got "3"',
  );
  refused(
    validateToolCallParams(withOwner({ ...owner, session_id: undefined })),
    "context.resource_owner.session_id: missing; expected a string",
  );
  refused(validateToolCallParams(withOwner("owner")), "context.resource_owner: expected an object, got string");
});

test("FRAME-15: unknown members of params, context, host and resource_owner are ignored and not carried over", () => {
  const params = clone(TOOL_CALL_PARAMS) as Record<string, unknown> & {
    context: Record<string, unknown> & { host: Record<string, unknown>; resource_owner: Record<string, unknown> };
  };
  params["trace"] = "x";
  params.context["sandbox"] = { level: 2 };
  params.context.host["theme"] = "dark";
  params.context.resource_owner["lease"] = 1;
  assert.deepEqual(accepted(validateToolCallParams(params)), TOOL_CALL_PARAMS);
});

test("CMD-01: the command/execute params of the spec are accepted; arguments is an array of strings", () => {
  assert.deepEqual(accepted(validateCommandExecuteParams(COMMAND_EXECUTE_PARAMS)), COMMAND_EXECUTE_PARAMS);
  refused(
    validateCommandExecuteParams({ ...COMMAND_EXECUTE_PARAMS, arguments: ["a", 2] }),
    "arguments[1]: expected a string, got number",
  );
  refused(
    validateCommandExecuteParams({ ...COMMAND_EXECUTE_PARAMS, arguments: "a b" }),
    "arguments: expected an array, got string",
  );
  refused(validateCommandExecuteParams({ ...COMMAND_EXECUTE_PARAMS, name: 1 }), "name: expected a string, got number");
  const withOwner = { ...COMMAND_EXECUTE_PARAMS, context: TOOL_CALL_PARAMS.context };
  assert.deepEqual(
    accepted(validateCommandExecuteParams(withOwner)).context.resource_owner,
    TOOL_CALL_PARAMS.context.resource_owner,
  );
});

test("HOOK-01: the hook/run params of the spec are accepted", () => {
  assert.deepEqual(accepted(validateHookRunParams(HOOK_RUN_PARAMS)), HOOK_RUN_PARAMS);
  refused(validateHookRunParams({ ...HOOK_RUN_PARAMS, context: undefined }), "context: missing; expected an object");
  refused(validateHookRunParams({ ...HOOK_RUN_PARAMS, payload: "p" }), "payload: expected an object, got string");
});

test("HOOK-02: only the four legacy hook names are accepted", () => {
  for (const hook of ["provider_retry", "model_turn_start", "before_prompt "]) {
    refused(
      validateHookRunParams({ ...HOOK_RUN_PARAMS, hook }),
      "hook:",
      'is not one of "before_prompt", "after_response", "before_tool_call", "after_tool_call"',
    );
  }
});

test("HOOK-03: before_prompt carries {prompt} and after_response carries {response}", () => {
  accepted(validateHookRunParams({ hook: "after_response", payload: { response: "done" }, context: CTX }));
  refused(
    validateHookRunParams({ hook: "after_response", payload: { prompt: "x" }, context: CTX }),
    "payload.response: missing; expected a string",
  );
  refused(
    validateHookRunParams({ hook: "before_prompt", payload: { prompt: 1 }, context: CTX }),
    "payload.prompt: expected a string, got number",
  );
  // Members of another hook's payload are not carried over.
  assert.deepEqual(
    accepted(validateHookRunParams({ hook: "before_prompt", payload: { prompt: "p", response: "r" }, context: CTX }))
      .payload,
    { prompt: "p" },
  );
});

test("HOOK-04: before_tool_call carries {name, arguments}; after_tool_call adds output and is_error", () => {
  const call = { name: "git_status", arguments: { a: 1 } };
  assert.deepEqual(
    accepted(validateHookRunParams({ hook: "before_tool_call", payload: call, context: CTX })).payload,
    call,
  );
  const after = { ...call, output: "ok", is_error: false };
  assert.deepEqual(
    accepted(validateHookRunParams({ hook: "after_tool_call", payload: after, context: CTX })).payload,
    after,
  );
  refused(
    validateHookRunParams({ hook: "before_tool_call", payload: { name: "t" }, context: CTX }),
    "payload.arguments: missing; expected an object",
  );
  refused(
    validateHookRunParams({ hook: "after_tool_call", payload: call, context: CTX }),
    "payload.output: missing; expected a string",
  );
  refused(
    validateHookRunParams({ hook: "after_tool_call", payload: { ...after, is_error: "no" }, context: CTX }),
    "payload.is_error: expected a boolean, got string",
  );
});

test(
  "CTX-01: the context/collect params of the spec are accepted; prompt is a string or null, absent " +
    "reading as null",
  () => {
    assert.deepEqual(accepted(validateContextCollectParams(CONTEXT_COLLECT_PARAMS)), CONTEXT_COLLECT_PARAMS);
    assert.equal(accepted(validateContextCollectParams({ prompt: "hi", context: CTX })).prompt, "hi");
    assert.equal(accepted(validateContextCollectParams({ context: CTX })).prompt, null);
    refused(validateContextCollectParams({ prompt: 4, context: CTX }), "prompt: expected a string, got number");
  },
);

test("STAT-01: the status/collect params of the spec are accepted; surface is one of status/header/footer", () => {
  assert.deepEqual(accepted(validateStatusCollectParams(STATUS_COLLECT_PARAMS)), STATUS_COLLECT_PARAMS);
  refused(
    validateStatusCollectParams({ ...STATUS_COLLECT_PARAMS, surface: "sidebar" }),
    'surface: "sidebar" is not one of "status", "header", "footer"',
  );
  refused(validateStatusCollectParams({ context: CTX }), "surface: missing");
});

test(
  "REND-01: the tool/render params of the spec are accepted; name, arguments, output and is_error " + "are required",
  () => {
    assert.deepEqual(accepted(validateToolRenderParams(TOOL_RENDER_PARAMS)), TOOL_RENDER_PARAMS);
    refused(
      validateToolRenderParams({ ...TOOL_RENDER_PARAMS, output: undefined }),
      "output: missing; expected a string",
    );
    refused(
      validateToolRenderParams({ ...TOOL_RENDER_PARAMS, is_error: undefined }),
      "is_error: missing; expected a boolean",
    );
    refused(
      validateToolRenderParams({ ...TOOL_RENDER_PARAMS, arguments: null }),
      "arguments: expected an object, got null",
    );
  },
);

test("params validators never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      for (const validate of [
        validateToolCallParams,
        validateCommandExecuteParams,
        validateHookRunParams,
        validateContextCollectParams,
        validateStatusCollectParams,
        validateToolRenderParams,
      ]) {
        validate(v);
        validate({ name: "t", hook: "after_tool_call", surface: "status", arguments: v, payload: w, context: v });
        validate({ name: "t", arguments: {}, context: { workspace: "/w", host: v, resource_owner: w } });
      }
      return true;
    }),
    { numRuns: 300 },
  );
});
