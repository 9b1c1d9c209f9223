/**
 * Drives one transcript against one implementation at one API version: spawns the
 * implementation's command (API version in OCTET_CONFORMANCE_API), plays the steps in order, and
 * fails on the first step that does not hold, naming the step, the expected pattern and the
 * frames that came instead. Every wait has a deadline; the process group is killed at the end
 * whatever happened. Step semantics are documented in README.md.
 */
import { API_ENV, initializeParams, mergeParams, templateValues, type ApiVersion } from "./contract.js";
import { ExtensionProcess, describeExit, type Frame, type Received } from "./extension-process.js";
import { expand, match, show, type Json, type Scope } from "./pattern.js";
import { shareable, type ExtensionPool, type Lease } from "./pool.js";
import type { Step, Transcript } from "./transcript.js";

/** One SDK or runtime under test: how to start its conformance extension (CONTRACT.md). */
export interface Implementation {
  name: string;
  /** argv of the conformance extension; it reads its API version from OCTET_CONFORMANCE_API. */
  command: readonly string[];
  /** Extra environment (the child otherwise gets PATH and OCTET_CONFORMANCE_API only). */
  env?: Readonly<Record<string, string>>;
  /** The API versions it speaks; default all three. Transcripts run at each version both list. */
  apis?: readonly ApiVersion[];
  /** Transcript IDs this implementation does not pass yet, each with the reason (printed). */
  skip?: Readonly<Record<string, string>>;
}

export const DEFAULT_EXPECT_MS = 5_000;
export const DEFAULT_EXIT_MS = 3_000;

/** How long a passed transcript's extension may take to become quiescent before it is killed instead of kept. */
const QUIESCENCE_MS = 1_000;

/**
 * With a pool, a transcript that allows it (pool.ts) runs on an extension an earlier transcript
 * initialized with the same step, and a passed one leaves its extension there if quiescent;
 * without one every transcript starts its own, as the runner's self-tests do.
 */
export async function runTranscript(
  impl: Implementation,
  transcript: Transcript,
  api: ApiVersion,
  pool?: ExtensionPool,
): Promise<void> {
  const share = pool !== undefined && shareable(transcript);
  const lease = share ? pool.take(api) : undefined;
  const env: Record<string, string> = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", [API_ENV]: api, ...impl.env };
  const proc = lease?.proc ?? new ExtensionProcess(impl.command, env);
  const run = new Run(proc, api, lease);
  let keep = false;
  try {
    for (const [i, step] of transcript.steps.entries()) {
      // A kept extension answered this very step (the standard initialize) for an earlier transcript.
      if (lease && i === 0) continue;
      const only = step["api"] as ApiVersion[] | undefined;
      if (only && !only.includes(api)) continue;
      try {
        await run.step(step);
      } catch (err) {
        const reused = lease ? " on an extension an earlier transcript started and initialized" : "";
        const where =
          `${impl.name} ${transcript.id} (API ${api}), step ${i + 1} ` +
          `of ${transcript.steps.length}${reused}: ${show(step, 600)}`;
        throw new Error(
          `${where}\n${(err as Error).message}\nstderr tail:\n${indent(proc.stderrTail.slice(-2_000) || "(empty)")}`,
        );
      }
    }
    if (proc.violations.length > 0)
      throw new Error(
        `${impl.name} ${transcript.id} (API ${api}): protocol violation on stdout: ${proc.violations[0]}`,
      );
    keep = share && (await proc.quiescent(QUIESCENCE_MS));
  } finally {
    if (keep) pool?.give(api, run.lease());
    else await proc.kill();
  }
}

class Run {
  readonly #proc: ExtensionProcess;
  readonly #api: ApiVersion;
  readonly #ids = new Map<string, number>();
  readonly #vars = new Map<string, unknown>();
  /** Frames matched by labelled expect steps, for respond. */
  readonly #labelled = new Map<string, Frame>();
  readonly #values: Map<string, Json>;
  #nextId = 1;

  constructor(proc: ExtensionProcess, api: ApiVersion, lease: Lease | undefined) {
    this.#proc = proc;
    this.#api = api;
    this.#values = templateValues(api);
    if (lease) {
      // Ids go on from where the earlier transcripts left them: the extension checks uniqueness.
      this.#nextId = lease.nextId;
      this.#ids.set("", lease.initializeId).set("initialize", lease.initializeId);
    }
  }

