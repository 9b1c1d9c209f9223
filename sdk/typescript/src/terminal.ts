/**
 * ctx.terminal and ext.terminal (W 2.24, feature terminal_handoff): borrowing the foreground
 * terminal inside a tool/call or command/execute handler. acquire() resolves once the frontend
 * has ceded the tty (its line editor paused, cooked mode, its live line cleared); release()
 * once it has taken it back. The grant ends with the handler's request at the latest: the host
 * then takes it back and sends terminal/grant-lost, which aborts the grant's `lost` signal and
 * runs the ext.onTerminalGrantLost handlers. After a loss the extension must stop writing.
 *
 * The extension's stdio are the wire, so the terminal itself is the device the host names in
 * OCTET_TTY; openTerminal() opens it as a tty read and write stream pair.
 */
import type { ReadStream, WriteStream } from "node:tty";
import { nodeBuiltin } from "./node-builtin.js";
import {
  terminalRefusal,
  validateTerminalGrant,
  validateTerminalGrantLost,
  validateTerminalParams,
} from "@octet/protocol";
import { send } from "./reverse-requests.js";
import type { Link, RequestScope } from "./request-scope.js";
import type { HeldTerminal, TerminalApi, TerminalGrantLostHandler } from "./types.js";

export type { HeldTerminal, TerminalApi, TerminalGrantLostHandler } from "./types.js";

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

/** One extension's grant and grant-lost handlers. */
export class TerminalGrants {
  #held: { grant_id: string; controller: AbortController } | null = null;
  readonly #handlers: TerminalGrantLostHandler[] = [];

  onLost(handler: TerminalGrantLostHandler): void {
    if (typeof handler !== "function") throw new TypeError("the terminal grant-lost handler must be a function");
    this.#handlers.push(handler);
  }

  /** terminal/grant-lost from the host: the grant it names is gone. Best effort, never awaited. */
  lost(params: unknown): void {
    const checked = validateTerminalGrantLost(params);
    if (!checked.ok) {
      process.stderr.write(`octet-extension: ignored an invalid terminal/grant-lost: ${checked.problems.join("; ")}\n`);
      return;
    }
    const lost = checked.value;
    if (this.#held?.grant_id === lost.grant_id) {
      this.#held.controller.abort(new Error(`the terminal grant was lost: ${lost.reason}`));
      this.#held = null;
    }
    for (const handler of this.#handlers) {
      const report = (err: unknown): void =>
        void process.stderr.write(
          `octet-extension: the terminal grant-lost handler failed: ${err instanceof Error ? err.message : err}\n`,
        );
      try {
        const outcome = handler({ ...lost });
        if (outcome instanceof Promise) outcome.catch(report);
      } catch (err) {
        report(err);
      }
    }
  }

  api(scope: () => RequestScope | undefined, link: () => Link | null): TerminalApi {
    const call = async (what: "acquire" | "release"): Promise<unknown> => {
      const l = link();
      if (!l) throw new Error(`terminal.${what}() is available only after the host initialized the extension`);
      if (!l.features.has("terminal_handoff"))
        throw new Error(
          `terminal.${what}() needs the terminal_handoff feature, which the host did not offer (no interactive ` +
            "frontend owns a terminal)",
        );
      const s = scope();
      if (!s) throw new Error(`terminal.${what}() must be called from a request handler (no request is running)`);
      const params = { parent_request_id: parentOf(s, what) };
      const checked = validateTerminalParams(params);
      if (!checked.ok)
        throw new RangeError(`${terminalRefusal(checked.problems)} terminal.${what}(): ${checked.problems.join("; ")}`);
      return send(s, l, `terminal/${what}`, checked.value);
    };
    return {
      get available() {
        return link()?.features.has("terminal_handoff") ?? false;
      },
      acquire: async () => {
        const checked = validateTerminalGrant(await call("acquire"));
        if (!checked.ok)
          throw new Error(`the host's terminal/acquire answer is invalid: ${checked.problems.join("; ")}`);
        const controller = new AbortController();
        this.#held = { grant_id: checked.value.grant_id, controller };
        return { ...checked.value, lost: controller.signal };
      },
      release: async () => {
        await call("release");
        this.#held = null;
      },
    };
  }
}

/** The terminal device and its streams; close() them (in cooked mode) before release(). */
export interface OpenTerminal {
  readonly input: ReadStream;
  readonly output: WriteStream;
  close(): void;
}

/**
 * Opens the terminal the host named in OCTET_TTY (never as a controlling terminal). Throws when
 * the host named none: a host without a terminal does not offer terminal_handoff either.
 */
export function openTerminal(env: Readonly<Record<string, string | undefined>> = process.env): OpenTerminal {
  const path = env["OCTET_TTY"];
  if (path === undefined || path === "") throw new Error("OCTET_TTY is not set: the host named no terminal device");
  const { openSync, constants: fs } = nodeBuiltin<typeof import("node:fs")>("node:fs");
  const tty = nodeBuiltin<typeof import("node:tty")>("node:tty");
  const input = new tty.ReadStream(openSync(path, fs.O_RDONLY | fs.O_NOCTTY));
  const output = new tty.WriteStream(openSync(path, fs.O_WRONLY | fs.O_NOCTTY));
  return {
    input,
    output,
    close() {
      if (input.isRaw) input.setRawMode(false);
      input.destroy();
      output.destroy();
    },
  };
}

function parentOf(scope: RequestScope, what: string): number {
  if (!PARENT_METHODS.includes(scope.method))
    throw new Error(
      `terminal.${what}() is available in a tool/call or command/execute handler, not in ${scope.method}`,
    );
  if (!scope.active) throw new Error(`terminal.${what}() was called after request ${String(scope.id)} was answered`);
  if (typeof scope.id !== "number")
    throw new Error(`terminal.${what}() needs a numeric parent request id, not ${JSON.stringify(scope.id)}`);
  return scope.id;
}
