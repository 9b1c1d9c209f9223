/**
 * Params of the host's requests as an extension receives them: tool/call, command/execute,
 * hook/run, context/collect, status/collect and tool/render. The SDK answers a refusal with
 * -32602 (ERR-02). These objects are open (FRAME-15): unknown members, here and inside `context`,
 * are ignored so a newer host can add members without breaking older extensions; the returned
 * value carries only the members this version knows. Routing (is the name in the catalog, was the
 * hook declared) is the dispatcher's, not this file's.
 */
import {
  at,
  finish,
  isAbsent,
  member,
  readArray,
  readBoolean,
  readInteger,
  readObject,
  readOneOf,
  readString,
  readStringArray,
  refuse,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";
import type {
  CommandExecuteParams,
  ContextCollectParams,
  ExecutionContext,
  HookName,
  HookPayload,
  HookRunParams,
  HostState,
  ResourceOwner,
  StatusCollectParams,
  ToolCallParams,
  ToolRenderParams,
} from "./types.js";
import { UI_SURFACES } from "./validate-contributions.js";

/** The hooks both legacy APIs dispatch (HOOK-02). */
export const HOOK_NAMES: readonly HookName[] = [
  "before_prompt",
  "after_response",
  "before_tool_call",
  "after_tool_call",
];

/** tool/call params (CALL-01, CALL-03, CALL-05). */
export function validateToolCallParams(value: unknown): Checked<ToolCallParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const name = readString(p, "name", member(obj, "name"), { nonBlank: true });
  const args = readObject(p, "arguments", member(obj, "arguments"));
  const raw = member(obj, "catalog_revision");
  const revision = isAbsent(raw) ? undefined : readInteger(p, "catalog_revision", raw, 0);
  const context = checkContext(p, member(obj, "context"));
  if (!p.ok || name === undefined || args === undefined || context === undefined) return refuse(p);
  const params: ToolCallParams = { name, arguments: args, context };
  if (revision !== undefined) params.catalog_revision = revision;
  return { ok: true, value: params };
}

/** command/execute params (CMD-01). */
export function validateCommandExecuteParams(value: unknown): Checked<CommandExecuteParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const name = readString(p, "name", member(obj, "name"), { nonBlank: true });
  const args = readStringArray(p, "arguments", member(obj, "arguments"));
  const context = checkContext(p, member(obj, "context"));
  if (name === undefined || args === undefined || context === undefined) return refuse(p);
  return finish(p, { name, arguments: args, context });
}

/** hook/run params (HOOK-01..04): the payload shape follows the hook name. */
export function validateHookRunParams(value: unknown): Checked<HookRunParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const hook = readOneOf(p, "hook", member(obj, "hook"), HOOK_NAMES);
  const payload = hook === undefined ? undefined : checkPayload(p, hook, member(obj, "payload"));
  const context = checkContext(p, member(obj, "context"));
  if (hook === undefined || payload === undefined || context === undefined) return refuse(p);
  return finish(p, { hook, payload, context });
}

function checkPayload(p: Problems, hook: HookName, raw: unknown): HookPayload | undefined {
  const obj = readObject(p, "payload", raw);
  if (obj === undefined) return undefined;
  const str = (key: string): string | undefined => readString(p, at("payload", key), member(obj, key));
  switch (hook) {
    case "before_prompt": {
      const prompt = str("prompt");
      return prompt === undefined ? undefined : { prompt };
    }
    case "after_response": {
      const response = str("response");
      return response === undefined ? undefined : { response };
    }
    case "before_tool_call":
    case "after_tool_call": {
      const name = str("name");
      const args = readObject(p, "payload.arguments", member(obj, "arguments"));
      if (hook === "before_tool_call")
        return name === undefined || args === undefined ? undefined : { name, arguments: args };
      const output = str("output");
      const isError = readBoolean(p, "payload.is_error", member(obj, "is_error"));
      if (name === undefined || args === undefined || output === undefined || isError === undefined) return undefined;
      return { name, arguments: args, output, is_error: isError };
    }
  }
}

