/**
 * The built-in tools (read, write, edit, bash) and their approval gate. Every path resolves inside
 * the workspace; write, edit and bash pass ToolApproval before they run.
 */
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { readTool } from "./read.js";
import type { BuiltinTool } from "./types.js";
import { writeTool } from "./write.js";

export const BUILTIN_TOOLS: readonly BuiltinTool[] = Object.freeze([readTool, writeTool, editTool, bashTool]);

/** The built-in tool named `name`, or undefined. */
export function builtinTool(name: string): BuiltinTool | undefined {
  return BUILTIN_TOOLS.find((t) => t.name === name);
}

export { ToolApproval, builtinOperation } from "./approval.js";
export type { ApprovalAnswer, ApprovalOptions, ApprovalQuestion } from "./approval.js";
export type { BuiltinContext, BuiltinResult, BuiltinTool, BuiltinToolName, ToolResultContent } from "./types.js";
