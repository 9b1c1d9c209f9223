/**
 * One QuickJS extension instance inside its worker thread: the wasm instance with its own
 * bounded memory, the runtime and context, the module loader, and every entry into the VM with
 * its budget. The `__octet_host` object the prelude is given is host-object.ts; the thread
 * plumbing (messages, exit) is worker.ts; the main-thread side is launch-quickjs.ts.
 *
 * Contract with the prelude (docs/decisions.md "QuickJS engine"): `__octet_host` = {send,
 * setTimer, clearTimer, callee, env} exists while the prelude script ("octet:pi-prelude") runs; the
 * script's completion value is the bridge {receive, setFactory, fireTimer}, kept here as a handle
 * and never a global. The entry runs as an ES module after it; its default export goes to
 * bridge.setFactory. Every host frame goes to bridge.receive. Promise jobs are drained after
 * every entry.
 *
 * Bounds, each ending the instance with a Teardown (the VM state is not trusted afterwards):
 * - memory: the wasm Memory is created at its maximum (initial = maximum = memoryLimitBytes), so
 *   any attempt of the heap to grow is refused by the Memory itself -> "memory", the reason
 *   naming the refused grow;
 * - bytecode: the interrupt handler stops an entry (its promise jobs included) past its budget
 *   -> "runaway". The budget is loadBudgetMs for the load, the frame's own budget when the host
 *   gave one, else interruptAfterMs; it is published in the status words, so the main thread's
 *   watchdog (for a builtin that never polls the handler) uses the same one.
 * The stack limit, the frame size and the outbound rate only throw inside the VM; the instance
 * keeps working. Time parked waiting for the host's credit is not engine time (excludeParked).
 */
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
} from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import {
  MAX_BUDGET_MS,
  STATUS_BUDGET_MS,
  STATUS_ENTRY_SEQ,
  STATUS_FREED,
  STATUS_IN_VM,
  STATUS_WASM_PAGES,
  WASM_PAGE_BYTES,
  type SandboxSettings,
} from "./channel.js";
import { installModuleLoader, readModule } from "./module-loader.js";
import { describeThrown, type Described } from "./describe.js";
import { HostObject, type HostObjectOutput } from "./host-object.js";
import { wasm, type WasmMemory, type WasmModule } from "./wasm.js";

export { MAX_TIMERS } from "./host-object.js";
const JOB_BATCH = 256;
const PRELUDE_NAME = "octet:pi-prelude";

/** Ends the instance: the VM state is not to be used again. */
export class Teardown extends Error {
  constructor(
    readonly code: "runaway" | "memory",
    message: string,
  ) {
    super(message);
    this.name = "Teardown";
  }
}

/**
 * The prelude or the entry did not load. The message is the instance's exit reason (the error's
 * name and message); `detail` adds the VM stack, for a stderr line.
 */
export class LoadError extends Error {
  override name = "LoadError";
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/** How long one VM entry may run, and which setting said so (named in a runaway's reason). */
interface Budget {
  ms: number;
  source: string;
}

export interface SandboxOutput extends HostObjectOutput {
  stderr(line: string): void;
  /** A timer entry ended the instance (a Teardown, or an engine failure). */
  failed(error: unknown): void;
}

interface Bridge {
  object: QuickJSHandle;
  receive: QuickJSHandle;
  setFactory: QuickJSHandle;
  fireTimer: QuickJSHandle;
}

function variant(): QuickJSSyncVariant {
  // The ESM build's default export is the variant; the CJS typings see a namespace with a default.
  const v = releaseSync as unknown as QuickJSSyncVariant & { default?: QuickJSSyncVariant };
  return v.default ?? v;
}

export class Sandbox {
  private deadline = Infinity;
  private interrupted = false;
  /** The first grow of the wasm Memory that it refused: the pages asked for and the size it had then. */
  private refusedGrow: { delta: number; pages: number } | null = null;
  private what = "starting";
  private budget: Budget;
  private readonly defaultBudget: Budget;
  private readonly loadBudget: Budget;
  /** The source of every module loaded, by its canonical name: what `callee` reads (callee.ts). */
  private readonly sources = new Map<string, string>();
  private readonly host: HostObject;
  private bridge: Bridge | null = null;
  private disposed = false;

