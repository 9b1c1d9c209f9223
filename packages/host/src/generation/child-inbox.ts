/**
 * What an extension may send the host, and how each message is admitted. The inbox keeps the
 * generic rules: readiness, the child id rules of REV-02..06, the outstanding bound, the parent
 * rules of REV-07/08 (scope.parent) and cancellation by the extension (CANCEL-09). Every method is
 * answered by the host module the registry routes it to (modules/): confirmation, input,
 * notifications, contributions, and the embedder services; a method no open module answers is
 * unsupported. Every diagnostic goes through the generation's rate-limited channel.
 */
import {
  ErrorCode,
  IdTable,
  WireError,
  bounds,
  methodSpec,
  type ApiVersion,
  type MethodKind,
  type MethodSpec,
  type JsonRpcId,
  type NotificationMessage,
  type RequestMessage,
} from "@octet/protocol";
import type { DiagnosticLevel, HostEvent } from "../events.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { ActiveParent, ServiceGeneration } from "../modules/module.js";
import { GenerationModules } from "../modules/module-set.js";
import { BARE_HOST, bindModules } from "../modules/registry.js";
import { anySignal } from "../modules/signals.js";
import { requireParent } from "../modules/parent.js";
import type { ConfirmService } from "../modules/confirmation/module.js";
import type { InputService } from "../modules/input/module.js";

export type { ConfirmService } from "../modules/confirmation/module.js";
export type { InputService } from "../modules/input/module.js";
export type { ActiveParent } from "../modules/module.js";

/** Host requests that may parent reverse requests (CALL-11). */
const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

export interface InboxContext {
  readonly name: string;
  readonly api: ApiVersion;
  readonly generation: number;
  readonly manifest: ExtensionManifest;
  /** The frontend services of an inbox built without `modules` (a generation passes its modules). */
  readonly confirm?: ConfirmService | undefined;
  readonly input?: InputService | undefined;
  /** True while the generation may exchange messages: ready, or draining with work in flight. */
  accepting(): boolean;
  /** The active host request with this id: its method and a signal aborted when it settles. */
  activeRequest(id: number): ActiveParent | undefined;
  /** True while the initialize request is in flight: only shortcut/register is admitted (REV-01). */
  initializing?(): boolean;
  /** Aborted when the generation ends. */
  readonly generationSignal: AbortSignal;
  emit(event: HostEvent): void;
  diagnose(level: DiagnosticLevel, message: string): void;
  /** The clock of the rate windows (tests inject one). */
  now?: () => number;
  /** The features negotiated; a method behind one not negotiated is refused. Absent: not checked. */
  features?(): readonly string[];
  /** The host modules opened for this generation; absent: the registry's, bound to confirm and input only. */
  readonly modules?: GenerationModules;
}

export class ChildInbox {
  readonly #ctx: InboxContext;
  /**
   * Outstanding child requests, each with the controller the extension may cancel it by
   * (CANCEL-09). An IdTable: a Map churned per request outlives its entries (id-table.ts).
   */
  readonly #outstanding = new IdTable<AbortController>();
  readonly #used = new Set<JsonRpcId>();
  readonly #modules: GenerationModules;

  constructor(ctx: InboxContext) {
    this.#ctx = ctx;
    const frontend = { confirm: ctx.confirm, input: ctx.input };
    this.#modules = ctx.modules ?? new GenerationModules(bindModules(frontend, BARE_HOST), inboxGeneration(ctx));
  }

  /** Child requests awaiting the host's answer. */
  get outstanding(): number {
    return this.#outstanding.size;
  }

