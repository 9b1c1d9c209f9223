/**
 * The rpi host services of the octet bridge (octet-bridge.ts): what an rpi extension's UI requests
 * and session actions become when the embedder binds no rpi service of its own. notify is an
 * octet notification, setStatus the status contribution (the keys joined), confirm a
 * confirmation/request and input/select/editor an input/request on behalf of the call they name;
 * header/footer and the composer go through ui-mapping.ts; pi's session actions are Wave-1
 * requests (session-actions.ts). Every reverse request is withdrawn when the extension cancels it
 * or its timeout passes.
 */
import { SHORTCUT_DIALOG_REFUSAL, SHORTCUT_INVOCATION } from "./shortcuts.js";
import { bounds, truncateUtf8, type RpcPeer } from "@octet/protocol";
import type { ForeignSessionControl, ForeignSessionDialogs, ResourceOwner } from "@octet/protocol";
import type { RpiHostServices } from "../host/rpi-connection.js";
import { CONTROL_ACTIONS, controlAction, mapSessionAction } from "./session-actions.js";
import { mapFrontendUi } from "./ui-mapping.js";
import { MODEL_ACTIONS, modelAction, type ModelLayer } from "./model-actions.js";

/** Status keys kept per instance; the oldest goes first. */
const MAX_STATUS_KEYS = 32;

export interface BridgeServiceDeps {
  peer: RpcPeer;
  embedder?: RpiHostServices | undefined;
  extensionId: string;
  /** The octet requests (tool/call, command/execute) running now, by id. */
  active: readonly number[];
  /** Entry writes issued and not yet settled (the bridge's published() waits for them). */
  writes: Set<Promise<unknown>>;
  /** The features initialize selected. */
  negotiated(): readonly string[];
  /** The owner triple the host issued, once known. */
  issued(): ResourceOwner | null;
  /** The session layer's control (new session, fork, tree navigation), when it offers one. */
  control?: ForeignSessionControl | undefined;
  /** The session part of the next invocation context (the mirror's delta), sent with a control answer. */
  sessionContext?: () => unknown;
  /** The session layer's model switches (pi.setModel, pi.setThinkingLevel: model-actions.ts). */
  models?: ModelLayer | undefined;
  /** The embedder's dialogs for the handlers the session layer invoked (ForeignSessionLayer.dialogs). */
  dialogs?: ForeignSessionDialogs | undefined;
}

/**
 * The tag of a handler invocation the session layer delivered (octet-bridge.ts sessionEvents):
 * its dialogs belong to no octet request, so they go to the layer's own dialogs.
 */
export const SESSION_LAYER_INVOCATION: unique symbol = Symbol("rpi session-layer invocation");

