/**
 * long-task: the API 0.4 features in one tool. It asks before starting (confirmation), asks for
 * an optional label (input), works through its steps reporting progress, stops promptly when
 * cancelled, and returns structured output checked against its output schema.
 */
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4", maxConcurrentRequests: 2 });

/** Milliseconds per step by default: long enough to watch the bar and to cancel. */
const STEP_MS = 250;

ext.tool(
  {
    name: "long_task",
    description: "Run a long task in steps, reporting progress; it can be cancelled",
    parameters: {
      type: "object",
      properties: {
        steps: { type: "integer", minimum: 1, maximum: 1000, description: "How many steps (default 8)" },
        step_ms: { type: "integer", minimum: 1, maximum: 10000, description: "Milliseconds per step (default 250)" },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        completed: { type: "integer", minimum: 0 },
        steps: { type: "integer", minimum: 1 },
        label: { type: ["string", "null"] },
      },
      required: ["completed", "steps", "label"],
      additionalProperties: false,
    },
    promptSnippet: "long_task runs a long job with live progress; the user can cancel it.",
  },
  async (args, ctx) => {
    const steps = positiveInteger(args["steps"], 8);
    const stepMs = positiveInteger(args["step_ms"], STEP_MS);
    if (
      !(await ctx.confirm({
        prompt: `Run a long task of ${steps} steps?`,
        detail: `About ${Math.ceil((steps * stepMs) / 1000)} s`,
        default: true,
      }))
    ) {
      return {
        content: "Not started: the run was not confirmed.",
        structuredContent: { completed: 0, steps, label: null },
      };
    }
    const label = await ctx.input({ prompt: "A label for this run (optional):" });
    for (let done = 0; done < steps; done++) {
      ctx.throwIfCancelled();
      ctx.progress.status(`Step ${done + 1} of ${steps}${label ? ` (${label})` : ""}`, {
        current: done,
        total: steps,
        unit: "steps",
      });
      await sleep(stepMs, ctx.signal);
    }
    ctx.progress.status("Done", { current: steps, total: steps, unit: "steps" });
    return {
      content: `Completed ${steps} steps${label ? ` for "${label}"` : ""}.`,
      structuredContent: { completed: steps, steps, label: label ?? null },
    };
  },
);

function positiveInteger(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : fallback;
}

/** Waits `ms`, or less when the request is cancelled (the next throwIfCancelled then answers -32800). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

void ext.run();
