/**
 * The host argument validator's refusal (issue 13.2; "the normal host argument validator runs
 * before hooks or effects", COMP-14): arguments that do not match the tool's declared
 * `parameters` are refused with -32602 before any before_tool_call hook, policy check or send,
 * naming the path and the rule ("arguments.name: must be string"). The error's data says what was
 * given there (docs/decisions.md, "The host argument validator"):
 * `{errors: [{path: "arguments.name", rule: "must be string", got: "number 5"}]}`.
 */
import { ErrorCode, WireError } from "@octet/protocol";
import type { ToolSchemas } from "./tool-schemas.js";

/** Characters of a scalar shown in `got`: enough to recognise a value, never a whole document. */
export const MAX_GOT_VALUE_CHARS = 40;

/** One refused argument, as carried in the -32602 error's `data.errors`. */
export interface ArgumentError {
  path: string;
  rule: string;
  got: string;
}

/**
 * What was given, short: the JSON type and, for a scalar, its value cut to 40 characters
 * (`number 5`, `string "abc"`, `boolean true`, `null`, `object`, `array`).
 */
export function describeGot(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") {
    const cut = value.length > MAX_GOT_VALUE_CHARS ? `${value.slice(0, MAX_GOT_VALUE_CHARS)}...` : value;
    return `string ${JSON.stringify(cut)}`;
  }
  if (typeof value === "number" || typeof value === "boolean") {
    const text = String(value);
    return `${typeof value} ${text.length > MAX_GOT_VALUE_CHARS ? `${text.slice(0, MAX_GOT_VALUE_CHARS)}...` : text}`;
  }
  return typeof value === "object" ? "object" : typeof value;
}

/** Throws WireError(-32602) when `args` do not match `tool`'s parameters in `schemas`. */
export function refuseInvalidArguments(tool: string, schemas: ToolSchemas, args: unknown): void {
  const problem = schemas.explainArguments(tool, args);
  if (problem === null) return;
  const error: ArgumentError = { path: problem.path, rule: problem.rule, got: describeGot(problem.value) };
  const message = `invalid arguments for tool "${tool}": ${problem.path}: ${problem.rule}`;
  throw new WireError(ErrorCode.InvalidParams, message, { errors: [error] });
}
