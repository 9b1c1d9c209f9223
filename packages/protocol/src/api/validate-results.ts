/**
 * Results of the host's requests: tool/call, command/execute, hook/run and tool/render. Each
 * validator checks shape and bounds and returns a normalized value with defaults filled in; the
 * contributions embedded in them are checked by validate-contributions.ts. Left to the host:
 * artifact verification and the artifacts feature (CALL-18, CALL-19), output_schema validation of
 * structured_content (schema-check/), and what to do with a refusal (CALL-23).
 */
import {
  MAX_COMMAND_TEXT_BYTES,
  MAX_CONTENT_PARTS,
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_BYTES,
  MAX_RENDER_SEGMENTS,
  MAX_RENDER_TEXT_BYTES,
  MAX_STRUCTURED_CONTENT_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "../bounds.js";
import {
  at,
  checkCount,
  finish,
  index,
  isAbsent,
  member,
  quote,
  readArray,
  readBoolean,
  readObject,
  readOneOf,
  readOptionalString,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { measureJson, type JsonLimits } from "../validate/json-bounds.js";
import { isPlainObject, Problems, utf8ByteLength, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type {
  CommandResult,
  ContentPart,
  HookDisposition,
  HookName,
  HookResult,
  RenderSegment,
  ToolDefinition,
  ToolRenderResult,
} from "./types.js";
import { checkContributions, checkNotifications, readStyleRole } from "./validate-contributions.js";

/** A tool result in one shape for every API version. */
export interface NormalizedToolResult {
  parts: ContentPart[];
  /** The text parts joined with "\n", for display and for text-only consumers. */
  text: string;
  is_error: boolean;
  structured_content?: unknown;
  metadata?: unknown;
}

/** Hooks whose deny the host honors (HOOK-06); on the others a deny is read as continue. */
export const VETO_HOOKS: readonly HookName[] = ["before_prompt", "before_tool_call"];

const STRUCTURED_LIMITS: JsonLimits = {
  maxBytes: MAX_STRUCTURED_CONTENT_BYTES,
  maxDepth: MAX_VALUE_DEPTH,
  maxNodes: MAX_VALUE_NODES,
};
const METADATA_LIMITS: JsonLimits = {
  maxBytes: MAX_METADATA_BYTES,
  maxDepth: MAX_VALUE_DEPTH,
  maxNodes: MAX_VALUE_NODES,
  maxKeyBytes: MAX_METADATA_KEY_BYTES,
};
const PART_MEMBERS: Record<ContentPart["type"], ReadonlySet<string>> = {
  text: new Set(["type", "text"]),
  image: new Set(["type", "artifact_id", "mime_type", "alt"]),
  audio: new Set(["type", "artifact_id", "mime_type", "transcript"]),
};

/**
 * A tool/call result (CALL-12..21). is_error may be absent and then reads as false: the text
 * defines it as "if true, the result is treated as a tool error", so only an explicit true may
 * turn a result into an error. API 0.1 metadata is accepted and dropped (CALL-14). When `tool` is
 * given, structured_content must be present when its output_schema is an object (CALL-20; an error
 * result may leave it out, PY-22), and absent otherwise.
 */
export function validateToolResult(
  value: unknown,
  api: ApiVersion,
  tool?: ToolDefinition,
): Checked<NormalizedToolResult> {
  if (api !== "0.1") {
    const common = textOnlyResult(value, tool);
    if (common !== undefined) return { ok: true, value: common };
  }
  const p = new Problems();
  return finish(p, checkToolResult(p, "", value, api, tool));
}

/**
 * The result nearly every call returns (API 0.2+), proved valid without the problem paths the
 * full check builds as it goes: text parts of exactly {type, text}, no structured_content or
 * metadata, is_error a boolean or absent. Anything else is undefined and takes checkToolResult,
 * which names what is wrong; what this accepts, checkToolResult accepts as the same value (the
 * tests compare the two on generated results).
 */
function textOnlyResult(value: unknown, tool: ToolDefinition | undefined): NormalizedToolResult | undefined {
  if (!isPlainObject(value)) return undefined;
  const flag = member(value, "is_error");
  if (flag !== undefined && flag !== null && typeof flag !== "boolean") return undefined;
  const isError = flag === true;
  if (!isAbsent(member(value, "structured_content")) || !isAbsent(member(value, "metadata"))) return undefined;
  // A tool that declares an output_schema needs structured_content unless the result is an error.
  if (tool !== undefined && isPlainObject(tool.output_schema) && !isError) return undefined;
  const content = member(value, "content");
  if (!Array.isArray(content) || content.length === 0 || content.length > MAX_CONTENT_PARTS) return undefined;
  const parts: ContentPart[] = [];
  let text = "";
  for (let i = 0; i < content.length; i++) {
    const part: unknown = content[i];
    if (!isPlainObject(part) || member(part, "type") !== "text") return undefined;
    const partText = member(part, "text");
    if (typeof partText !== "string" || Object.keys(part).length !== 2) return undefined;
    parts.push({ type: "text", text: partText });
    text = i === 0 ? partText : `${text}\n${partText}`;
  }
  return { parts, text, is_error: isError };
}

/**
 * As validateToolResult, adding problems under `path`; used for the API 0.4 partial_result
 * progress event (PROG-12), which reuses these limits without a `tool` (no output_schema rule).
 */
export function checkToolResult(
  p: Problems,
  path: string,
  value: unknown,
  api: ApiVersion,
  tool?: ToolDefinition,
): NormalizedToolResult | undefined {
  const obj = readObject(p, path, value);
  if (obj === undefined) return undefined;
  const before = p.count;
  const isError = readBoolean(p, at(path, "is_error"), member(obj, "is_error"), false);
  if (api === "0.1") {
    const content = readString(p, at(path, "content"), member(obj, "content"));
    if (content === undefined || isError === undefined) return undefined;
    return { parts: [{ type: "text", text: content }], text: content, is_error: isError };
  }

  const parts = checkParts(p, at(path, "content"), member(obj, "content"));
  const structured = member(obj, "structured_content");
  const metadata = member(obj, "metadata");
  if (!isAbsent(structured)) checkJson(p, at(path, "structured_content"), structured, STRUCTURED_LIMITS);
  if (!isAbsent(metadata)) checkJson(p, at(path, "metadata"), metadata, METADATA_LIMITS);
  if (tool !== undefined) {
    const declares = isPlainObject(tool.output_schema);
    const where = at(path, "structured_content");
    // An error result may omit its structured value (PY-22): a failed call often has none to
    // give, and demanding one would turn its own error text into "invalid result". When present
    // it is still checked against the schema.
    if (declares && isAbsent(structured) && isError !== true)
      p.add(where, `missing; tool ${quote(tool.name)} declares an output_schema`);
    if (!declares && !isAbsent(structured))
      p.add(where, `not allowed; tool ${quote(tool.name)} declares no output_schema`);
  }
  if (p.count !== before || parts === undefined || isError === undefined) return undefined;
  const text = parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const result: NormalizedToolResult = { parts, text, is_error: isError };
  if (!isAbsent(structured)) result.structured_content = structured;
  if (!isAbsent(metadata)) result.metadata = metadata;
  return result;
}

function checkParts(p: Problems, path: string, raw: unknown): ContentPart[] | undefined {
  const list = readArray(p, path, raw);
  if (list === undefined || !checkCount(p, path, list.length, MAX_CONTENT_PARTS, "part")) return undefined;
  if (list.length === 0) {
    p.add(path, "must not be empty");
    return undefined;
  }
  const before = p.count;
  const parts = list.map((item, i) => checkPart(p, index(path, i), item));
  if (p.count !== before) return undefined;
  if (!parts.some((part) => part?.type === "text")) {
    p.add(path, 'no text part; at least one {"type":"text"} part is required');
    return undefined;
  }
  return parts as ContentPart[];
}

function checkPart(p: Problems, path: string, raw: unknown): ContentPart | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const type = readOneOf(p, at(path, "type"), member(obj, "type"), ["text", "image", "audio"] as const);
  if (type === undefined) return undefined;
  rejectUnknown(p, path, obj, PART_MEMBERS[type]);
  if (type === "text") {
    const text = readString(p, at(path, "text"), member(obj, "text"));
    return text === undefined ? undefined : { type, text };
  }
  const artifactId = readString(p, at(path, "artifact_id"), member(obj, "artifact_id"), { nonBlank: true });
  const mimeType = readString(p, at(path, "mime_type"), member(obj, "mime_type"), { nonBlank: true });
  const label = type === "image" ? "alt" : "transcript";
  const extra = readOptionalString(p, at(path, label), member(obj, label));
  if (artifactId === undefined || mimeType === undefined || (extra === undefined && !isAbsent(member(obj, label))))
    return undefined;
  const base = { artifact_id: artifactId, mime_type: mimeType };
  if (type === "image") return extra === undefined ? { type, ...base } : { type, ...base, alt: extra };
  return extra === undefined ? { type, ...base } : { type, ...base, transcript: extra };
}

function checkJson(p: Problems, path: string, v: unknown, limits: JsonLimits): void {
  const r = measureJson(v, limits, path);
  if (!r.ok) p.add(r.path, r.message);
}

/** A command/execute result (CMD-02, CMD-03); absent notifications and context read as []. */
export function validateCommandResult(value: unknown): Checked<CommandResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const text = readString(p, "text", member(obj, "text"), { maxBytes: MAX_COMMAND_TEXT_BYTES });
  const notifications = checkNotifications(p, "notifications", member(obj, "notifications"));
  const context = checkContributions(p, "context", member(obj, "context"), true);
  if (text === undefined || notifications === undefined || context === undefined) return refuse(p);
  return finish(p, { text, notifications, context });
}

/**
 * A hook/run result (HOOK-05). An absent disposition reads as continue. The returned disposition
 * is the effective one: a deny from a hook that cannot veto (HOOK-06) becomes continue, so no
 * caller can honor it by mistake; its reason must still be a string.
 */
export function validateHookResult(value: unknown, hook: HookName): Checked<HookResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const disposition = checkDisposition(p, member(obj, "disposition"), hook);
  const context = checkContributions(p, "context", member(obj, "context"), true);
  const notifications = checkNotifications(p, "notifications", member(obj, "notifications"));
  if (disposition === undefined || context === undefined || notifications === undefined) return refuse(p);
  return finish(p, { disposition, context, notifications });
}