  /** This extension as a pool keeps it: the initialize id and the next request id. */
  lease(): Lease {
    return { proc: this.#proc, initializeId: this.#ids.get("initialize") ?? 1, nextId: this.#nextId };
  }

  get #scope(): Scope {
    return { api: this.#api, ids: this.#ids, vars: this.#vars, values: this.#values };
  }

  async step(step: Step): Promise<void> {
    const within = (step["within_ms"] as number | undefined) ?? DEFAULT_EXPECT_MS;
    const strict = step["strict"] === true;
    if ("initialize" in step) {
      const params = expand(mergeParams(initializeParams(this.#api), step["initialize"]), this.#scope);
      const id = this.#request("initialize", params, "initialize");
      await this.#expect({ id, result: step["result"] ?? { api_version: "$api" } }, strict, within, undefined);
    } else if ("request" in step) {
      const r = step["request"] as { method: string; params?: unknown };
      this.#request(
        r.method,
        r.params === undefined ? undefined : expand(r.params, this.#scope),
        step["as"] as string | undefined,
      );
    } else if ("notify" in step) {
      const n = step["notify"] as { method: string; params?: unknown };
      const params = n.params === undefined ? undefined : expand(n.params, this.#scope);
      this.#proc.sendFrame(
        params === undefined ? { jsonrpc: "2.0", method: n.method } : { jsonrpc: "2.0", method: n.method, params },
      );
    } else if ("send" in step) {
      this.#proc.sendFrame(expand(step["send"], this.#scope) ?? null);
    } else if ("send_raw" in step) {
      this.#proc.sendRaw(step["send_raw"] as string);
    } else if ("expect" in step) {
      await this.#expect(step["expect"], strict, within, step["as"] as string | undefined);
    } else if ("refute" in step) {
      this.#refute(step["refute"]);
    } else if ("respond" in step) {
      this.#respond(step["respond"] as string, step);
    } else if ("close_stdin" in step) {
      this.#proc.closeStdin();
    } else if ("expect_exit" in step) {
      const exit = await this.#proc.waitFor(
        () => this.#proc.exit ?? undefined,
        (step["within_ms"] as number | undefined) ?? DEFAULT_EXIT_MS,
        "exit",
        true,
      );
      const code = step["expect_exit"];
      if (code !== null && (exit.signal !== null || exit.code !== code))
        throw new Error(`expected exit code ${String(code)}, got ${describeExit(exit)}`);
    }
  }

  #request(method: string, params: Json | undefined, label: string | undefined): number {
    const id = this.#nextId++;
    this.#ids.set("", id);
    if (label !== undefined) this.#ids.set(label, id);
    this.#proc.sendFrame(
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
    );
    return id;
  }

  async #expect(pattern: unknown, strict: boolean, within: number, label: string | undefined): Promise<void> {
    const queue = this.#proc.queue;
    const find = (): { index: number; captures: Map<string, unknown> } | undefined => {
      if (strict) {
        const first = queue[0];
        if (!first) return undefined;
        const r = match(pattern, first.frame, this.#scope);
        if (!r.ok)
          throw new Error(
            `the next frame does not match (strict)\nexpected: ${show(pattern, 1_500)}\nactual:   ` +
              `#${first.n} ${show(first.frame, 1_500)}\n  ✗ at ${r.mismatch.path}: ${r.mismatch.reason}`,
          );
        return { index: 0, captures: r.captures };
      }
      for (const [index, received] of queue.entries()) {
        const r = match(pattern, received.frame, this.#scope);
        if (r.ok) return { index, captures: r.captures };
      }
      return undefined;
    };
    let found: { index: number; captures: Map<string, unknown> };
    try {
      found = await this.#proc.waitFor(find, within, strict ? "next frame" : "frame matching the pattern");
    } catch (err) {
      const message = (err as Error).message;
      if (message.includes("(strict)")) throw err;
      throw new Error(`${message}\nexpected: ${show(pattern, 1_500)}\n${this.#candidates(pattern)}`);
    }
    const [received] = queue.splice(found.index, 1);
    for (const [k, v] of found.captures) this.#vars.set(k, v);
    if (label !== undefined && received) this.#labelled.set(label, received.frame);
  }

  #refute(pattern: unknown): void {
    for (const received of this.#proc.queue) {
      if (match(pattern, received.frame, this.#scope).ok) {
        throw new Error(
          `a frame that must not have been sent was received\nrefuted: ${show(pattern, 1_000)}\nactual:  ` +
            `#${received.n} ${show(received.frame, 1_000)}`,
        );
      }
    }
    if (this.#proc.violations.length > 0) throw new Error(`protocol violation on stdout: ${this.#proc.violations[0]}`);
  }

  #respond(label: string, step: Step): void {
    const frame = this.#labelled.get(label);
    if (!frame) throw new Error(`respond: no expect step labelled "${label}" has matched yet`);
    if (typeof frame["method"] !== "string" || !("id" in frame))
      throw new Error(`respond: the frame labelled "${label}" is not a request: ${show(frame)}`);
    const body =
      "error" in step
        ? { error: expand(step["error"], this.#scope) ?? null }
        : { result: expand(step["result"], this.#scope) ?? null };
    this.#proc.sendFrame({ jsonrpc: "2.0", id: frame["id"] as Json, ...body });
  }

  /** What came instead: every unconsumed frame (newest last) with the first place it differs. */
  #candidates(pattern: unknown): string {
    const queue: Received[] = this.#proc.queue;
    if (queue.length === 0) return "no unconsumed frames were received";
    const shown = queue.slice(-8);
    const lines = shown.map((r) => {
      let why: string;
      try {
        const m = match(pattern, r.frame, this.#scope);
        why = m.ok ? "matches now" : `✗ at ${m.mismatch.path}: ${m.mismatch.reason}`;
      } catch (err) {
        why = `✗ ${(err as Error).message}`;
      }
      return `  #${r.n} ${show(r.frame, 600)}\n      ${why}`;
    });
    const more = queue.length > shown.length ? ` (the last ${shown.length} of ${queue.length})` : "";
    return `unconsumed frames${more}:\n${lines.join("\n")}`;
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
