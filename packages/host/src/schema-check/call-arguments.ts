/**
 * The host argument validator's refusal (issue 13.2; "the normal host argument validator runs
 * before hooks or effects", COMP-14): arguments that do not match the tool's declared
 * `parameters` are refused with -32602 before any before_tool_call hook, policy check or send,
 * naming the path and the rule ("arguments.name: must be string").
 */
import { ErrorCode, WireError } from "@octet/protocol";
import type { ToolSchemas } from "./tool-schemas.js";

/** Throws WireError(-32602) when `args` do not match `tool`'s parameters in `schemas`. */
export function refuseInvalidArguments(tool: string, schemas: ToolSchemas, args: unknown): void {
  const problem = schemas.checkArguments(tool, args);
  if (problem !== null) throw new WireError(ErrorCode.InvalidParams, `invalid arguments for tool "${tool}": ${problem}`);
}