  private constructor(
    private readonly settings: SandboxSettings,
    private readonly memory: WasmMemory,
    private readonly runtime: QuickJSRuntime,
    private readonly ctx: QuickJSContext,
    private readonly status: Int32Array,
    private readonly out: SandboxOutput,
  ) {
    this.defaultBudget = { ms: settings.interruptAfterMs, source: "interruptAfterMs" };
    this.loadBudget = { ms: settings.loadBudgetMs, source: "loadBudgetMs" };
    this.budget = this.defaultBudget;
    this.host = new HostObject(ctx, settings, this.sources, out, (id) => this.fire(id));
  }

  /** Instantiates the wasm with the instance's own Memory and sets the runtime's limits. */
  static async create(
    settings: SandboxSettings,
    wasmModule: WasmModule,
    status: Int32Array,
    out: SandboxOutput,
  ): Promise<Sandbox> {
    const pages = settings.memoryLimitBytes / WASM_PAGE_BYTES;
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    let onRefused = (_delta: number): void => {};
    // emscripten grows the heap through this method and, when it throws, malloc returns NULL.
    // At initial = maximum the Memory refuses every grow past zero pages; the refusal is recorded
    // (a grow that succeeded would mean the Memory was not at its maximum: no bound to report).
    memory.grow = (delta: number): number => {
      try {
        return wasm.Memory.prototype.grow.call(memory, delta);
      } catch (error) {
        onRefused(delta);
        throw error;
      }
    };
    const quickjs = await newQuickJSWASMModuleFromVariant(
      newVariant(variant(), {
        wasmModule,
        wasmMemory: memory,
        // print/printErr are read by the emscripten module but missing from the loader-options type.
        emscriptenModule: {
          print: (line: string) => out.stderr(line),
          printErr: (line: string) => out.stderr(line),
        } as unknown as NonNullable<CustomizeVariantOptions["emscriptenModule"]>,
      }),
    );
    const runtime = quickjs.newRuntime();
    // QuickJS's own limit is kept a little under the Memory's; on this emscripten build its
    // accounting cannot see allocation sizes, so the Memory maximum is the real bound.
    runtime.setMemoryLimit(settings.memoryLimitBytes - settings.memoryLimitBytes / 16);
    runtime.setMaxStackSize(settings.maxStackBytes);
    const ctx = runtime.newContext();
    const sandbox = new Sandbox(settings, memory, runtime, ctx, status, out);
    onRefused = (delta) => {
      sandbox.refusedGrow ??= { delta, pages: memory.buffer.byteLength / WASM_PAGE_BYTES };
    };
    runtime.setInterruptHandler(() => {
      if (performance.now() > sandbox.deadline) {
        sandbox.interrupted = true;
        return true;
      }
      return false;
    });
    installModuleLoader(runtime, settings.packageDir, settings.entry, sandbox.sources);
    Atomics.store(status, STATUS_WASM_PAGES, pages);
    return sandbox;
  }

