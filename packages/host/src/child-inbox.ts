/**
 * What an extension may send the host, and how each message is admitted: the reverse requests
 * (confirmation/request today) with the child id rules of REV-02..06 and the parent rules of
 * REV-07/08, and the notifications (notification, context/contribution, status/contribution)
 * gated by the manifest's declarations and bounded in rate. Every refusal names the rule; every
 * diagnostic goes through the generation's rate-limited channel.
 */
import {
  ErrorCode, WireError, bounds, isNegotiated,
  validateConfirmationParams, validateContextContribution, validateNotification, validateStatusContribution,
  validateInputParams, utf8ByteLength,
  type ApiVersion, type JsonRpcId, type NotificationMessage, type RequestMessage,
} from "@octet/protocol";
import { getMaxListeners, setMaxListeners } from "node:events";
import type { DiagnosticLevel, HostEvent } from "./events.js";
import type { ExtensionManifest } from "./manifest/manifest.js";
import { RateWindow } from "./util/rate-window.js";
import type { GenerationServices } from "./services/child-service.js";

/** The embedder's answer to a confirmation; `signal` aborts when nobody needs the answer any more. */
export type ConfirmService = (request: {
  extension: string;
  prompt: string;
  detail?: string;
  destructive: boolean;
  default: boolean;
  signal: AbortSignal;
}) => Promise<boolean>;

/**
 * The embedder's text input for input/request (API 0.2+). Resolve null when the person cancels
 * or nobody can answer; `signal` aborts when the answer is no longer needed. A secret answer must
 * never be logged: the host passes it only on the private reply.
 */
export type InputService = (request: { extension: string; prompt: string; secret: boolean; signal: AbortSignal }) => Promise<string | null>;

/** Host requests that may parent reverse requests (CALL-11). */
const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

/** An active host request as a parent of reverse requests. */
export interface ActiveParent {
  method: string;
  /** Aborted when the request settles. */
  signal: AbortSignal;
  /** True once if the embedder pre-approved this request's first confirmation (MENU-13). */
  takeApproval(): boolean;
}

export interface InboxContext {
  readonly name: string;
  readonly api: ApiVersion;
  readonly generation: number;
  readonly manifest: ExtensionManifest;
  readonly confirm: ConfirmService | undefined;
  readonly input: InputService | undefined;
  /** True while the generation may exchange messages: ready, or draining with work in flight. */
  accepting(): boolean;
  /** The active host request with this id: its method and a signal aborted when it settles. */
  activeRequest(id: number): ActiveParent | undefined;
  /** Aborted when the generation ends. */
  readonly generationSignal: AbortSignal;
  emit(event: HostEvent): void;
  diagnose(level: DiagnosticLevel, message: string): void;
  /** The clock of the rate windows (tests inject one). */
  now?: () => number;
  /** The host services bound for this generation (artifacts, presentation, policy, ...). */
  readonly services?: GenerationServices;
}

export class ChildInbox {
  readonly #ctx: InboxContext;
  readonly #outstanding = new Set<JsonRpcId>();
  readonly #used = new Set<JsonRpcId>();
  readonly #notifications: RateWindow;
  readonly #contributionRate: RateWindow;
  /** Distinct context labels this generation used: the host keeps one entry per label (CTX-06/07). */
  readonly #labels = new Set<string>();
  /** Outstanding child requests the extension may itself cancel (CANCEL-09). */
  readonly #cancellers = new Map<JsonRpcId, AbortController>();

  constructor(ctx: InboxContext) {
    this.#ctx = ctx;
    this.#notifications = new RateWindow(bounds.MAX_NOTIFICATIONS_PER_SECOND, ctx.now);
    this.#contributionRate = new RateWindow(bounds.MAX_CONTRIBUTIONS_PER_SECOND, ctx.now);
  }

  /** Child requests awaiting the host's answer. */
  get outstanding(): number {
    return this.#outstanding.size;
  }

