/**
 * Tool and command definitions as an extension declares them in initialize (and, for tools,
 * tools/register): the name grammar, the closed member set per API version, descriptions, the two
 * schemas (delegated to validate-schema.ts), API 0.4 prompt metadata gated by its feature, and
 * the encoded size of a whole tool catalog. Other catalog-level rules (duplicates, counts,
 * equality with the manifest) belong to validate-initialize.ts.
 */
import {
  MAX_DESCRIPTION_BYTES,
  MAX_PROMPT_GUIDELINES,
  MAX_PROMPT_METADATA_BYTES,
  MAX_TOOL_CATALOG_BYTES,
  MAX_TOOL_NAME_BYTES,
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
  readObject,
  readOptionalString,
  readString,
} from "../validate/fields.js";
import { measureJson } from "../validate/json-bounds.js";
import { describe, Problems, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type { CommandDefinition, ToolDefinition } from "./types.js";
import { checkOutputSchema, checkParametersSchema } from "./validate-schema.js";

/** The tool-name grammar of TDEF-08, also used for command names. */
export const TOOL_NAME_PATTERN = `^[A-Za-z0-9_-]{1,${MAX_TOOL_NAME_BYTES}}$`;
const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);

/** True when `name` is a string matching ^[A-Za-z0-9_-]{1,128}$ (TDEF-08). */
export function isValidToolName(name: unknown): boolean {
  return typeof name === "string" && TOOL_NAME.test(name);
}

/**
 * Members a tool definition may carry on each API. Closed: an unknown member is more likely a
 * member of another API version (or a typo of one) than something safe to drop.
 */
const TOOL_MEMBERS: Record<ApiVersion, ReadonlySet<string>> = {
  "0.1": new Set(["name", "description", "parameters"]),
  "0.2": new Set(["name", "description", "parameters", "output_schema"]),
  "0.4": new Set(["name", "description", "parameters", "output_schema", "prompt_snippet", "prompt_guidelines"]),
};

/** The feature that admits prompt_snippet and prompt_guidelines (TDEF-09). */
export const PROMPT_METADATA_FEATURE = "tool_prompt_metadata_v1";

function isPromptMetadata(key: string): boolean {
  return key === "prompt_snippet" || key === "prompt_guidelines";
}

/** Where the text says a member is not allowed, say so instead of "unknown member". */
function versionRule(key: string, api: ApiVersion): string | undefined {
  if (key === "output_schema" && api === "0.1") return "not allowed on API 0.1 (output_schema needs API 0.2+)";
  if (isPromptMetadata(key) && api !== "0.4") return `not allowed on API ${api} (prompt metadata needs API 0.4)`;
  return undefined;
}

/**
 * One tool definition (TDEF-01..11, TDEF-14). `negotiated` is the feature list accepted for this
 * generation (for initialize: the one the same response selects). Prompt metadata is accepted only
 * on API 0.4 with tool_prompt_metadata_v1 in it; declaring it otherwise refuses the definition
 * (TDEF-14), so an extension learns at once that its metadata would not reach the model. On API
 * 0.4 a null member still reads as absent, as everywhere (SDKs serialize unset optionals as null).
 */
export function validateToolDefinition(
  value: unknown,
  api: ApiVersion,
  negotiated: readonly string[] = [],
): Checked<ToolDefinition> {
  const p = new Problems();
  return finish(p, checkToolDefinition(p, "", value, api, negotiated));
}

