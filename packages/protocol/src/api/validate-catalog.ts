/**
 * The dynamic tool catalog of API 0.2 (CAT-01..18): tools/register and tools/unregister params
 * and their common result. The host checks the request here; what the resulting catalog may hold
 * (the 256 bound of the prospective catalog, name reservation, policy) needs the published state
 * and is the host's. Registration uses the same tool-definition rules as initialize (CAT-18).
 */
import { MAX_TOOLS } from "../bounds.js";
import {
  at,
  checkCount,
  duplicates,
  finish,
  index,
  isAbsent,
  member,
  quoteList,
  readArray,
  readInteger,
  readObject,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type { ToolDefinition } from "./types.js";
import { checkToolCatalogBytes, checkToolDefinition, isValidToolName, TOOL_NAME_PATTERN } from "./validate-tool.js";

export interface ToolsRegisterParams {
  tools: ToolDefinition[];
}

export interface ToolsUnregisterParams {
  names: string[];
}

/** The answer to either mutation: the new epoch and the complete accepted set, authoritative (CAT-08). */
export interface CatalogMutationResult {
  revision: number;
  tools: string[];
}

/**
 * tools/register params (CAT-02..05, CAT-18): complete definitions, unique names, at most 256.
 * Process-scoped (CAT-03): a parent_request_id or resource_owner is an unknown member.
 */
export function validateToolsRegisterParams(
  value: unknown,
  api: ApiVersion,
  negotiated: readonly string[],
): Checked<ToolsRegisterParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["tools"]));
  const list = readArray(p, "tools", member(obj, "tools"));
  if (list === undefined || !checkCount(p, "tools", list.length, MAX_TOOLS, "tool")) return refuse(p);
  const tools: ToolDefinition[] = [];
  list.forEach((item, i) => {
    const t = checkToolDefinition(p, index("tools", i), item, api, negotiated);
    if (t) tools.push(t);
  });
  const dup = duplicates(tools.map((t) => t.name));
  if (dup.length > 0) p.add("tools", `duplicate tool names ${quoteList(dup)}; names in one request must be unique`);
  checkToolCatalogBytes(p, "tools", list);
  return finish(p, { tools });
}

/** tools/unregister params (CAT-11, CAT-12): unique valid tool identifiers, at most 256. */
export function validateToolsUnregisterParams(value: unknown): Checked<ToolsUnregisterParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["names"]));
  const list = readArray(p, "names", member(obj, "names"));
  if (list === undefined || !checkCount(p, "names", list.length, MAX_TOOLS, "name")) return refuse(p);
  const names: string[] = [];
  list.forEach((item, i) => {
    if (!isValidToolName(item))
      p.add(
        index("names", i),
        `${JSON.stringify(item)?.slice(0, 140) ?? String(item)} is not a tool name (${TOOL_NAME_PATTERN})`,
      );
    else names.push(item as string);
  });
  const dup = duplicates(names);
  if (dup.length > 0) p.add("names", `duplicate names ${quoteList(dup)}; names in one request must be unique`);
  return finish(p, { names });
}

/** The mutation result, as the SDK reads it: revision >= 1 and at most 256 unique valid names. */
export function validateCatalogMutationResult(value: unknown): Checked<CatalogMutationResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["revision", "tools"]));
  const revision = readInteger(p, "revision", member(obj, "revision"), 1);
  const raw = member(obj, "tools");
  const list = isAbsent(raw) ? undefined : readArray(p, "tools", raw);
  if (isAbsent(raw)) p.add("tools", "missing; expected the complete accepted list of names");
  const tools: string[] = [];
  if (list && checkCount(p, "tools", list.length, MAX_TOOLS, "tool")) {
    list.forEach((item, i) => {
      if (!isValidToolName(item)) p.add(at("tools", String(i)), "not a tool name");
      else tools.push(item as string);
    });
    const dup = duplicates(tools);
    if (dup.length > 0) p.add("tools", `duplicate names ${quoteList(dup)}`);
  }
  if (revision === undefined) return refuse(p);
  return finish(p, { revision, tools });
}