  async request(request: RequestMessage): Promise<unknown> {
    const ctx = this.#ctx;
    if (!ctx.accepting()) throw new WireError(ErrorCode.Unavailable, `${request.method} refused: the extension is not ready`);
    const id = request.id;
    // Child ids are unique among outstanding requests and never reused in a generation (REV-03).
    if (this.#outstanding.has(id)) throw new WireError(ErrorCode.InvalidRequest, `request id ${JSON.stringify(id)} is already used by an outstanding request`);
    if (this.#used.has(id)) throw new WireError(ErrorCode.InvalidRequest, `request id ${JSON.stringify(id)} was already used in this generation; ids are never reused`);
    if (this.#outstanding.size >= bounds.MAX_OUTSTANDING_CHILD_REQUESTS) {
      throw new WireError(ErrorCode.Unavailable, `too many outstanding requests: ${this.#outstanding.size}, the limit is ${bounds.MAX_OUTSTANDING_CHILD_REQUESTS}`);
    }
    if (this.#used.size >= bounds.MAX_CHILD_IDS_PER_GENERATION) {
      throw new WireError(ErrorCode.Unavailable, `request id budget exhausted: ${bounds.MAX_CHILD_IDS_PER_GENERATION} distinct ids per generation`);
    }
    this.#used.add(id);
    this.#outstanding.add(id);
    const own = new AbortController();
    this.#cancellers.set(id, own);
    const cleanup: (() => void)[] = [];
    try {
      if (request.method === "confirmation/request") return await this.#confirmation(request, own.signal, cleanup);
      if (request.method === "input/request" && isNegotiated(ctx.api)) return await this.#input(request, own.signal, cleanup);
      const service = isNegotiated(ctx.api) ? ctx.services?.request(request.method) : undefined;
      if (service) {
        const ownSignal = anySignal(ctx.generationSignal, own.signal);
        cleanup.push(ownSignal.dispose);
        return await service({
          method: request.method,
          id,
          params: request.params,
          signal: ownSignal.signal,
          parent: (parentId) => {
            if (parentId === undefined || parentId === null) throw new WireError(ErrorCode.Unavailable, `${request.method} refused: parent_request_id is missing; it must name an active tool/call or command/execute`);
            if (typeof parentId !== "number" || !Number.isSafeInteger(parentId)) throw new WireError(ErrorCode.InvalidParams, `${request.method}: parent_request_id must be the integer id of an active host request`);
            const scoped = this.#scope(request.method, parentId, own.signal, cleanup);
            return { signal: scoped.signal, parent: scoped.parent!, parentId };
          },
        });
      }
      throw new WireError(ErrorCode.MethodNotFound, `unsupported_feature ${request.method} is not offered by this host`);
    } finally {
      this.#outstanding.delete(id);
      this.#cancellers.delete(id);
      for (const f of cleanup) f();
    }
  }

  /** $/cancelRequest from the extension for one of its own outstanding requests (CANCEL-09). */
  cancel(id: unknown): void {
    if (typeof id !== "number" && typeof id !== "string") return;
    this.#cancellers.get(id)?.abort();
  }

  /**
   * The parent's signal for an operation-scoped request on API 0.2+ (REV-07, REV-08), combined
   * with the request's own cancellation; on API 0.1 the generation's signal.
   */
  #scope(method: string, parentId: number | undefined, own: AbortSignal, cleanup: (() => void)[]): { signal: AbortSignal; parent: ActiveParent | undefined } {
    const ctx = this.#ctx;
    let parentSignal = ctx.generationSignal;
    let parent: ActiveParent | undefined;
    if (isNegotiated(ctx.api)) {
      parent = parentId === undefined ? undefined : ctx.activeRequest(parentId);
      if (!parent || !PARENT_METHODS.includes(parent.method)) {
        throw new WireError(ErrorCode.Unavailable, `${method} refused: parent_request_id ${String(parentId)} is not an active tool/call or command/execute`);
      }
      parentSignal = parent.signal;
    }
    const combined = anySignal(parentSignal, own);
    cleanup.push(combined.dispose);
    return { signal: combined.signal, parent };
  }

  async #input(request: RequestMessage, own: AbortSignal, cleanup: (() => void)[]): Promise<unknown> {
    const ctx = this.#ctx;
    requireParent("input/request", request.params);
    const checked = validateInputParams(request.params);
    if (!checked.ok) throw new WireError(ErrorCode.InvalidParams, `invalid input/request: ${checked.problems.join("; ")}`);
    const p = checked.value;
    const { signal } = this.#scope("input/request", p.parent_request_id, own, cleanup);
    // Headless or unavailable: cancelled, never guessed (INPUT-06).
    if (!ctx.input) return { value: null };
    let value: string | null;
    try {
      value = (await settleBy(ctx.input({ extension: ctx.name, prompt: p.prompt, secret: p.secret, signal }), signal)) ?? null;
    } catch {
      value = null;
    }
    if (signal.aborted) throw new WireError(ErrorCode.RequestCancelled, "input/request cancelled: its parent settled or it was cancelled");
    if (value !== null && utf8ByteLength(value) > bounds.MAX_INPUT_VALUE_BYTES) {
      // The value itself is never put in a diagnostic: it may be secret (INPUT-05).
      ctx.diagnose("warning", `input/request answer dropped: ${utf8ByteLength(value)} bytes, over the ${bounds.MAX_INPUT_VALUE_BYTES}-byte limit`);
      value = null;
    }
    return { value };
  }

