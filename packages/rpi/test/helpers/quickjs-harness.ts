/**
 * Runs the real pi prelude in a real QuickJS runtime on the main thread, playing the engine's part
 * of the contract (src/quickjs/pi-prelude.ts): `__octet_host` with a send that records frames and
 * throws a RangeError over the frame limit, timers on Node's setTimeout, and the env; then the
 * prelude, the extension module, setFactory, and a job-queue drain after every bridge call.
 *
 * Every outbound frame must pass the host's strict reader (parseExtensionFrame): take() throws
 * otherwise, so a frame that strays from the catalog fails the test that produced it.
 * Every handle the harness takes is disposed (QuickJS aborts on a leaked one at runtime disposal).
 */
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { PI_PRELUDE } from "../../src/quickjs/pi-prelude.js";
import { parseExtensionFrame } from "../../src/index.js";

/** A decoded frame; tests compare whole frames with deepEqual. */
export type Frame = { type: string } & Record<string, unknown>;

export interface HarnessOptions {
  id?: string;
  capabilities?: string[];
  uiCapabilities?: string[];
  maxFrameBytes?: number;
}

let loading: Promise<QuickJSWASMModule> | undefined;
// The variant's types are its CommonJS ones (module.exports with a `default` member), but Node
// imports its ESM build, whose default export is the variant itself.
const quickjs = (): Promise<QuickJSWASMModule> =>
  (loading ??= newQuickJSWASMModuleFromVariant(variant as unknown as QuickJSSyncVariant));

