/**
 * Which view draws an agent event in the shell. A typed prompt has its view until its run ends;
 * a run the agent starts itself (a user message an extension sent, queued behind the running
 * prompt or started when idle, W 2.22) gets a view of its own, headed by the message, and drawn
 * exactly like a typed prompt's; when it ends the shell shows its prompt again.
 */
import type { AgentEvent } from "@octet/agent";
import type { AgentView } from "./agent-view.js";
import { paint, terminalSafe } from "./output.js";

export class ShellRuns {
  readonly #newView: () => AgentView;
  #typed: { view: AgentView; done: boolean } | null = null;
  #other: AgentView | null = null;
  /** Called when a run the agent started itself has been drawn to its end. */
  onOtherEnd: () => void = () => {};

  constructor(newView: () => AgentView) {
    this.#newView = newView;
  }

  /** The typed prompt's view from now until its run ends (or release()). */
  typed(view: AgentView): void {
    this.#typed = { view, done: false };
  }

  release(): void {
    this.#typed = null;
  }

  readonly route = (e: AgentEvent): void => {
    const t = this.#typed;
    const ends = e.type === "run_end" || e.type === "prompt_denied";
    if (t && !t.done) {
      t.view.handle(e);
      if (ends) t.done = true;
      return;
    }
    if (this.#other === null) {
      if (e.type !== "run_start" && e.type !== "prompt_denied") return;
      this.#other = this.#newView();
      const said = e.type === "run_start" ? e.prompt : "(a queued message)";
      process.stdout.write(`\n${paint("dim", "message from an extension:")} ${terminalSafe(said)}\n`);
    }
    const view = this.#other;
    view.handle(e);
    if (ends) {
      this.#other = null;
      void view.flush().then(() => this.onOtherEnd());
    }
  };
}