  async #confirmation(request: RequestMessage, own: AbortSignal, cleanup: (() => void)[]): Promise<unknown> {
    const ctx = this.#ctx;
    if (isNegotiated(ctx.api)) requireParent("confirmation/request", request.params);
    const checked = validateConfirmationParams(request.params, ctx.api);
    if (!checked.ok) throw new WireError(ErrorCode.InvalidParams, `invalid confirmation/request: ${checked.problems.join("; ")}`);
    const p = checked.value;
    // The parent must be an active tool/call or command/execute of this generation (CONF-02, REV-08).
    const { signal, parent } = this.#scope("confirmation/request", p.parent_request_id, own, cleanup);
    if (!ctx.manifest.contributes.confirmations) {
      ctx.diagnose("warning", "confirmation/request denied: the manifest does not declare contributes.confirmations");
      return { confirmed: false };
    }
    // A destructive menu action the person already confirmed: its own first question is answered (MENU-13).
    if (parent?.takeApproval()) return { confirmed: true };
    // No interactive frontend: a denial, never a guess (CONF-04).
    if (!ctx.confirm) return { confirmed: false };
    let confirmed = false;
    try {
      const answer = ctx.confirm({ extension: ctx.name, prompt: p.prompt, ...(p.detail !== undefined ? { detail: p.detail } : {}), destructive: p.destructive, default: p.default, signal });
      confirmed = (await settleBy(answer, signal)) === true;
    } catch {
      confirmed = false;
    }
    // A cancelled child request is answered -32800 (FRAME-14); on API 0.1 there is no parent.
    if (signal.aborted && isNegotiated(ctx.api)) throw new WireError(ErrorCode.RequestCancelled, "confirmation/request cancelled: its parent settled or it was cancelled");
    return { confirmed: confirmed && !signal.aborted };
  }

  /** Contributions are rate-limited like notifications: a flood reaches the embedder as one diagnostic per window. */
  #admitContribution(method: string): boolean {
    const { admitted, droppedBefore } = this.#contributionRate.admit();
    if (droppedBefore > 0) this.#ctx.diagnose("warning", `dropped ${droppedBefore} contributions over ${bounds.MAX_CONTRIBUTIONS_PER_SECOND} per second`);
    if (!admitted && this.#contributionRate.dropped === 1) this.#ctx.diagnose("warning", `${method} rate over ${bounds.MAX_CONTRIBUTIONS_PER_SECOND} per second; dropping the excess for this second`);
    return admitted;
  }

  notification(n: NotificationMessage): void {
    const ctx = this.#ctx;
    if (!ctx.accepting()) {
      ctx.diagnose("warning", `ignored ${n.method.slice(0, 64)} sent while the extension was not ready`);
      return;
    }
    const c = ctx.manifest.contributes;
    const base = { extension: ctx.name, generation: ctx.generation };
    switch (n.method) {
      case "notification": {
        if (!c.notifications) return ctx.diagnose("warning", "dropped a notification: the manifest does not declare contributes.notifications");
        const checked = validateNotification(n.params);
        if (!checked.ok) return ctx.diagnose("warning", `dropped an invalid notification: ${checked.problems.join("; ")}`);
        const { admitted, droppedBefore } = this.#notifications.admit();
        if (droppedBefore > 0) ctx.diagnose("warning", `dropped ${droppedBefore} notifications over ${bounds.MAX_NOTIFICATIONS_PER_SECOND} per second`);
        if (admitted) ctx.emit({ type: "notification", ...base, notification: checked.value });
        return;
      }
      case "context/contribution": {
        if (!c.context) return ctx.diagnose("warning", "dropped a context/contribution: the manifest does not declare contributes.context");
        const checked = validateContextContribution(n.params);
        if (!checked.ok) return ctx.diagnose("warning", `dropped an invalid context/contribution: ${checked.problems.join("; ")}`);
        if (!this.#admitContribution("context/contribution")) return;
        const label = checked.value.label;
        if (!this.#labels.has(label) && this.#labels.size >= bounds.MAX_CONTEXT_ENTRIES) {
          return ctx.diagnose("warning", `dropped a context/contribution with a new label: this generation already uses ${this.#labels.size} labels, the limit is ${bounds.MAX_CONTEXT_ENTRIES}`);
        }
        this.#labels.add(label);
        ctx.emit({ type: "context", ...base, contribution: checked.value });
        return;
      }
      case "status/contribution": {
        const checked = validateStatusContribution(n.params);
        if (!checked.ok) return ctx.diagnose("warning", `dropped an invalid status/contribution: ${checked.problems.join("; ")}`);
        if (!c.ui.includes(checked.value.surface)) return ctx.diagnose("warning", `dropped a status/contribution: the manifest does not declare "${checked.value.surface}" in contributes.ui`);
        if (!this.#admitContribution("status/contribution")) return;
        ctx.emit({ type: "status", ...base, contribution: checked.value });
        return;
      }
      default: {
        const service = isNegotiated(ctx.api) ? ctx.services?.notification(n.method) : undefined;
        if (service) return service(n.params);
        ctx.diagnose("warning", `ignored unknown notification ${JSON.stringify(n.method.slice(0, 64))}`);
      }
    }
  }
}

/**
 * A missing parent_request_id is refused like an inactive one, -32002 (REV-08), before the params
 * are validated; a present but malformed one is an invalid param (-32602).
 */
function requireParent(method: string, params: unknown): void {
  const parent = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>)["parent_request_id"] : undefined;
  if (parent === undefined || parent === null) {
    throw new WireError(ErrorCode.Unavailable, `${method} refused: parent_request_id is missing; it must name an active tool/call or command/execute`);
  }
}