  /**
   * Runs the prelude, the entry module and the factory hand-off, each within loadBudgetMs, and
   * gives a top-level await loadBudgetMs of wall time to settle (timers fire meanwhile, each
   * with interruptAfterMs). LoadError when one fails.
   */
  async load(): Promise<void> {
    const budget = this.loadBudget;
    this.enter("setting up the host object", () => this.host.install(), budget);
    const bridge = this.enter("running the prelude", () => this.runPrelude(), budget);
    this.bridge = bridge;
    let source: string;
    try {
      source = this.settings.source ?? readModule(this.settings.packageDir, this.settings.entry);
      this.sources.set(this.settings.entry, source);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new LoadError(`the entry failed to load: ${message}`);
    }
    const evaluated = this.enter("evaluating the entry module", () => this.evalEntry(source), budget);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      const ms = budget.ms;
      timer = setTimeout(
        () =>
          reject(
            new LoadError(
              `the entry failed to load: its top-level await did not settle within ${ms} ms (loadBudgetMs)`,
            ),
          ),
        ms,
      );
    });
    const settled = await Promise.race([evaluated, late]).finally(() => clearTimeout(timer));
    this.enter(
      "passing the default export to the prelude",
      () => {
        const fn = settled.consume((ns) => this.ctx.getProp(ns, "default"));
        const r = fn.consume((value) => this.ctx.callFunction(bridge.setFactory, bridge.object, value));
        if (r.error) {
          const d = r.error.consume((e) => this.describe(e));
          throw new LoadError(
            `the prelude's bridge.setFactory failed: ${d.summary}`,
            `the prelude's bridge.setFactory failed: ${d.full}`,
          );
        }
        r.value.dispose();
      },
      budget,
    );
  }

  /**
   * Hands one host frame to the prelude. `budgetMs` (when given) replaces interruptAfterMs for
   * this entry: the prelude's handling of the frame and the promise jobs it queued.
   */
  receive(text: string, budgetMs?: number): void {
    const bridge = this.bridge;
    if (bridge === null) throw new Error("the sandbox received a frame before it was loaded");
    const budget =
      budgetMs === undefined ? this.defaultBudget : { ms: budgetMs, source: "the budget the host gave this frame" };
    this.enter(
      "handling a host frame",
      () => {
        const r = this.ctx.newString(text).consume((arg) => this.ctx.callFunction(bridge.receive, bridge.object, arg));
        if (r.error) this.out.stderr(`quickjs: bridge.receive threw: ${r.error.consume((e) => this.describe(e).full)}`);
        else r.value.dispose();
      },
      budget,
    );
  }

  /** Moves the running entry's deadline by `ms` spent parked outside the engine (worker.ts); returns the ms left. */
  excludeParked(ms: number): number {
    this.deadline += ms;
    return this.deadline - performance.now();
  }

  /** Stops the timers and frees the context and runtime (a normal stop only). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.host.dispose();
    for (const h of [this.bridge?.receive, this.bridge?.setFactory, this.bridge?.fireTimer, this.bridge?.object]) {
      if (h?.alive) h.dispose();
    }
    this.bridge = null;
    this.ctx.dispose();
    this.runtime.dispose();
    Atomics.store(this.status, STATUS_FREED, 1);
  }

  clearTimers(): void {
    this.host.clearTimers();
  }

  /**
   * One VM entry: the budget starts, the watchdog sees it (STATUS_IN_VM), `run` and then the
   * promise jobs run, and a refused allocation or an interruption becomes a Teardown. Every
   * inspection of VM values happens inside `run` (a getter is extension code too).
   */
  private enter<T>(what: string, run: () => T, budget: Budget = this.defaultBudget): T {
    if (this.disposed) throw new Error("the sandbox is disposed");
    this.what = what;
    this.budget = budget;
    this.interrupted = false;
    this.deadline = performance.now() + budget.ms;
    Atomics.store(this.status, STATUS_BUDGET_MS, Math.min(Math.ceil(budget.ms), MAX_BUDGET_MS));
    Atomics.add(this.status, STATUS_ENTRY_SEQ, 1);
    Atomics.store(this.status, STATUS_IN_VM, 1);
    try {
      const value = run();
      this.checkBounds("");
      this.drainJobs();
      return value;
    } catch (error) {
      if (!(error instanceof Teardown)) this.checkBounds("");
      throw error;
    } finally {
      Atomics.store(this.status, STATUS_IN_VM, 0);
      Atomics.store(this.status, STATUS_WASM_PAGES, this.memory.buffer.byteLength / WASM_PAGE_BYTES);
      this.deadline = Infinity;
    }
  }

  private drainJobs(): void {
    while (this.runtime.hasPendingJob()) {
      const r = this.runtime.executePendingJobs(JOB_BATCH);
      if (r.error) this.out.stderr(`quickjs: a promise job threw: ${r.error.consume((e) => this.describe(e).full)}`);
      if (this.refusedGrow !== null || this.interrupted) break;
      if (performance.now() > this.deadline && this.runtime.hasPendingJob()) {
        this.interrupted = true;
        break;
      }
    }
    this.checkBounds(" (running promise jobs)");
  }

  private checkBounds(phase: string): void {
    const mib = this.settings.memoryLimitBytes / (1024 * 1024);
    if (this.refusedGrow !== null) {
      const { delta, pages } = this.refusedGrow;
      throw new Teardown(
        "memory",
        `the extension's heap reached its ${mib} MiB limit while ${this.what}${phase}: the wasm memory (${pages} ` +
          `pages, its maximum) refused to grow by ${delta} pages, so an allocation failed and the instance was torn ` +
          `down`,
      );
    }
    if (this.interrupted) {
      throw new Teardown(
        "runaway",
        `the extension ran longer than its ${this.budget.ms} ms budget (${this.budget.source}) while ` +
          `${this.what}${phase} and was interrupted; the instance was torn down`,
      );
    }
  }

  private runPrelude(): Bridge {
    const { ctx } = this;
    const r = ctx.evalCode(this.settings.prelude, PRELUDE_NAME, { type: "global" });
    if (r.error) {
      const d = r.error.consume((e) => this.describe(e));
      throw new LoadError(
        `the prelude (${PRELUDE_NAME}) failed: ${d.summary}`,
        `the prelude (${PRELUDE_NAME}) failed: ${d.full}`,
      );
    }
    const object = r.value;
    const fns: QuickJSHandle[] = [];
    for (const name of ["receive", "setFactory", "fireTimer"]) {
      const fn = ctx.getProp(object, name);
      fns.push(fn);
      const type = ctx.typeof(fn);
      if (type !== "function") {
        for (const h of [...fns, object]) h.dispose();
        throw new LoadError(
          `the prelude (${PRELUDE_NAME}) must complete with the bridge {receive, setFactory, fireTimer}; its ${name} ` +
            `is ${type}`,
        );
      }
    }
    // The prelude deletes it; a prelude that did not (or could not) must not expose it.
    this.host.hide();
    const left = ctx.getProp(ctx.global, "__octet_host");
    const visible = ctx.typeof(left) !== "undefined";
    left.dispose();
    if (visible) {
      for (const h of [...fns, object]) h.dispose();
      throw new LoadError(
        `the prelude (${PRELUDE_NAME}) left globalThis.__octet_host in place and it cannot be deleted`,
      );
    }
    return { object, receive: fns[0]!, setFactory: fns[1]!, fireTimer: fns[2]! };
  }

  /** Evaluates the entry; resolves to its namespace (after a top-level await settles). */
  private evalEntry(source: string): Promise<QuickJSHandle> {
    const { ctx, settings } = this;
    const failed = (d: Described): LoadError =>
      new LoadError(`the entry failed to load: ${d.summary}`, `the entry ${settings.entry} failed to load: ${d.full}`);
    const r = ctx.evalCode(source, settings.entry, { type: "module" });
    if (r.error) throw failed(r.error.consume((e) => this.describe(e)));
    const state = ctx.getPromiseState(r.value);
    if (state.type === "fulfilled") {
      if (state.notAPromise) return Promise.resolve(r.value);
      r.value.dispose();
      return Promise.resolve(state.value);
    }
    if (state.type === "rejected") {
      r.value.dispose();
      throw failed(state.error.consume((e) => this.describe(e)));
    }
    return r.value
      .consume((p) => ctx.resolvePromise(p))
      .then((settled) => {
        if (settled.error)
          throw failed(
            this.enter(
              "reporting the entry's failure",
              () => settled.error.consume((e) => this.describe(e)),
              this.loadBudget,
            ),
          );
        return settled.value;
      });
  }

  /** A timer came due (the host object has already forgotten it): bridge.fireTimer in an entry of its own. */
  private fire(id: number): void {
    const bridge = this.bridge;
    if (bridge === null || this.disposed) return;
    try {
      this.enter("running a timer", () => {
        const r = this.ctx.newNumber(id).consume((arg) => this.ctx.callFunction(bridge.fireTimer, bridge.object, arg));
        if (r.error)
          this.out.stderr(`quickjs: bridge.fireTimer threw: ${r.error.consume((e) => this.describe(e).full)}`);
        else r.value.dispose();
      });
    } catch (error) {
      this.out.failed(error);
    }
  }

  /** "Name: message" of a thrown value, and with its stack (runs inside an entry: getters run). */
  private describe(thrown: QuickJSHandle): Described {
    return describeThrown(this.ctx, thrown);
  }
}