/** context/collect params (CTX-01); an absent prompt reads as null. */
export function validateContextCollectParams(value: unknown): Checked<ContextCollectParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const raw = member(obj, "prompt");
  const prompt = isAbsent(raw) ? null : readString(p, "prompt", raw);
  const context = checkContext(p, member(obj, "context"));
  if (prompt === undefined || context === undefined) return refuse(p);
  return finish(p, { prompt, context });
}

/** status/collect params (STAT-01). */
export function validateStatusCollectParams(value: unknown): Checked<StatusCollectParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const surface = readOneOf(p, "surface", member(obj, "surface"), UI_SURFACES);
  const context = checkContext(p, member(obj, "context"));
  if (surface === undefined || context === undefined) return refuse(p);
  return finish(p, { surface, context });
}

/** tool/render params (REND-01). */
export function validateToolRenderParams(value: unknown): Checked<ToolRenderParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const name = readString(p, "name", member(obj, "name"), { nonBlank: true });
  const args = readObject(p, "arguments", member(obj, "arguments"));
  const output = readString(p, "output", member(obj, "output"));
  const isError = readBoolean(p, "is_error", member(obj, "is_error"));
  const context = checkContext(p, member(obj, "context"));
  if (
    name === undefined ||
    args === undefined ||
    output === undefined ||
    isError === undefined ||
    context === undefined
  ) {
    return refuse(p);
  }
  return finish(p, { name, arguments: args, output, is_error: isError, context });
}

/**
 * The execution context every request carries (CALL-01, CALL-02, CALL-05). execution_scope has
 * no defined values yet: whatever arrives reads as null, so a future host value cannot fail a
 * call. host is either the full host state or {} (process-scoped contexts); its known members are
 * type-checked when present and carried over, whatever subset the host chose to send.
 */
export function checkContext(p: Problems, raw: unknown): ExecutionContext | undefined {
  const obj = readObject(p, "context", raw);
  if (obj === undefined) return undefined;
  const workspace = readString(p, "context.workspace", member(obj, "workspace"));
  const host = checkHost(p, member(obj, "host"));
  const ownerRaw = member(obj, "resource_owner");
  const owner = isAbsent(ownerRaw) ? undefined : checkOwner(p, ownerRaw);
  if (workspace === undefined || host === undefined || (owner === undefined && !isAbsent(ownerRaw))) return undefined;
  const context: ExecutionContext = { workspace, execution_scope: null, host };
  if (owner !== undefined) context.resource_owner = owner;
  return context;
}

const NULLABLE_HOST_STRINGS = ["session_id", "session_name", "model", "reasoning"] as const;

function checkHost(p: Problems, raw: unknown): HostState | Record<string, never> | undefined {
  const obj = readObject(p, "context.host", raw);
  if (obj === undefined) return undefined;
  const out: Record<string, unknown> = {};
  let ok = true;
  for (const key of NULLABLE_HOST_STRINGS) {
    const v = member(obj, key);
    if (v === undefined) continue;
    if (v === null || typeof v === "string") out[key] = v;
    else {
      p.add(at("context.host", key), `expected a string or null, got ${describe(v)}`);
      ok = false;
    }
  }
  const skills = member(obj, "active_skills");
  if (skills !== undefined) {
    const list = readArray(p, "context.host.active_skills", skills);
    if (list === undefined) ok = false;
    else out["active_skills"] = list;
  }
  return ok ? (out as HostState | Record<string, never>) : undefined;
}

function checkOwner(p: Problems, raw: unknown): ResourceOwner | undefined {
  const obj = readObject(p, "context.resource_owner", raw);
  if (obj === undefined) return undefined;
  const sessionId = readString(p, "context.resource_owner.session_id", member(obj, "session_id"));
  const instanceId = readString(
    p,
    "context.resource_owner.extension_instance_id",
    member(obj, "extension_instance_id"),
  );
  const generation = readInteger(p, "context.resource_owner.process_generation", member(obj, "process_generation"), 0);
  if (sessionId === undefined || instanceId === undefined || generation === undefined) return undefined;
  return { session_id: sessionId, extension_instance_id: instanceId, process_generation: generation };
}
