/**
 * The `__octet_host` object a QuickJS instance's prelude is given (docs/decisions.md "QuickJS
 * engine"): {send, setTimer, clearTimer, callee, env}. The functions run on the host side of the
 * VM boundary and check what the VM hands them: a frame is a string within maxFrameBytes and the
 * outbound rate (QJS-18), at most MAX_TIMERS timers are live. A refusal throws inside the VM (a
 * RangeError or TypeError of the VM's own realm) and the instance keeps working.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import type { SandboxSettings } from "./channel.js";
import { calleeAt } from "./callee.js";
import { DESCRIBE_CHARS } from "./describe.js";
import { OutboundRate } from "./outbound-rate.js";

/** At most this many host timers are live per instance. */
export const MAX_TIMERS = 1000;

/** Where the host object's frames and refusals go. */
export interface HostObjectOutput {
  frame(text: string): void;
  /** A refusal the user should hear of; the instance keeps serving. */
  diagnostic(message: string): void;
}

export class HostObject {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly rate: OutboundRate;
  /** VM functions made before any other code runs, so the prelude or extension cannot replace what they use. */
  private helpers: { range: QuickJSHandle; type: QuickJSHandle; hide: QuickJSHandle } | null = null;

  /**
   * `sources`: every module loaded, by its canonical name (what `callee` reads, callee.ts);
   * `fire(id)`: a timer came due (the sandbox enters the VM for it).
   */
  constructor(
    private readonly ctx: QuickJSContext,
    private readonly settings: SandboxSettings,
    private readonly sources: ReadonlyMap<string, string>,
    private readonly out: HostObjectOutput,
    private readonly fire: (id: number) => void,
  ) {
    this.rate = new OutboundRate(settings.maxOutboundBytesPerSecond, settings.maxOutboundFramesPerSecond);
  }

  /** Defines globalThis.__octet_host (inside a VM entry, before the prelude runs). */
  install(): void {
    const { ctx } = this;
    const setup =
      "(() => { const R = RangeError, T = TypeError, g = globalThis; return [(m) => new R(m), (m) => new T(m), () => " +
      "delete g.__octet_host]; })()";
    const made = ctx.unwrapResult(ctx.evalCode(setup, "octet:host-setup", { type: "global" }));
    this.helpers = { range: ctx.getProp(made, 0), type: ctx.getProp(made, 1), hide: ctx.getProp(made, 2) };
    made.dispose();
    const host = ctx.newObject();
    ctx.newFunction("send", (text) => this.send(text)).consume((f) => ctx.setProp(host, "send", f));
    ctx
      .newFunction("setTimer", (id, delay) => this.setTimer(id, delay))
      .consume((f) => ctx.setProp(host, "setTimer", f));
    ctx.newFunction("clearTimer", (id) => this.clearTimer(id)).consume((f) => ctx.setProp(host, "clearTimer", f));
    ctx
      .newFunction("callee", (stack) => {
        const found =
          ctx.typeof(stack) === "string"
            ? calleeAt(this.sources, ctx.getString(stack).slice(0, DESCRIBE_CHARS))
            : undefined;
        return found === undefined ? ctx.undefined : ctx.newString(found);
      })
      .consume((f) => ctx.setProp(host, "callee", f));
    const env = ctx.newObject();
    for (const [key, value] of Object.entries(this.settings.env))
      ctx.newString(value).consume((v) => ctx.setProp(env, key, v));
    env.consume((e) => ctx.setProp(host, "env", e));
    host.consume((h) => ctx.setProp(ctx.global, "__octet_host", h));
  }

  /** Deletes globalThis.__octet_host with the built-ins captured at install (the prelude should have). */
  hide(): void {
    if (this.helpers !== null) this.ctx.callFunction(this.helpers.hide, this.ctx.undefined).dispose();
  }

  clearTimers(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Stops the timers and frees the handles kept (before the context is freed). */
  dispose(): void {
    this.clearTimers();
    for (const h of [this.helpers?.range, this.helpers?.type, this.helpers?.hide]) {
      if (h?.alive) h.dispose();
    }
    this.helpers = null;
  }

  private send(text: QuickJSHandle): { error: QuickJSHandle } | undefined {
    const { ctx } = this;
    const max = this.settings.maxFrameBytes;
    if (ctx.typeof(text) !== "string")
      return this.thrown("type", `__octet_host.send: a frame must be a string (got ${ctx.typeof(text)})`);
    // UTF-8 never takes fewer bytes than UTF-16 code units: refuse a long string before copying it.
    const units = ctx.getProp(text, "length").consume((n) => ctx.getNumber(n));
    const frame = units > max ? null : ctx.getString(text);
    const bytes = frame === null ? null : Buffer.byteLength(frame, "utf8");
    if (frame === null || bytes === null || bytes > max) {
      const size = bytes === null ? `at least ${units}` : `${bytes}`;
      return this.thrown(
        "range",
        `__octet_host.send: the frame is ${size} bytes of UTF-8, over the ${max}-byte limit (maxFrameBytes); it was ` +
          `not sent`,
      );
    }
    const refused = this.rate.take(bytes, performance.now());
    if (refused !== null) {
      // Said to the host once per window too: the extension may swallow the throw.
      if (refused.first) {
        const why = refused.refusal.slice("__octet_host.send: ".length);
        this.out.diagnostic(`refusing the extension's frames for the rest of this second: ${why}`);
      }
      return this.thrown("range", refused.refusal);
    }
    this.out.frame(frame);
    return undefined;
  }

  private setTimer(idHandle: QuickJSHandle, delayHandle: QuickJSHandle): { error: QuickJSHandle } | undefined {
    const { ctx } = this;
    const id = ctx.typeof(idHandle) === "number" ? ctx.getNumber(idHandle) : NaN;
    const delay = ctx.typeof(delayHandle) === "number" ? ctx.getNumber(delayHandle) : NaN;
    if (!Number.isSafeInteger(id)) return this.thrown("type", "__octet_host.setTimer: the id must be an integer");
    if (Number.isNaN(delay))
      return this.thrown("type", "__octet_host.setTimer: the delay must be a number of milliseconds");
    const existing = this.timers.get(id);
    if (existing === undefined && this.timers.size >= MAX_TIMERS) {
      return this.thrown("range", `__octet_host.setTimer: at most ${MAX_TIMERS} timers can be live per extension`);
    }
    if (existing !== undefined) clearTimeout(existing);
    const ms = Math.min(Math.max(0, delay), 2 ** 31 - 1);
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.fire(id);
      }, ms),
    );
    return undefined;
  }

  private clearTimer(idHandle: QuickJSHandle): void {
    const id = this.ctx.typeof(idHandle) === "number" ? this.ctx.getNumber(idHandle) : NaN;
    const t = this.timers.get(id);
    if (t !== undefined) clearTimeout(t);
    this.timers.delete(id);
  }

  /** A RangeError or TypeError of the VM's own realm, for a host function to throw. */
  private thrown(kind: "range" | "type", message: string): { error: QuickJSHandle } {
    const maker = this.helpers?.[kind];
    if (maker === undefined) return { error: this.ctx.newError(message) };
    const r = this.ctx.newString(message).consume((m) => this.ctx.callFunction(maker, this.ctx.undefined, m));
    return { error: r.error !== undefined ? r.error : r.value };
  }
}
