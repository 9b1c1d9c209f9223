/**
 * message_injection (W 2.22, W 1.11; API 0.2 and 0.4): offered to every negotiated manifest when
 * the embedder binds services.messageInjection. session/send_message {role: assistant|system,
 * text} and session/send_user_message {text} are owner-scoped (wave1-owner.ts) and answered {}
 * once the embedder admitted the injection, not once a run it starts has ended (WAVE1-32). The
 * embedder streams the model's text with messageDelta / messageSettled; every ready generation
 * that negotiated the feature gets the coalesced message/updated batches and message/settled.
 */
import {
  MESSAGE_SETTLED,
  MESSAGE_UPDATED,
  SESSION_SEND_MESSAGE,
  SESSION_SEND_USER_MESSAGE,
  isNegotiated,
  validateSendMessageParams,
  validateSendUserMessageParams,
  type InjectedRole,
} from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { ownedHandler, type Wave1Requester } from "../wave1-owner.js";
import { MessageBatcher } from "./message-batches.js";

/**
 * What the embedder binds as `services.messageInjection`. Each method resolves once the injection
 * is admitted (appended, started or queued); a WireError it throws reaches the extension as it is
 * (-32002 with no session, -32012 with a full queue), any other failure is -32603.
 */
export interface MessageInjectionService {
  sendMessage(r: Wave1Requester & { role: InjectedRole; text: string }): Promise<void>;
  sendUserMessage(r: Wave1Requester & { text: string }): Promise<void>;
}

declare module "../options.js" {
  interface HostServiceOptions {
    /** session/send_message and session/send_user_message into the embedder's session (modules/message-injection). */
    messageInjection?: MessageInjectionService;
  }
}

export interface MessageStreamApi {
  /** One text delta of the model's message `messageId` (a bounded id: at most 256 bytes). */
  messageDelta(messageId: string, delta: string): void;
  /** The message ended: its last batch, then message/settled. */
  messageSettled(messageId: string): void;
}

function service(s: MessageInjectionService): ServiceFactory {
  for (const m of ["sendMessage", "sendUserMessage"] as const)
    if (typeof s[m] !== "function") throw new TypeError(`services.messageInjection.${m} must be a function`);
  return (g) => ({
    features: ["message_injection"],
    requests: {
      "session/send_message": ownedHandler(g, validateSendMessageParams, async (p, who) => {
        await s.sendMessage({ ...who, role: p.role, text: p.text });
        return {};
      }),
      "session/send_user_message": ownedHandler(g, validateSendUserMessageParams, async (p, who) => {
        await s.sendUserMessage({ ...who, text: p.text });
        return {};
      }),
    },
  });
}

export const messageInjectionModule = defineModule<ServiceFactory, MessageStreamApi>({
  feature: "message_injection",
  bind: (o) => (o.messageInjection ? service(o.messageInjection) : null),
  offer: (_m, api) => (isNegotiated(api) ? ["message_injection"] : null),
  open: (g, factory) => factory(g),
  childRequests: [SESSION_SEND_MESSAGE, SESSION_SEND_USER_MESSAGE],
  childNotifications: [],
  embedderApi: (view) => {
    // WAVE1-01: only generations that negotiated the feature see the stream.
    const batcher = new MessageBatcher((method, params) => {
      const spec = method === "message/updated" ? MESSAGE_UPDATED : MESSAGE_SETTLED;
      if (!spec.validateParams(params).ok) return;
      for (const g of view.ready())
        if (g.features.includes("message_injection")) {
          try {
            g.notify?.(method, params);
          } catch {
            // Best effort, like lifecycle events: one extension that cannot take it holds up no other.
          }
        }
    });
    return {
      messageDelta: (messageId: string, delta: string) => batcher.delta(messageId, delta),
      messageSettled: (messageId: string) => batcher.settle(messageId),
    };
  },
});