export function bridgeServices(d: BridgeServiceDeps): RpiHostServices {
  const { peer, active, writes } = d;
  const options = { embedder: d.embedder, extensionId: d.extensionId };
  const statuses = new Map<string, string>();

  /**
   * The octet request a dialog is asked on behalf of: the invocation the extension named, or the
   * only call running. With several running and none named the host cannot tell: refused.
   */
  const onBehalf = (named: unknown): number => {
    if (named === SHORTCUT_INVOCATION) throw new Error(SHORTCUT_DIALOG_REFUSAL);
    if (typeof named === "number" && active.includes(named)) return named;
    if (active.length === 1) return active[0]!;
    if (active.length === 0) throw new Error("no tool call or command is running to ask on behalf of");
    throw new Error(
      `${active.length} calls are running and the request did not say which one it belongs to (parentId)`,
    );
  };

  /** A reverse request withdrawn when the extension cancels it or its timeout passes. */
  const ask = async (
    method: string,
    params: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<unknown> => {
    const outgoing = peer.request(method, params);
    const giveUp = (why: string): void => {
      if (peer.abandon(outgoing.id, "cancelled", new Error(why)) !== null) {
        try {
          peer.notify("$/cancelRequest", { id: outgoing.id });
        } catch {
          // Closed: nothing is waiting any more.
        }
      }
    };
    const onAbort = (): void => giveUp("the extension withdrew the request");
    o.signal.addEventListener("abort", onAbort, { once: true });
    const timer =
      o.timeoutMs !== undefined
        ? setTimeout(() => giveUp(`no answer within ${o.timeoutMs} ms`), o.timeoutMs)
        : undefined;
    try {
      return await outgoing.result;
    } finally {
      o.signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
    }
  };

  return {
    async ui(request, o) {
      // The embedder's answer wins; undefined leaves the request to the mapping below.
      if (options.embedder?.ui) {
        const answer = await options.embedder.ui(request, o);
        if (answer !== undefined) return answer;
      }
      // Header/footer and the composer (ui-mapping.ts).
      const frontend = await mapFrontendUi(request, o.parent, {
        negotiated: () => d.negotiated(),
        owner: (parent) => {
          const issued = d.issued();
          return typeof parent === "number" && active.includes(parent)
            ? { parent_request_id: parent }
            : issued
              ? { parent_request_id: 0, resource_owner: issued }
              : null;
        },
        notify: (method, params) => peer.notify(method, params),
        ask: (method, params) => ask(method, params, o),
      });
      if (frontend !== undefined) return frontend;
      const text = (k: string): string => (typeof request[k] === "string" ? (request[k] as string) : "");
      if (o.parent === SESSION_LAYER_INVOCATION && ["confirm", "input", "editor", "select"].includes(request.type))
        return layerDialog(request, o.signal, d.dialogs, options.extensionId);
      switch (request.type) {
        case "notify": {
          const level = ["info", "warning", "error"].includes(text("level")) ? text("level") : "info";
          peer.notify("notification", { level, title: options.extensionId, message: text("message") });
          return {};
        }
        case "status": {
          // pi keeps one status text per key; octet one status line per extension: the keys are joined.
          const key = text("key");
          if (!key) throw new Error("a status request needs a non-empty key");
          if (text("text")) statuses.set(key, text("text"));
          else statuses.delete(key);
          if (statuses.size > MAX_STATUS_KEYS) statuses.delete(statuses.keys().next().value as string);
          const line = [...statuses].map(([k, v]) => `${k}: ${v}`).join(" · ");
          peer.notify("status/contribution", {
            surface: "status",
            text: truncateUtf8(line, bounds.MAX_STATUS_TEXT_BYTES),
            style_role: null,
            priority: 0,
          });
          return {};
        }
        case "confirm": {
          const r = (await ask(
            "confirmation/request",
            {
              parent_request_id: onBehalf(o.parent),
              prompt: text("title") || "Confirm",
              detail: text("message"),
              destructive: false,
              default: false,
            },
            o,
          )) as { confirmed?: boolean };
          return { confirmed: r.confirmed === true };
        }
        case "input":
        case "editor":
        case "select": {
          const choices = Array.isArray(request["options"])
            ? ` (${(request["options"] as unknown[]).map(String).join(" | ")})`
            : "";
          const r = (await ask(
            "input/request",
            { parent_request_id: onBehalf(o.parent), prompt: `${text("title")}${choices}`, secret: false },
            o,
          )) as { value?: string | null };
          const value = typeof r.value === "string" ? r.value : null;
          if (
            request.type === "select" &&
            value !== null &&
            Array.isArray(request["options"]) &&
            !(request["options"] as unknown[]).includes(value)
          )
            return { value: null };
          return { value };
        }
        default:
          throw new Error(
            `the host cannot process the UI request "${request.type}": bind an rpi UI service to show it`,
          );
      }
    },
    async action(action, o) {
      if (options.embedder?.action) return options.embedder.action(action, o);
      if (d.control && CONTROL_ACTIONS.includes(action.kind)) {
        const done = await controlAction(action, d.control, options.extensionId);
        // The session as it is now goes with the answer: the extension's ctx reads the new one.
        const session = d.sessionContext?.();
        return { ...done, ...(session ? { session } : {}) };
      }
      // pi's setModel, setThinkingLevel and setActiveTools are synchronous for pi's handlers (a
      // preset's session_start calls them without await): held in `writes` like the entry writes,
      // so the handler's answer, and the request after it, wait for them.
      const held = (p: Promise<unknown>): Promise<unknown> => {
        const settled: Promise<unknown> = p.then(
          (): unknown => writes.delete(settled),
          (): unknown => writes.delete(settled),
        );
        writes.add(settled);
        return p;
      };
      if (MODEL_ACTIONS.includes(action.kind)) return held(modelAction(action, options.extensionId, d.models));
      // pi's session actions as octet's Wave-1 requests (session-actions.ts), when the host offers them.
      const live = typeof o.parent === "number" && active.includes(o.parent) ? o.parent : null;
      // pi's ctx.compact is not tied to the handler that asked (it returns at once, the compaction
      // runs after), and session/compact needs the issued triple (SCOMP-03): it acts for the owner.
      const issued = d.issued();
      const parent = action.kind === "compact" && issued ? null : live;
      const owner =
        parent !== null
          ? { parent_request_id: parent }
          : issued
            ? { parent_request_id: 0, resource_owner: issued }
            : null;
      if (owner === null)
        throw new Error(`the host cannot process the action "${action.kind}": no call or issued owner to act for`);
      const mapped = mapSessionAction(action, owner);
      if ("refused" in mapped) throw new Error(mapped.refused);
      if (!d.negotiated().includes(mapped.feature))
        throw new Error(
          `the host cannot process the action "${action.kind}": it did not offer ${mapped.feature} (${mapped.method})`,
        );
      const asked = ask(mapped.method, mapped.params, o);
      if (action.kind === "switch_session") return switched(asked, d.sessionContext);
      return mapped.feature === "session_entries" || mapped.feature === "active_tools" ? held(asked) : asked;
    },
  };
}

/**
 * pi's ctx.switchSession answers {cancelled} like newSession and fork (the prelude then runs
 * withSession): session/switch's success is a switch, and its refusal for a cancelled
 * session_before_switch (the agent's "was cancelled by extension", session-control.ts) is a
 * cancel, not an error, as in pi. The new session goes with the answer, as for the control's.
 */
async function switched(asked: Promise<unknown>, sessionContext?: () => unknown): Promise<unknown> {
  try {
    await asked;
  } catch (err) {
    if (err instanceof Error && / was cancelled by extension /.test(err.message)) return { cancelled: true };
    throw err;
  }
  const session = sessionContext?.();
  return { cancelled: false, ...(session ? { session } : {}) };
}

/**
 * A dialog of a handler the session layer invoked (pi's tool_call gate, session_before_switch's
 * "clear?"): asked through the layer's own dialogs with the same shapes as the wire mapping
 * (select lists its options; an answer not among them is none), refused when it has none.
 */
async function layerDialog(
  request: { type: string } & Record<string, unknown>,
  signal: AbortSignal,
  dialogs: ForeignSessionDialogs | undefined,
  extension: string,
): Promise<unknown> {
  if (!dialogs)
    throw new Error(
      `the host cannot ask "${request.type}" from a session event handler: its session layer has no dialogs`,
    );
  const text = (k: string): string => (typeof request[k] === "string" ? (request[k] as string) : "");
  if (request.type === "confirm") {
    const detail = text("message");
    const prompt = text("title") || "Confirm";
    return { confirmed: await dialogs.confirm({ extension, prompt, ...(detail ? { detail } : {}), signal }) };
  }
  const options = Array.isArray(request["options"]) ? (request["options"] as unknown[]).map(String) : null;
  const prompt = `${text("title")}${options ? ` (${options.join(" | ")})` : ""}`;
  const value = await dialogs.input({ extension, prompt, signal });
  if (request.type === "select" && value !== null && options && !options.includes(value)) return { value: null };
  return { value };
}
