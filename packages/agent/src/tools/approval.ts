/**
 * The approval gate for built-in tools that change things (write, edit, bash): nothing runs unasked.
 * The order: a policy file's rule for the operation ("builtin.write", ...) decides first (deny ->
 * refused, allow -> approved); otherwise --yes approves, then an earlier "always" for the same tool
 * in this session; with --no-input or no way to ask, the call is refused with a text saying how to
 * allow it; else the person is asked. A refusal is text for the model, as an error result.
 */
import { decideOperation, type PolicyRules } from "@octet/host";
import type { BuiltinTool } from "./types.js";

export type ApprovalAnswer = "yes" | "no" | "always";

export interface ApprovalQuestion {
  tool: string;
  summary: string;
  operation: string;
  signal: AbortSignal;
}

export interface ApprovalOptions {
  /** --yes: approve everything (noted once per tool through onNote). */
  yes: boolean;
  /** --no-input: never ask; deny. */
  noInput: boolean;
  /** A --policy file's rules; operations are "builtin.write", "builtin.edit", "builtin.bash". */
  rules?: PolicyRules | null;
  ask?: (q: ApprovalQuestion) => Promise<ApprovalAnswer>;
  onNote?: (text: string) => void;
}

/** The policy operation a built-in tool's call is checked as. */
export function builtinOperation(tool: string): string {
  return `builtin.${tool}`;
}

export class ToolApproval {
  /** Tools answered "always" in this session (one ToolApproval lives as long as its session). */
  private readonly always = new Set<string>();
  /** Tools --yes has been noted for: once each, so the note says why nothing is asked without repeating. */
  private readonly notedYes = new Set<string>();

  constructor(private readonly o: ApprovalOptions) {}

  /** null: approved; otherwise the refusal text the model gets as an error result. */
  async check(tool: BuiltinTool, args: Record<string, unknown>, signal: AbortSignal): Promise<string | null> {
    if (!tool.mutates) return null;
    const operation = builtinOperation(tool.name);
    if (this.o.rules) {
      const decision = decideOperation(this.o.rules, operation);
      if (decision === "deny") {
        return (
          `${tool.name} was not run: denied by the policy file (${operation} = deny). Do not retry it; ` +
          "tell the user if the task needs it"
        );
      }
      if (decision === "allow") return null;
    }
    if (this.o.yes) {
      if (!this.notedYes.has(tool.name)) {
        this.notedYes.add(tool.name);
        this.o.onNote?.(`--yes: ${tool.name} calls run without asking`);
      }
      return null;
    }
    if (this.always.has(tool.name)) return null;
    if (this.o.noInput || this.o.ask === undefined) {
      const why = this.o.noInput ? "--no-input is set" : "there is no one to ask";
      return (
        `${tool.name} was not run: it needs approval and ${why}. To allow it, run with --yes, answer 'always' ` +
        `at the prompt, or allow ${operation} in a --policy file`
      );
    }
    if (signal.aborted) return `${tool.name} was not run: cancelled before it was approved`;
    const summary = safeSummary(tool, args);
    let answer: ApprovalAnswer;
    try {
      answer = await this.o.ask({ tool: tool.name, summary, operation, signal });
    } catch (err) {
      if (signal.aborted) return `${tool.name} was not run: cancelled before it was approved`;
      const why = err instanceof Error ? err.message : String(err);
      return `${tool.name} was not run: the approval prompt failed (${why})`;
    }
    if (answer === "always") {
      this.always.add(tool.name);
      return null;
    }
    if (answer === "yes") return null;
    return `${tool.name} was not run: the user declined it (${summary}). Do not retry the same call; ask the user`;
  }
}

/** A summary never stops the gate: a throwing one (a tool outside this folder) still gets a line. */
function safeSummary(tool: BuiltinTool, args: Record<string, unknown>): string {
  try {
    return tool.summary(args);
  } catch {
    return tool.name;
  }
}