/** As validateToolDefinition, adding problems under `path` (used for `tools[i]`). */
export function checkToolDefinition(
  p: Problems,
  path: string,
  value: unknown,
  api: ApiVersion,
  negotiated: readonly string[] = [],
): ToolDefinition | undefined {
  const obj = readObject(p, path, value);
  if (obj === undefined) return undefined;
  const before = p.count;
  const allowed = TOOL_MEMBERS[api];
  const promptMetadata = api === "0.4" && negotiated.includes(PROMPT_METADATA_FEATURE);
  for (const key of Object.keys(obj)) {
    if (allowed.has(key)) {
      if (isPromptMetadata(key) && !promptMetadata && !isAbsent(obj[key]))
        p.add(at(path, key), `not allowed without ${PROMPT_METADATA_FEATURE} negotiated`);
      continue;
    }
    p.add(at(path, key), versionRule(key, api) ?? "unknown member");
  }
  const name = checkName(p, at(path, "name"), member(obj, "name"));
  const description = readString(p, at(path, "description"), member(obj, "description"), {
    nonBlank: true,
    maxBytes: MAX_DESCRIPTION_BYTES,
  });
  const parameters = checkParametersSchema(p, at(path, "parameters"), member(obj, "parameters"));
  const extra: Pick<ToolDefinition, "output_schema" | "prompt_snippet" | "prompt_guidelines"> = {};

  if (api !== "0.1" && Object.hasOwn(obj, "output_schema")) {
    const raw = member(obj, "output_schema");
    // null and absent both mean "no structured content" (TDEF-03); null is kept as sent.
    if (raw === null) extra.output_schema = null;
    else if (raw !== undefined) {
      const schema = checkOutputSchema(p, at(path, "output_schema"), raw);
      if (schema !== undefined) extra.output_schema = schema;
    }
  }
  if (promptMetadata) {
    const snippet = member(obj, "prompt_snippet");
    if (!isAbsent(snippet)) {
      const s = checkPromptText(p, at(path, "prompt_snippet"), snippet);
      if (s !== undefined) extra.prompt_snippet = s;
    }
    const guidelines = member(obj, "prompt_guidelines");
    if (!isAbsent(guidelines)) {
      const g = checkGuidelines(p, at(path, "prompt_guidelines"), guidelines);
      if (g !== undefined) extra.prompt_guidelines = g;
    }
  }
  if (name === undefined || description === undefined || parameters === undefined) return undefined;
  const def: ToolDefinition = { name, description, parameters, ...extra };
  return p.count === before ? def : undefined;
}

/**
 * The encoded size of a tool catalog (TDEF-12, TDEF-13): the definitions as sent, prompt metadata
 * included, at most 1 MiB of compact JSON. Initialize and dynamic registration share this check.
 * The walk stops at the bound, so an oversized catalog costs no more than the bound to refuse.
 */
export function checkToolCatalogBytes(p: Problems, path: string, tools: readonly unknown[]): boolean {
  const r = measureJson(tools, { maxBytes: MAX_TOOL_CATALOG_BYTES, maxDepth: Infinity, maxNodes: Infinity }, path);
  if (r.ok) return true;
  p.add(r.path, r.rule === "bytes" ? `tool catalog of ${r.message}` : r.message);
  return false;
}

/**
 * One command definition {name, description, usage} (CMD-04). Unlike tool definitions this shape
 * is the same on every API, so unknown members are ignored (FRAME-15) and not carried over.
 * usage is display text: an absent (or null) usage becomes "/<name>", the least a menu can show;
 * an empty string is kept, since showing nothing is the author's choice.
 */
export function validateCommandDefinition(value: unknown): Checked<CommandDefinition> {
  const p = new Problems();
  return finish(p, checkCommandDefinition(p, "", value));
}

/** As validateCommandDefinition, adding problems under `path` (used for `commands[i]`). */
export function checkCommandDefinition(p: Problems, path: string, value: unknown): CommandDefinition | undefined {
  const obj = readObject(p, path, value);
  if (obj === undefined) return undefined;
  const name = checkName(p, at(path, "name"), member(obj, "name"));
  const description = readString(p, at(path, "description"), member(obj, "description"), {
    nonBlank: true,
    maxBytes: MAX_DESCRIPTION_BYTES,
  });
  const usage = readOptionalString(p, at(path, "usage"), member(obj, "usage"), { maxBytes: MAX_DESCRIPTION_BYTES });
  if (name === undefined || description === undefined) return undefined;
  if (usage === undefined && !isAbsent(member(obj, "usage"))) return undefined;
  return { name, description, usage: usage ?? `/${name}` };
}

function checkName(p: Problems, path: string, v: unknown): string | undefined {
  if (typeof v !== "string") {
    p.add(path, v === undefined ? "missing; expected a string" : `expected a string, got ${describe(v)}`);
    return undefined;
  }
  if (!TOOL_NAME.test(v)) {
    p.add(path, `${quote(v)} does not match ${TOOL_NAME_PATTERN}`);
    return undefined;
  }
  return v;
}

function checkGuidelines(p: Problems, path: string, v: unknown): string[] | undefined {
  const list = readArray(p, path, v);
  if (list === undefined || !checkCount(p, path, list.length, MAX_PROMPT_GUIDELINES, "guideline")) return undefined;
  const out: string[] = [];
  list.forEach((item, i) => {
    const s = checkPromptText(p, index(path, i), item);
    if (s !== undefined) out.push(s);
  });
  return out.length === list.length ? out : undefined;
}

/** Prompt metadata text (TDEF-10, TDEF-11): at most 1,024 bytes, and no control character but LF and TAB. */
function checkPromptText(p: Problems, path: string, v: unknown): string | undefined {
  return readString(p, path, v, { maxBytes: MAX_PROMPT_METADATA_BYTES, plainText: true });
}