  async request(request: RequestMessage): Promise<unknown> {
    const ctx = this.#ctx;
    // REV-01's one exception: shortcut/register inside initialize, before any feature is selected
    // (the module admits it only with the initialize request as its parent, WAVE1-24).
    const inInitialize = request.method === "shortcut/register" && ctx.initializing?.() === true;
    if (!ctx.accepting() && !inInitialize)
      throw new WireError(ErrorCode.Unavailable, `${request.method} refused: the extension is not ready`);
    const id = request.id;
    // Child ids are unique among outstanding requests and never reused in a generation (REV-03).
    if (this.#outstanding.has(id))
      throw new WireError(
        ErrorCode.InvalidRequest,
        `request id ${JSON.stringify(id)} is already used by an outstanding request`,
      );
    if (this.#used.has(id))
      throw new WireError(
        ErrorCode.InvalidRequest,
        `request id ${JSON.stringify(id)} was already used in this generation; ids are never reused`,
      );
    if (this.#outstanding.size >= bounds.MAX_OUTSTANDING_CHILD_REQUESTS) {
      throw new WireError(
        ErrorCode.Unavailable,
        `too many outstanding requests: ${this.#outstanding.size}, the limit is ` +
          `${bounds.MAX_OUTSTANDING_CHILD_REQUESTS}`,
      );
    }
    if (this.#used.size >= bounds.MAX_CHILD_IDS_PER_GENERATION) {
      throw new WireError(
        ErrorCode.Unavailable,
        `request id budget exhausted: ${bounds.MAX_CHILD_IDS_PER_GENERATION} distinct ids per generation`,
      );
    }
    this.#used.add(id);
    const own = new AbortController();
    this.#outstanding.set(id, own);
    const cleanup: (() => void)[] = [];
    try {
      const spec = this.#legal(request.method, "request");
      const selected = ctx.features?.() ?? [];
      if (spec?.feature !== undefined && ctx.features && !selected.includes(spec.feature) && !inInitialize) {
        const why = `needs the ${spec.feature} feature, which was not negotiated`;
        throw new WireError(ErrorCode.MethodNotFound, `unsupported_feature ${request.method} ${why}`);
      }
      const handler = spec ? this.#modules.request(request.method) : undefined;
      if (handler) {
        const ownSignal = anySignal(ctx.generationSignal, own.signal);
        cleanup.push(ownSignal.dispose);
        return await handler({
          method: request.method,
          id,
          params: request.params,
          signal: ownSignal.signal,
          parent: (parentId) => {
            requireParent(request.method, { parent_request_id: parentId });
            if (typeof parentId !== "number" || !Number.isSafeInteger(parentId)) {
              const why = "parent_request_id must be the integer id of an active host request";
              throw new WireError(ErrorCode.InvalidParams, `${request.method}: ${why}`);
            }
            return { ...this.#scope(request.method, parentId, own.signal, cleanup), parentId };
          },
        });
      }
      throw new WireError(
        ErrorCode.MethodNotFound,
        `unsupported_feature ${request.method} is not offered by this host`,
      );
    } finally {
      this.#outstanding.delete(id);
      for (const f of cleanup) f();
    }
  }

  /** $/cancelRequest from the extension for one of its own outstanding requests (CANCEL-09). */
  cancel(id: unknown): void {
    if (typeof id !== "number" && typeof id !== "string") return;
    this.#outstanding.get(id)?.abort();
  }

  /**
   * The method table's declaration of `method` when the extension may send it as `kind` on this
   * generation's API version; undefined for anything else, which is answered as unsupported.
   */
  #legal(method: string, kind: MethodKind): MethodSpec | undefined {
    const spec = methodSpec(method);
    if (!spec || spec.direction === "host->child" || spec.kind !== kind) return undefined;
    return spec.apiVersions.includes(this.#ctx.api) ? spec : undefined;
  }

  /** The active parent's signal (REV-07, REV-08), combined with the request's own cancellation. */
  #scope(
    method: string,
    parentId: number,
    own: AbortSignal,
    cleanup: (() => void)[],
  ): {
    signal: AbortSignal;
    parent: ActiveParent;
  } {
    const parent = this.#ctx.activeRequest(parentId);
    if (!parent || !PARENT_METHODS.includes(parent.method)) {
      throw new WireError(
        ErrorCode.Unavailable,
        `${method} refused: parent_request_id ${String(parentId)} is not an active tool/call or command/execute`,
      );
    }
    const combined = anySignal(parent.signal, own);
    cleanup.push(combined.dispose);
    return { signal: combined.signal, parent };
  }

  notification(n: NotificationMessage): void {
    const ctx = this.#ctx;
    if (!ctx.accepting()) {
      ctx.diagnose("warning", `ignored ${n.method.slice(0, 64)} sent while the extension was not ready`);
      return;
    }
    const spec = this.#legal(n.method, "notification");
    if (spec?.feature !== undefined && ctx.features && !ctx.features().includes(spec.feature)) {
      return ctx.diagnose(
        "warning",
        `ignored ${n.method}: needs the ${spec.feature} feature, which was not negotiated`,
      );
    }
    const handler = spec ? this.#modules.notification(n.method) : undefined;
    if (handler) return handler(n.params);
    ctx.diagnose("warning", `ignored unknown notification ${JSON.stringify(n.method.slice(0, 64))}`);
  }
}

/**
 * The generation a standalone inbox's modules see. Only the embedder services use the scratch
 * directory, the owner and the catalog, and a standalone inbox binds none of them.
 */
function inboxGeneration(ctx: InboxContext): ServiceGeneration {
  const none = (what: string): never => {
    throw new Error(`a standalone child inbox has no ${what}`);
  };
  return {
    name: ctx.name,
    api: ctx.api,
    number: ctx.generation,
    manifest: ctx.manifest,
    scratchDir: () => null,
    owner: () => none("owner"),
    catalog: { tools: () => [], publish: () => none("catalog"), features: () => [] },
    ended: ctx.generationSignal,
    activeRequest: (id) => ctx.activeRequest(id),
    diagnose: (level, message) => ctx.diagnose(level, message),
    emit: (event) => ctx.emit(event),
    ...(ctx.now ? { now: ctx.now } : {}),
  };
}