function checkDisposition(p: Problems, raw: unknown, hook: HookName): HookDisposition | undefined {
  if (isAbsent(raw)) return { action: "continue" };
  const obj = readObject(p, "disposition", raw);
  if (obj === undefined) return undefined;
  const action = readOneOf(p, "disposition.action", member(obj, "action"), ["continue", "deny"] as const);
  if (action !== "deny") return action === undefined ? undefined : { action };
  const reason = readString(p, "disposition.reason", member(obj, "reason"));
  if (reason === undefined) return undefined;
  return VETO_HOOKS.includes(hook) ? { action, reason } : { action: "continue" };
}

/** A tool/render result (REND-01), bounded in segments and in the bytes of all their text. */
export function validateRenderResult(value: unknown): Checked<ToolRenderResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const list = readArray(p, "segments", member(obj, "segments"));
  if (list === undefined || !checkCount(p, "segments", list.length, MAX_RENDER_SEGMENTS, "segment")) return refuse(p);
  const segments: RenderSegment[] = [];
  let bytes = 0;
  list.forEach((item, i) => {
    const path = index("segments", i);
    const seg = readObject(p, path, item);
    if (seg === undefined) return;
    const text = readString(p, at(path, "text"), member(seg, "text"));
    const styleRole = readStyleRole(p, at(path, "style_role"), member(seg, "style_role"));
    if (text === undefined || styleRole === undefined) return;
    bytes += utf8ByteLength(text);
    segments.push({ text, style_role: styleRole });
  });
  if (bytes > MAX_RENDER_TEXT_BYTES)
    p.add("segments", `${bytes} bytes of text, over the ${MAX_RENDER_TEXT_BYTES}-byte limit`);
  return finish(p, { segments });
}
