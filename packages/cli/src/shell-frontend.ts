/**
 * The shell's interactive frontend (issue 16.1, 16.5, 16.6): Node's readline line is the composer,
 * its keys are watched for extension shortcuts and Tab. Bound as the host's services.frontend.
 *
 * Why readline and not pi-tui: the shell already runs on readline over a terminal and a pipe,
 * prompts.ts borrows its keys for questions, and readline's line and cursor are exactly the
 * composer the wire speaks of; pi-tui would replace the whole screen model for a prompt line.
 *
 * Over a pipe there is no interactive frontend: interactive() is false and the host refuses the
 * composer and autocomplete registration rather than faking them (ACMP-01).
 *
 * Keys: one keypress listener stands in front of readline's own. A key that matches a live
 * shortcut sends shortcut/trigger to its owner (readline never sees it); Tab asks the extension
 * chains, then completes a /command or a path natively. A completion is applied only if the line
 * and cursor are still those it was asked for (ACMP-07), its provider is still live (ACMP-17),
 * and only through checkChoice (completion-check.ts: the wire's checks plus grapheme boundaries).
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Interface, Key } from "node:readline";
import type { ExtensionHost, FrontendService } from "@octet/host";
import { AUTOCOMPLETE_DEADLINE_MS } from "@octet/host";
import { utf8ByteLength, type AutocompleteItem } from "@octet/protocol";
import { checkChoice } from "./completion-check.js";
import { terminalSafe } from "./output.js";

type KeyListener = (s: string | undefined, key: Key | undefined) => void;

/** readline's line and cursor: public at run time, typed read-only. */
interface EditableLine {
  line: string;
  cursor: number;
  _refreshLine(): void;
}

export interface ShellFrontendOptions {
  /** The current host (it changes on /reload). */
  host: () => ExtensionHost;
  /** The shell's own slash commands, for native completion. */
  builtins: readonly string[];
  /** Where relative paths are completed from: the workspace the agent's tools read. */
  workspace: string;
  /** Whether the prompt is shown (no command running): the line is redrawn only then. */
  idle: () => boolean;
}

export class ShellFrontend implements FrontendService {
  #rl: (Interface & EditableLine) | null = null;
  #o: ShellFrontendOptions | null = null;
  /** Bumped by every key: a completion asked before a key was typed is stale. */
  #draft = 0;
  #completing = false;
  /** The shell reads a terminal: the line editor exists (from attach() on) for the whole session. */
  readonly #tty: boolean;

  constructor(tty: boolean) {
    this.#tty = tty;
  }

  readonly composer = {
    get: (): string => this.#line().line,
    set: (text: string): void => {
      const rl = this.#line();
      rl.line = text;
      rl.cursor = text.length;
      this.#redraw();
    },
    insert: (text: string): void => {
      const rl = this.#line();
      rl.line = rl.line.slice(0, rl.cursor) + text + rl.line.slice(rl.cursor);
      rl.cursor += text.length;
      this.#redraw();
    },
  };

  interactive(): boolean {
    return this.#tty;
  }

  /** Takes the keys of a terminal readline; over a pipe nothing is attached and nothing is offered. */
  attach(rl: Interface, input: NodeJS.ReadStream, options: ShellFrontendOptions): void {
    if (!rl.terminal) return;
    this.#rl = rl as Interface & EditableLine;
    this.#o = options;
    const readline = input.listeners("keypress") as KeyListener[];
    input.removeAllListeners("keypress");
    const front: KeyListener = (s, key) => {
      this.#draft++;
      if (key !== undefined && this.#take(key)) return;
      for (const l of readline) l.call(input, s, key);
    };
    input.on("keypress", front);
    rl.once("close", () => {
      input.off("keypress", front);
      this.#rl = null;
    });
  }

  #line(): Interface & EditableLine {
    // Only between start-up and the prompt's first appearance, or after it closed.
    if (this.#rl === null) throw new Error("the line editor is not open (the shell is starting or closing)");
    return this.#rl;
  }

  #redraw(): void {
    if (this.#o?.idle()) this.#rl?._refreshLine();
  }

  /** True when the key was a shortcut or Tab and is not readline's. */
  #take(key: Key): boolean {
    const o = this.#o;
    if (o === null) return false;
    if (key.name === "tab" && !key.ctrl && !key.meta && !key.shift) {
      void this.#complete(o);
      return true;
    }
    const frontend = o.host().frontend;
    const hit = frontend
      .frontendShortcuts()
      .find(
        (s) =>
          s.key.name === key.name &&
          s.key.ctrl === (key.ctrl === true) &&
          s.key.alt === (key.meta === true) &&
          s.key.shift === (key.shift === true),
      );
    return hit !== undefined && frontend.triggerShortcut(hit);
  }

