/**
 * The CLI's confirm and input services (CONF-04, INPUT-06, INPUT-08). `--yes` accepts every
 * confirmation, `--no-input` never asks (confirmations denied, input cancelled); otherwise a
 * person is asked on the terminal when stdin and stderr are TTYs, and without one confirmations
 * are denied and input cancelled. Each decision made without asking is noted on stderr.
 *
 * Asking reads the terminal in raw mode with a small line editor of our own (printable
 * characters, Backspace, Ctrl-U, Enter), so a secret answer is never echoed and never enters
 * readline's history; Ctrl-C cancels the running call, Ctrl-D on an empty line cancels only the
 * question. One question at a time; a question whose signal aborts (its call settled, or the
 * extension went away) is withdrawn at once and its answer is never taken from later typing.
 */
import { emitKeypressEvents, type Key } from "node:readline";
import { bounds } from "@octet/protocol";
import type { ConfirmService, ForeignSessionDialogs, InputService, PolicyApproveRequest } from "@octet/host";
import type { ForeignStopSignal } from "@octet/protocol";
import type { LiveLine } from "./progress-view.js";
import { paint, terminalSafe } from "./output.js";

export interface PromptOptions {
  /** --yes: every confirmation is accepted without asking. */
  yes: boolean;
  /** --no-input: never ask; confirmations denied, input cancelled. */
  noInput: boolean;
  /** Whether a person can be asked: stdin and stderr are terminals. */
  interactive: boolean;
  line: LiveLine;
  /** Ctrl-C while asking: cancel the running call. */
  onInterrupt: () => void;
}

export interface CliServices {
  confirm: ConfirmService;
  input: InputService;
  /** A policy "ask" (--policy): approved only by a person at the terminal; --yes does not approve it. */
  approve: (request: PolicyApproveRequest) => Promise<boolean>;
  /**
   * The agent's built-in write, edit and bash (the agent's ToolApproval decides --yes, --no-input
   * and the policy file first): asked at the terminal, "always" approves the tool for the session.
   */
  approveTool: (q: { tool: string; summary: string; signal: AbortSignal }) => Promise<"yes" | "no" | "always">;
}

export function promptServices(o: PromptOptions): CliServices {
  const exclusive = serializer();
  const note = (text: string): void => o.line.print(`${text}\n`);
  const confirm: ConfirmService = async (r) => {
    const what = `[${r.extension}] ${oneLine(r.prompt)}${r.destructive ? " (destructive)" : ""}`;
    if (o.yes) {
      note(`${what}: yes (--yes)`);
      return true;
    }
    if (o.noInput) {
      note(`${what}: denied (--no-input)`);
      return false;
    }
    if (!o.interactive) {
      note(`${what}: denied, no terminal to ask (pass --yes to accept)`);
      return false;
    }
    const warn = r.destructive ? paint("red", " (destructive)") : "";
    const detail = r.detail !== undefined ? `\n  ${terminalSafe(r.detail).replace(/\n/g, "\n  ")}` : "";
    const question =
      `${paint("cyan", `[${r.extension}]`)} ` +
      `${oneLine(r.prompt)}${warn}${detail}\n${r.default ? "[Y/n]" : "[y/N]"} `;
    const answer = await exclusive(() => ask(o, question, true, r.signal));
    if (answer === null) return false;
    const a = answer.trim().toLowerCase();
    return a === "" ? r.default : a === "y" || a === "yes";
  };
  const input: InputService = async (r) => {
    const what = `[${r.extension}] input requested: ${oneLine(r.prompt)}`;
    if (o.noInput) {
      note(`${what}: cancelled (--no-input)`);
      return null;
    }
    if (!o.interactive) {
      note(`${what}: cancelled, no terminal to ask`);
      return null;
    }
    const hint = r.secret ? paint("dim", " (hidden)") : "";
    const question = `${paint("cyan", `[${r.extension}]`)} ${oneLine(r.prompt)}${hint} `;
    return exclusive(() => ask(o, question, !r.secret, r.signal));
  };
  const approve = async (r: PolicyApproveRequest): Promise<boolean> => {
    const t = r.intent.target;
    const what =
      `[${r.extension}] policy asks to allow ${r.intent.operation} ` +
      `(${oneLine(t.label)}${t.origin ? `, ${oneLine(t.origin)}` : ""})`;
    // Policy is enforcement, not a courtesy question: --yes never answers it, only a person does.
    if (o.noInput) {
      note(`${what}: denied (--no-input)`);
      return false;
    }
    if (!o.interactive) {
      note(`${what}: denied, no terminal to ask`);
      return false;
    }
    const hints = r.intent.adapter_hints.destructive ? paint("red", " (destructive)") : "";
    const classes = r.intent.data_classes.length > 0 ? `\n  data: ${r.intent.data_classes.join(", ")}` : "";
    const question =
      `${paint("cyan", `[${r.extension}]`)} allow ${oneLine(r.intent.operation)}: ` +
      `${oneLine(t.label)}${hints}\n  target: ${oneLine(t.origin)}${classes}\n[y/N] `;
    const answer = await exclusive(() => ask(o, question, true, r.signal));
    const a = (answer ?? "").trim().toLowerCase();
    return a === "y" || a === "yes";
  };
  const approveTool: CliServices["approveTool"] = async (q) => {
    if (!o.interactive) {
      note(`[octet] ${q.tool}: ${oneLine(q.summary)}: denied, no terminal to ask (pass --yes to allow)`);
      return "no";
    }
    const question =
      `${paint("cyan", "[octet]")} ${oneLine(q.summary)}\n` + "allow? [y]es / [N]o / [a]lways for this session ";
    const answer = await exclusive(() => ask(o, question, true, q.signal));
    // Withdrawn (Ctrl-C, Ctrl-D, the call ended) is not a "no": nobody declined anything.
    if (answer === null) throw new Error("the question was withdrawn before it was answered");
    const a = answer.trim().toLowerCase();
    return a === "a" || a === "always" ? "always" : a === "y" || a === "yes" ? "yes" : "no";
  };
  return { confirm, input, approve, approveTool };
}

