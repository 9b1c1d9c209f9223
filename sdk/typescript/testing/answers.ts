/**
 * Scripted answers for the harness: the confirm and input services the host calls, answering
 * from queues in order. When a queue runs out the answer is the headless one (deny, cancel), so
 * a test that forgot an answer sees what a user without a terminal would see, and `asked` says
 * which prompt went unanswered.
 */
import type { ConfirmService, InputService } from "@octet/host";

/** A confirmation's answer: a fixed one, or one chosen from the prompt. */
export type ConfirmAnswer = boolean | ((prompt: string) => boolean);
/** An input request's answer (null cancels): a fixed one, or one chosen from the prompt. */
export type InputAnswer = string | null | ((prompt: string) => string | null);

export class Answers {
  readonly asked: { kind: "confirm" | "input"; prompt: string; answer: boolean | string | null }[] = [];
  readonly #confirms: ConfirmAnswer[];
  readonly #inputs: InputAnswer[];

  constructor(confirms: ConfirmAnswer[], inputs: InputAnswer[]) {
    this.#confirms = [...confirms];
    this.#inputs = [...inputs];
  }

  add(confirms: ConfirmAnswer[], inputs: InputAnswer[]): void {
    this.#confirms.push(...confirms);
    this.#inputs.push(...inputs);
  }

  readonly confirm: ConfirmService = async (request) => {
    const next = this.#confirms.shift() ?? false;
    const answer = typeof next === "function" ? next(request.prompt) : next;
    this.asked.push({ kind: "confirm", prompt: request.prompt, answer });
    return answer;
  };

  readonly input: InputService = async (request) => {
    const next = this.#inputs.length > 0 ? this.#inputs.shift()! : null;
    const answer = typeof next === "function" ? next(request.prompt) : next;
    this.asked.push({ kind: "input", prompt: request.prompt, answer });
    return answer;
  };
}
