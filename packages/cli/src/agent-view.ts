/**
 * The agent's events on the terminal: the answer's text as it streams (stdout), each tool call
 * as it starts, its progress on the live line and its result through the extension's renderer
 * when it has one (stderr, so stdout stays the answer), notices, compaction, and errors that say
 * what happened. Events are drawn in order even though rendering a result waits for the
 * extension: each one is queued behind the one before (flush() waits for the queue).
 */
import type { AgentEvent } from "@octet/agent";
import type { ExtensionHost } from "@octet/host";
import { paint, terminalSafe } from "./output.js";
import type { LiveLine } from "./progress-view.js";
import { renderSegments } from "./render-view.js";

export interface AgentViewOptions {
  host: ExtensionHost | null;
  line: LiveLine;
  /** Stream the answer to stdout as it comes (interactive, or `run` on a terminal). */
  streamText: boolean;
  verbose: boolean;
  /** Lines of a tool's result shown (the rest is counted). */
  resultLines?: number;
}

export class AgentView {
  readonly #o: AgentViewOptions;
  #tail: Promise<void> = Promise.resolve();
  /** Whether stdout is in the middle of a line of streamed text. */
  #openLine = false;
  readonly #args = new Map<string, Record<string, unknown>>();

  constructor(o: AgentViewOptions) {
    this.#o = o;
  }

  readonly handle = (event: AgentEvent): void => {
    this.#tail = this.#tail.then(() => this.#draw(event)).catch(() => undefined);
  };

  flush(): Promise<void> {
    return this.#tail;
  }

  async #draw(e: AgentEvent): Promise<void> {
    const err = (text: string): void => {
      this.#endLine();
      this.#o.line.print(`${text}\n`);
    };
    switch (e.type) {
      case "text_delta":
        if (!this.#o.streamText) return;
        this.#o.line.show(null);
        process.stdout.write(process.stdout.isTTY ? terminalSafe(e.delta) : e.delta);
        this.#openLine = !e.delta.endsWith("\n");
        return;
      case "tool_call":
        this.#args.set(e.tool_call_id, e.arguments);
        err(
          `${paint("cyan", "●")} ${paint("yellow", terminalSafe(e.name))}` +
            `${e.extension ? paint("dim", ` (${e.extension})`) : ""} ` +
            `${paint("dim", terminalSafe(oneLine(JSON.stringify(e.arguments), 200)))}`,
        );
        return;
      case "tool_progress":
        // The name is the model's: it could carry escape sequences like any text it writes.
        this.#o.line.show(`${terminalSafe(e.name)}: ${terminalSafe(oneLine(e.text, 120))}`);
        return;
      case "tool_result": {
        this.#o.line.show(null);
        const args = this.#args.get(e.tool_call_id) ?? {};
        this.#args.delete(e.tool_call_id);
        const segments = this.#o.host
          ? await this.#o.host
              .renderTool({ name: e.name, arguments: args, output: e.text, isError: e.is_error })
              .catch(() => null)
          : null;
        const body = segments !== null ? renderSegments(segments, process.stderr) : terminalSafe(e.text);
        const shown = clip(body, this.#o.resultLines ?? 8);
        err(
          `${e.is_error ? paint("red", "  ✗ ") : paint("green", "  ✓ ")}` +
            `${e.is_error || segments !== null ? shown : paint("dim", shown)}`.replace(/\n/g, "\n    "),
        );
        return;
      }
      case "turn_end":
        if (e.error !== null) err(`${paint("red", "error")}: ${terminalSafe(e.error)}`);
        if (this.#o.verbose)
          err(
            paint(
              "dim",
              `[turn ${e.turn_index}: ${e.usage.input} in, ${e.usage.output} out` +
                `${e.usage.cost.total > 0 ? `, $${e.usage.cost.total.toFixed(4)}` : ""}; ${e.stop_reason}]`,
            ),
          );
        return;
      case "prompt_denied":
        err(`${paint("red", "denied")} by ${e.extension}: ${terminalSafe(e.reason)}`);
        return;
      case "notice":
        if (e.level !== "info" || this.#o.verbose)
          err(`${paint(LEVEL_COLOR[e.level], `[${terminalSafe(e.source)}]`)} ${terminalSafe(e.text)}`);
        return;
      case "compaction_start":
        err(paint("dim", `compacting the session (${e.reason}, about ${e.tokens_before} tokens)...`));
        return;
      case "compaction_end":
        err(
          e.error !== null
            ? `${paint("red", "compaction failed")}: ${terminalSafe(e.error)}`
            : paint("dim", `compacted: entry ${e.entry_id}`),
        );
        return;
      case "run_end":
        this.#endLine();
        if (e.outcome === "limit_reached" || e.outcome === "cancelled")
          err(
            `${paint("yellow", e.outcome === "cancelled" ? "cancelled" : "stopped")}: ${terminalSafe(e.error ?? "")}`,
          );
        if (this.#o.verbose)
          err(paint("dim", `[${e.turns} model requests, ${e.usage.input} in, ${e.usage.output} out]`));
        return;
      default:
        return;
    }
  }

  #endLine(): void {
    if (this.#openLine) process.stdout.write("\n");
    this.#openLine = false;
  }
}

const LEVEL_COLOR = { error: "red", warning: "yellow", info: "cyan" } as const;

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function clip(text: string, lines: number): string {
  const all = text.replace(/\n+$/, "").split("\n");
  if (all.length <= lines) return all.join("\n");
  return `${all.slice(0, lines).join("\n")}\n… ${all.length - lines} more lines`;
}