/** Runs one job at a time, in order. */
function serializer(): <T>(job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** Asks while holding the live line, so progress does not draw over the question. */
async function ask(o: PromptOptions, question: string, echo: boolean, signal: AbortSignal): Promise<string | null> {
  if (signal.aborted) return null;
  const release = o.line.hold();
  try {
    return await readLine(question, { echo, signal, onInterrupt: o.onInterrupt });
  } finally {
    release();
  }
}

/**
 * Reads one line from the terminal in raw mode: null when cancelled (Ctrl-C, Ctrl-D on an empty
 * line, or the signal). While it reads, every other keypress listener (the shell's readline) is
 * detached, so the keys reach only this question; they are restored afterwards, as are raw mode
 * and the flowing state of stdin.
 */
export function readLine(
  question: string,
  o: { echo: boolean; signal: AbortSignal; onInterrupt: () => void },
): Promise<string | null> {
  const stdin = process.stdin;
  const err = process.stderr;
  return new Promise((resolve) => {
    emitKeypressEvents(stdin);
    const others = stdin.listeners("keypress") as ((...args: unknown[]) => void)[];
    stdin.removeAllListeners("keypress");
    const wasRaw = stdin.isRaw;
    // A stdin nobody read yet is neither flowing nor paused; it must not be left flowing (the
    // process would never exit), so anything but "flowing" is restored as paused.
    const wasFlowing = stdin.readableFlowing === true;
    stdin.setRawMode(true);
    // Raw mode first, then the question: anything typed after it appears is never echoed by the tty.
    err.write(question);
    let chars: string[] = [];
    let settled = false;
    const done = (value: string | null, tail: string): void => {
      if (settled) return;
      settled = true;
      stdin.off("keypress", onKey);
      o.signal.removeEventListener("abort", onAbort);
      stdin.setRawMode(wasRaw);
      for (const l of others) stdin.on("keypress", l);
      if (!wasFlowing) stdin.pause();
      err.write(tail);
      resolve(value);
    };
    const erase = (n: number): void => {
      if (o.echo && n > 0) err.write("\b \b".repeat(n));
    };
    const onKey = (s: string | undefined, key: Key | undefined): void => {
      const name = key?.name;
      if (key?.ctrl && name === "c") {
        done(null, "^C\n");
        o.onInterrupt();
        return;
      }
      if (key?.ctrl && name === "d") {
        if (chars.length === 0) done(null, "\n");
        return;
      }
      if (name === "return" || name === "enter") return done(chars.join(""), "\n");
      if (name === "backspace") {
        if (chars.length > 0) {
          chars.pop();
          erase(1);
        }
        return;
      }
      if (key?.ctrl && name === "u") {
        erase(chars.length);
        chars = [];
        return;
      }
      // Escape sequences (arrows, function keys), Tab and other control keys are ignored.
      if (key?.ctrl || key?.meta || s === undefined || /[\u0000-\u001f\u007f-\u009f]/.test(s)) return;
      if (chars.length >= bounds.MAX_INPUT_VALUE_BYTES / 4) return;
      chars.push(s);
      if (o.echo) err.write(s);
    };
    const onAbort = (): void => done(null, `\n${paint("dim", "(the question was withdrawn: its call ended)")}\n`);
    stdin.on("keypress", onKey);
    o.signal.addEventListener("abort", onAbort, { once: true });
    if (o.signal.aborted) return onAbort();
    stdin.resume();
  });
}

function oneLine(text: string): string {
  return terminalSafe(text.replace(/[\n\t]/g, " "));
}

/**
 * The session layer's dialogs (ForeignSessionLayer.dialogs): what a pi session event handler asks
 * (permission-gate's tool_call, confirm-destructive's session_before_switch) goes to the same
 * terminal questions, --yes and --no-input as an extension's confirmation and input requests.
 */
export function sessionDialogs(services: CliServices): ForeignSessionDialogs {
  const linked = (from: ForeignStopSignal): AbortSignal => {
    const c = new AbortController();
    if (from.aborted) c.abort();
    else from.addEventListener("abort", () => c.abort(), { once: true });
    return c.signal;
  };
  return {
    confirm: (r) =>
      services.confirm({
        extension: r.extension,
        prompt: r.prompt,
        ...(r.detail !== undefined ? { detail: r.detail } : {}),
        destructive: false,
        default: false,
        signal: linked(r.signal),
      }),
    input: (r) => services.input({ extension: r.extension, prompt: r.prompt, secret: false, signal: linked(r.signal) }),
  };
}
