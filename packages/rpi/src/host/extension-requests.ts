/**
 * The extension's own requests to the host: UI requests and session actions (RPI-38, RPI-39,
 * QJS-12), each checked against the grants and the phase, then handed to the embedder's services.
 *
 * Contract: every request gets exactly one `response` frame: "denied" (with its reason) when it
 * is refused, "cancelled" when the extension withdraws it (a `cancel` frame) or the service ends
 * after that, else the service's value or error. At most MAX_EXTENSION_REQUESTS are outstanding.
 * Refusals and failures are said to the user as coalesced warnings (one line per window in a flood).
 * Reusing an outstanding id is a protocol violation.
 */
import { MAX_EXTENSION_REQUESTS } from "../protocol/frames.js";
import type { ExtensionRequest, HelloManifest, HostFrame, ProtocolResult } from "../protocol/frames.js";
import { CoalescedWarnings, times } from "./coalesced-warnings.js";
import type { RpiHostServices, RpiState } from "./connection-types.js";
import { requestRefusal, type RpiGrants } from "./grants.js";

/** What the extension requests need of their connection. */
export interface ExtensionRequestHost {
  readonly grants: RpiGrants;
  readonly services: RpiHostServices | undefined;
  state(): RpiState;
  hello(): HelloManifest;
  /** The tag of the host's open request `id`, when there is one (InvokeOptions.tag). */
  parent(id: string): { tag?: unknown } | undefined;
  send(frame: HostFrame): void;
  warn(message: string): void;
  violation(message: string): void;
}

export class ExtensionRequests {
  readonly #open = new Map<string, AbortController>();
  /** Warnings an extension's flood of requests would repeat. */
  readonly #warnings: CoalescedWarnings;

  constructor(private readonly host: ExtensionRequestHost) {
    this.#warnings = new CoalescedWarnings((message) => host.warn(message));
  }

  /** The extension withdrew request `id`. */
  cancel(id: string): void {
    this.#open.get(id)?.abort();
  }

  /** The instance ended: every open request is aborted and the pending warnings are said. */
  close(): void {
    for (const c of this.#open.values()) c.abort();
    this.#warnings.close();
  }

  handle(id: string, request: ExtensionRequest): void {
    const host = this.host;
    const answer = (result: ProtocolResult): void => {
      this.#open.delete(id);
      if (host.state() === "closed") return;
      try {
        host.send({ type: "response", id, result });
      } catch (err) {
        host.send({
          type: "response",
          id,
          result: {
            status: "error",
            error: { code: "frame_too_large", message: err instanceof Error ? err.message : String(err) },
          },
        });
      }
    };
    // What the extension asked is said to the user too: pi's session and UI setters return
    // nothing, so an extension rarely awaits them and a refusal would otherwise leave no trace.
    const what = request.kind === "ui" ? `UI request "${request.ui.request.type}"` : `action "${request.action.kind}"`;
    // A flood of refusals (past MAX_EXTENSION_REQUESTS, say) is one line per window, not one per request.
    const denied = (message: string): void => {
      this.#warnings.warn(
        `refused ${what}: ${message}`,
        `refused the extension's ${what}: ${message}`,
        (n, s) => `refused the extension's ${what} ${times(n)} more in the last ${s} s: ${message}`,
      );
      answer({ status: "error", error: { code: "denied", message } });
    };
    if (this.#open.has(id)) return host.violation(`reused request id "${id}" while it is outstanding`);
    if (this.#open.size >= MAX_EXTENSION_REQUESTS)
      return denied(`more than ${MAX_EXTENSION_REQUESTS} requests outstanding; refused`);
    const state = host.state();
    if (state === "stopping") return denied("the extension is shutting down");
    const refusal = requestRefusal(request, state === "load" ? "load" : "ready", host.hello(), host.grants);
    if (refusal) return denied(refusal);
    const handler = request.kind === "ui" ? host.services?.ui : host.services?.action;
    if (!handler) return denied(`the host cannot process the ${what}: no service for it is bound`);
    const controller = new AbortController();
    this.#open.set(id, controller);
    const parent = request.parentId !== undefined ? host.parent(request.parentId) : undefined;
    const base = { signal: controller.signal, ...(parent !== undefined ? { parent: parent.tag } : {}) };
    let run: Promise<unknown>;
    try {
      run = Promise.resolve(
        request.kind === "ui"
          ? handler.call(
              host.services,
              request.ui.request as never,
              request.ui.timeoutMs !== undefined ? { ...base, timeoutMs: request.ui.timeoutMs } : base,
            )
          : (handler as NonNullable<RpiHostServices["action"]>).call(host.services, request.action, base),
      );
    } catch (err) {
      run = Promise.reject(err);
    }
    run.then(
      (value) =>
        answer(controller.signal.aborted ? { status: "cancelled" } : { status: "success", value: value ?? null }),
      (err: unknown) => {
        if (controller.signal.aborted) return answer({ status: "cancelled" });
        const message = err instanceof Error ? err.message : String(err);
        this.#warnings.warn(
          `failed ${what}: ${message}`,
          `the extension's ${what} failed: ${message}`,
          (n, s) => `the extension's ${what} failed ${times(n)} more in the last ${s} s: ${message}`,
        );
        answer({ status: "error", error: { message } });
      },
    );
  }
}