  async #complete(o: ShellFrontendOptions): Promise<void> {
    const rl = this.#rl;
    if (rl === null || this.#completing) return;
    this.#completing = true;
    const text = rl.line;
    const at = rl.cursor;
    const draft = this.#draft;
    const cursor = utf8ByteLength(text.slice(0, at));
    const host = o.host();
    const focused = o.idle();
    try {
      const started = Date.now();
      const remote = await host.frontend.completeDraft(text, cursor, { deadlineMs: AUTOCOMPLETE_DEADLINE_MS });
      // ACMP-07, ACMP-17: a key typed meanwhile, a changed line, a lost prompt, a new host (reload,
      // another session) or a provider no longer live makes the answer stale; asked at display and
      // again at acceptance.
      const current = (): boolean =>
        this.#rl === rl &&
        this.#draft === draft &&
        rl.line === text &&
        rl.cursor === at &&
        o.idle() === focused &&
        o.host() === host &&
        (remote === null || host.frontend.completionLive(remote));
      if (!current()) return;
      const late = Date.now() - started > AUTOCOMPLETE_DEADLINE_MS;
      const answer = remote ?? (late ? null : nativeCompletion(text.slice(0, at), o));
      if (answer === null || answer.items.length === 0) return;
      this.#offer(rl, { text, cursor }, answer.prefix, answer.items, { current, native: remote === null });
    } finally {
      this.#completing = false;
    }
  }

  /**
   * ACMP-16: only choices that pass the checks are shown. One is accepted (Tab on a unique
   * completion); several are only listed: displaying never edits the line. The host's own
   * (native) list also completes its common part, as a shell does; an extension's never does.
   */
  #offer(
    rl: Interface & EditableLine,
    snap: { text: string; cursor: number },
    prefix: string,
    items: AutocompleteItem[],
    how: { current: () => boolean; native: boolean },
  ) {
    const shown = items.filter((i) => checkChoice(snap, prefix, i).ok);
    let item: AutocompleteItem | undefined = shown.length === 1 ? shown[0] : undefined;
    if (shown.length > 1) {
      process.stdout.write(`\n${shown.map((i) => terminalSafe(i.label)).join("  ")}\n`);
      const common = commonPrefix(shown.map((i) => i.value));
      if (how.native && common.length > prefix.length) item = { value: common, label: common, description: null };
    }
    if (item !== undefined) {
      // ACMP-16, ACMP-17: checked again at acceptance, the provider and the draft included.
      const edit = how.current() ? checkChoice(snap, prefix, item) : null;
      if (edit?.ok) {
        rl.line = edit.text;
        rl.cursor = edit.index;
      }
    }
    if (shown.length > 0) rl._refreshLine();
  }
}

/** /command names, then paths: the host's own completion once no extension claimed the query. */
function nativeCompletion(
  before: string,
  o: ShellFrontendOptions,
): { prefix: string; items: AutocompleteItem[] } | null {
  const item = (value: string): AutocompleteItem => ({ value, label: value, description: null });
  if (/^\/\S*$/.test(before)) {
    const names = [
      ...o.builtins,
      ...o
        .host()
        .commands()
        .map((c) => c.name),
    ].map((n) => `/${n}`);
    return {
      prefix: before,
      items: [...new Set(names)]
        .filter((n) => n.startsWith(before))
        .sort()
        .map(item),
    };
  }
  const word = /(\S*)$/.exec(before)?.[1] ?? "";
  if (word === "" && !before.endsWith(" ")) return null;
  const dir = word.endsWith("/") ? word : dirname(word) === "." && !word.startsWith("./") ? "" : `${dirname(word)}/`;
  const base = word.slice(dir.length);
  let names: string[];
  try {
    names = readdirSync(resolve(o.workspace, dir)).filter(
      (n) => n.startsWith(base) && (base !== "" || !n.startsWith(".")),
    );
  } catch {
    return null;
  }
  const values = names.sort().map((n) => {
    const full = `${dir}${n}`;
    let isDir = false;
    try {
      isDir = statSync(resolve(o.workspace, dir, n)).isDirectory();
    } catch {}
    return item(isDir ? `${full}/` : full);
  });
  return { prefix: word, items: values.slice(0, 32) };
}

function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return "";
  let p = values[0] ?? "";
  for (const v of values) while (!v.startsWith(p)) p = p.slice(0, -1);
  return p;
}
