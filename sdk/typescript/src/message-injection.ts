/**
 * ctx.session.sendMessage / sendUserMessage (W 2.22, feature message_injection), ctx.tools.setActive
 * (W 2.23, feature active_tools) and the message/updated / message/settled handlers (W 1.11).
 * Requests are parented to the running request as ctx.session's are (a tool/call or
 * command/execute handler, or a model-turn hook while it runs) and checked locally with the
 * protocol's validators before anything is written: a role other than assistant or system,
 * text over 256 KiB, more than 256 names or a name over 128 bytes is refused with a message that
 * begins with invalid_request or bounds_exceeded (WAVE1-18/33/34/36).
 */
import {
  isPlainObject,
  sessionEntriesRefusal,
  validateMessageSettled,
  validateMessageUpdated,
  validateSendMessageParams,
  validateSendUserMessageParams,
  validateSetActiveToolsParams,
  type Checked,
} from "@octet/protocol";
import { send } from "./reverse-requests.js";
import type { Link, RequestScope } from "./request-scope.js";
import type { ActiveToolsApi, MessageEvent, MessageHandler, MessageInjectionApi } from "./types.js";

/** The numeric id of the active parent that may parent `what`, or a local error (session.ts parentOf). */
export type ParentOf = (scope: RequestScope, what: string) => number;

async function call<P>(
  parentOf: ParentOf,
  scope: () => RequestScope | undefined,
  link: () => Link | null,
  o: { what: string; feature: string; method: string; validate: (v: unknown) => Checked<P> },
  params: (parent: number) => Record<string, unknown>,
): Promise<void> {
  const l = link();
  if (!l) throw new Error(`${o.what}() is available only after the host initialized the extension`);
  if (!l.features.has(o.feature))
    throw new Error(`${o.what}() needs the ${o.feature} feature, which the host did not offer (no agent session)`);
  const s = scope();
  if (!s) throw new Error(`${o.what}() must be called from a request handler (no request is running here)`);
  const checked = o.validate(params(parentOf(s, o.what.replace(/^session\./, ""))));
  if (!checked.ok)
    throw new RangeError(`${sessionEntriesRefusal(checked.problems)} ${o.what}(): ${checked.problems.join("; ")}`);
  await send(s, l, o.method, checked.value);
}

export function injectionApi(
  parentOf: ParentOf,
  scope: () => RequestScope | undefined,
  link: () => Link | null,
): MessageInjectionApi {
  return {
    async sendMessage(role, text) {
      const o = { what: "session.sendMessage", feature: "message_injection", method: "session/send_message" };
      await call(parentOf, scope, link, { ...o, validate: validateSendMessageParams }, (parent) => ({
        parent_request_id: parent,
        role,
        text,
      }));
    },
    async sendUserMessage(text) {
      const o = { what: "session.sendUserMessage", feature: "message_injection", method: "session/send_user_message" };
      await call(parentOf, scope, link, { ...o, validate: validateSendUserMessageParams }, (parent) => ({
        parent_request_id: parent,
        text,
      }));
    },
  };
}

export function activeToolsApi(
  parentOf: ParentOf,
  scope: () => RequestScope | undefined,
  link: () => Link | null,
): ActiveToolsApi {
  return {
    get available() {
      return link()?.features.has("active_tools") ?? false;
    },
    async setActive(names) {
      const o = { what: "tools.setActive", feature: "active_tools", method: "tools/set_active" };
      await call(parentOf, scope, link, { ...o, validate: validateSetActiveToolsParams }, (parent) => ({
        parent_request_id: parent,
        names: [...names],
      }));
    },
  };
}

export const MESSAGE_EVENTS: readonly MessageEvent[] = ["message/updated", "message/settled"];

export function isMessageEvent(event: unknown): event is MessageEvent {
  return (MESSAGE_EVENTS as readonly unknown[]).includes(event);
}

/**
 * message/updated and message/settled handlers. Delivery is best-effort like lifecycle events:
 * never awaited, run outside every request, and what a handler throws goes to stderr. A batch
 * the protocol refuses (WAVE1-06: an array of more than 1024 deltas) reaches no handler.
 */
export class MessageHandlers {
  readonly #handlers = new Map<MessageEvent, MessageHandler[]>();

  add(event: MessageEvent, handler: MessageHandler): void {
    if (typeof handler !== "function") throw new TypeError(`the handler for "${event}" must be a function`);
    this.#handlers.set(event, [...(this.#handlers.get(event) ?? []), handler]);
  }

  get handled(): boolean {
    return this.#handlers.size > 0;
  }

  deliver(method: MessageEvent, params: unknown): void {
    const checked = method === "message/updated" ? validateMessageUpdated(params) : validateMessageSettled(params);
    if (!checked.ok || !isPlainObject(params)) {
      const why = checked.ok ? "not an object" : checked.problems.join("; ");
      process.stderr.write(`octet-extension: ignored ${method}: ${why.slice(0, 512)}\n`);
      return;
    }
    for (const handler of this.#handlers.get(method) ?? []) {
      const report = (err: unknown): void => {
        const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
        process.stderr.write(`octet-extension: the ${method} handler failed: ${text}\n`);
      };
      try {
        const outcome = handler({ ...checked.value } as Parameters<MessageHandler>[0]);
        if (outcome instanceof Promise) outcome.catch(report);
      } catch (err) {
        report(err);
      }
    }
  }
}