export class PreludeHarness {
  /** Outbound frames not yet taken. */
  private readonly out: Frame[] = [];
  private readonly violations: string[] = [];
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private bridge: QuickJSHandle | undefined;
  private disposed = false;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
  ) {}

  /**
   * Starts the prelude; with `source`, evaluates it as the entry module and passes its default export
   * to setFactory.
   */
  static async start(source: string | undefined, options: HarnessOptions = {}): Promise<PreludeHarness> {
    const runtime = (await quickjs()).newRuntime();
    const context = runtime.newContext();
    const h = new PreludeHarness(runtime, context);
    h.defineHost(options);
    h.bridge = context.unwrapResult(context.evalCode(PI_PRELUDE, "pi-prelude.js", { type: "global" }));
    if (source !== undefined) {
      let namespace = context.unwrapResult(context.evalCode(source, "ext.mjs", { type: "module" }));
      h.drain();
      const state = context.getPromiseState(namespace);
      if (state.type === "fulfilled" && !state.notAPromise) {
        namespace.dispose();
        namespace = state.value;
      } else if (state.type !== "fulfilled") {
        namespace.dispose();
        throw new Error(`the entry module did not evaluate: ${state.type}`);
      }
      const exported = context.getProp(namespace, "default");
      namespace.dispose();
      h.call("setFactory", exported);
      exported.dispose();
    }
    return h;
  }

  private defineHost(options: HarnessOptions): void {
    const { context } = this;
    const limit = options.maxFrameBytes ?? 1048576;
    const host = context.newObject();
    const fns: Array<[string, QuickJSHandle]> = [
      [
        "send",
        context.newFunction("send", (text) => {
          const s = context.getString(text);
          const bytes = Buffer.byteLength(s, "utf8");
          // The engine's message (sandbox.ts), which the prelude passes on.
          if (bytes > limit)
            throw new RangeError(
              `__octet_host.send: the frame is ${bytes} bytes of UTF-8, over the ${limit}-byte limit ` +
                `(maxFrameBytes); it was not sent`,
            );
          const frame = JSON.parse(s) as Frame;
          const parsed = parseExtensionFrame(frame);
          if (!parsed.ok) this.violations.push(`${parsed.problem} in ${s}`);
          this.out.push(frame);
        }),
      ],
      [
        "setTimer",
        context.newFunction("setTimer", (idHandle, delayHandle) => {
          const id = context.getNumber(idHandle);
          const delay = context.getNumber(delayHandle);
          clearTimeout(this.timers.get(id));
          this.timers.set(
            id,
            setTimeout(() => {
              this.timers.delete(id);
              if (this.disposed) return;
              const idArg = context.newNumber(id);
              this.call("fireTimer", idArg);
              idArg.dispose();
            }, delay),
          );
        }),
      ],
      [
        "clearTimer",
        context.newFunction("clearTimer", (idHandle) => {
          const id = context.getNumber(idHandle);
          clearTimeout(this.timers.get(id));
          this.timers.delete(id);
        }),
      ],
    ];
    for (const [name, fn] of fns) {
      context.setProp(host, name, fn);
      fn.dispose();
    }
    const env = context.newObject();
    const values: Record<string, string> = {
      PI_EXTENSION_ID: options.id ?? "pi-test",
      PI_EXTENSION_PACKAGE_ID: "pkg-test",
      PI_EXTENSION_ENTRY: "/pkg/extensions/pi-test/index.mjs",
      PI_EXTENSION_CAPABILITIES: JSON.stringify(options.capabilities ?? []),
      PI_EXTENSION_UI_CAPABILITIES: JSON.stringify(options.uiCapabilities ?? []),
      PI_EXTENSION_MAX_FRAME_BYTES: String(limit),
      PI_EXTENSION_PROTOCOL_VERSION: "1",
    };
    for (const [key, value] of Object.entries(values)) {
      const s = context.newString(value);
      context.setProp(env, key, s);
      s.dispose();
    }
    context.setProp(host, "env", env);
    env.dispose();
    context.setProp(context.global, "__octet_host", host);
    host.dispose();
  }

  private call(method: "receive" | "setFactory" | "fireTimer", arg: QuickJSHandle): void {
    if (this.bridge === undefined) throw new Error("the prelude did not start");
    const result = this.context.callMethod(this.bridge, method, [arg]);
    if (result.error) {
      const error: unknown = this.context.dump(result.error);
      result.error.dispose();
      throw new Error(`bridge.${method} threw: ${JSON.stringify(error)}`);
    }
    result.value.dispose();
    this.drain();
  }

  private drain(): void {
    const result = this.runtime.executePendingJobs();
    if (result.error) {
      const error: unknown = this.context.dump(result.error);
      result.error.dispose();
      throw new Error(`a job threw: ${JSON.stringify(error)}`);
    }
  }

  /** Delivers one host frame (serialized as the engine would) and drains the job queue. */
  send(frame: object): void {
    const text = this.context.newString(JSON.stringify(frame));
    this.call("receive", text);
    text.dispose();
  }

  /** Delivers raw text as a host frame. */
  sendText(raw: string): void {
    const text = this.context.newString(raw);
    this.call("receive", text);
    text.dispose();
  }

  /** Takes (and forgets) every outbound frame so far. */
  /**
   * The frames sent since the last take. A request's `parentId` (which invocation it is made for)
   * is moved into `parents`, keyed by the request id, so frame assertions stay about the catalog
   * shape and the parent checks are made where they are the point (pi-prelude-parent.test.ts).
   */
  take(): Frame[] {
    if (this.violations.length > 0) throw new Error(`frames outside the catalog: ${this.violations.join("; ")}`);
    const frames = this.out.splice(0, this.out.length);
    for (const f of frames) {
      const r = f as { type?: unknown; id?: unknown; request?: Record<string, unknown> };
      if (r.type === "request" && r.request && "parentId" in r.request) {
        this.parents.set(String(r.id), r.request["parentId"]);
        delete r.request["parentId"];
      }
    }
    return frames;
  }

  /** request id -> the parentId its frame carried (see take()). */
  readonly parents = new Map<string, unknown>();

  /** Waits (timers run meanwhile) until the outbound frames satisfy `ready`, then takes them. */
  async until(ready: (frames: readonly Frame[]) => boolean, timeoutMs = 2000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs;
    while (!ready(this.out)) {
      if (Date.now() > deadline) throw new Error(`timed out; frames so far: ${JSON.stringify(this.out)}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return this.take();
  }

  /** Evaluates global code inside the extension's context and returns its dumped value. */
  evaluate(code: string): unknown {
    const handle = this.context.unwrapResult(this.context.evalCode(code, "probe.js", { type: "global" }));
    const value: unknown = this.context.dump(handle);
    handle.dispose();
    this.drain();
    return value;
  }

  /** Host hello, then initialize: returns the frames the extension sent in answer to both. */
  handshake(
    hello: { mode?: string; cwd?: string; projectTrusted?: boolean; flags?: Record<string, string | boolean> } = {},
  ): Frame[] {
    this.send({
      type: "hello",
      protocolVersion: 1,
      instance: { extensionId: "pi-test", generation: 1 },
      cwd: hello.cwd ?? "/work/project",
      mode: hello.mode ?? "tui",
      projectTrusted: hello.projectTrusted ?? true,
      ...(hello.flags ? { flags: hello.flags } : {}),
    });
    this.send({ type: "request", id: "req-1", generation: 1, request: { kind: "initialize" } });
    return this.take();
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.bridge?.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}

/** Starts `source` with `options`, shakes hands, and checks the initialize answer was a success. */
export async function loaded(
  source: string,
  options: HarnessOptions = {},
): Promise<{ h: PreludeHarness; load: Frame[] }> {
  const h = await PreludeHarness.start(source, options);
  const load = h.handshake();
  const last = load[load.length - 1];
  if (
    last === undefined ||
    JSON.stringify(last) !== JSON.stringify({ type: "response", id: "req-1", result: { status: "success", value: {} } })
  ) {
    h.dispose();
    throw new Error(`the load failed: ${JSON.stringify(load)}`);
  }
  return { h, load };
}

/** A host invoke request frame. */
export function invoke(id: string, invocation: object, context?: object): object {
  return {
    type: "request",
    id,
    generation: 1,
    request: context === undefined ? { kind: "invoke", invocation } : { kind: "invoke", invocation, context },
  };
}

/** The success response frame to host request `id`. */
export const ok = (id: string, value: unknown): object => ({
  type: "response",
  id,
  result: { status: "success", value },
});
/** The error response frame to host request `id`. */
export const err = (id: string, message: string): object => ({
  type: "response",
  id,
  result: { status: "error", error: { message } },
});
/** An extension's default-exported factory with `body`. */
export const ext = (body: string): string => `export default function (pi) {\n${body}\n}\n`;
/** The prelude's message for `frame` (as the prelude would encode it) refused by the engine over `limit` bytes. */
export const overLimit = (what: string, frame: object, limit: number): string =>
  `${what} could not be sent: __octet_host.send: the frame is ${Buffer.byteLength(JSON.stringify(frame))} bytes of ` +
  `UTF-8, over the ${limit}-byte limit (maxFrameBytes); it was not sent`;