/**
 * The embedder's answer, or undefined as soon as `signal` aborts: a pending child request is
 * answered when its parent settles or it is cancelled, whether or not the embedder's prompt
 * honours its signal (CANCEL-10, INPUT-07). A later answer or failure of the prompt is dropped.
 */
function settleBy<T>(answer: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/**
 * A signal aborted when either input aborts, and a dispose() that removes its listeners (no
 * AbortSignal.any: on Node 20 it keeps every dependant alive as long as the inputs live).
 */
function anySignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (a.aborted) return { signal: a, dispose: () => {} };
  if (b.aborted) return { signal: b, dispose: () => {} };
  expectDependants(a);
  expectDependants(b);
  const c = new AbortController();
  const dispose = (): void => {
    a.removeEventListener("abort", onA);
    b.removeEventListener("abort", onB);
  };
  const onA = (): void => {
    dispose();
    c.abort(a.reason);
  };
  const onB = (): void => {
    dispose();
    c.abort(b.reason);
  };
  a.addEventListener("abort", onA, { once: true });
  b.addEventListener("abort", onB, { once: true });
  return { signal: c.signal, dispose };
}

/**
 * Each outstanding child request hangs one listener on its parent's (or the generation's) signal
 * until it settles, so up to MAX_OUTSTANDING_CHILD_REQUESTS of them on one signal is the design,
 * not a leak: Node's default of 10 would print a MaxListenersExceededWarning to the user's
 * terminal from the 11th (issue 13). The margin covers the host's own listeners on the signal.
 */
const EXPECTED_DEPENDANTS = bounds.MAX_OUTSTANDING_CHILD_REQUESTS + 16;

function expectDependants(signal: AbortSignal): void {
  if (getMaxListeners(signal) < EXPECTED_DEPENDANTS) setMaxListeners(EXPECTED_DEPENDANTS, signal);
}
