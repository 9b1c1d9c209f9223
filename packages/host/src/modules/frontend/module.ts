/**
 * The interactive frontend (W 2.19, W 2.20, W 1.11, W 2.24b): composer, shortcut and autocomplete
 * features, offered on API 0.2/0.4 when the embedder binds services.frontend (the CLI shell's line
 * editor). autocomplete_edit_v1 is offered on API 0.4 only (INIT-42). frontend-service.ts holds
 * the per-generation handlers; the embedder reaches the shortcuts and the completion chains
 * through frontendShortcuts / triggerShortcut / completeDraft.
 */
import {
  AUTOCOMPLETE_COMPLETE,
  AUTOCOMPLETE_REGISTER,
  COMPOSER_GET,
  COMPOSER_INSERT,
  COMPOSER_SET,
  SHORTCUT_REGISTER,
  isNegotiated,
} from "@octet/protocol";
import { defineModule } from "../module.js";
import { completeDraft, completionLive, type CompleteOptions, type DraftCompletion } from "./autocomplete-chain.js";
import { FrontendHub, type FrontendService, type LiveShortcut } from "./frontend-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** composer/*, shortcut/*, ui/autocomplete/* through the embedder's line editor (modules/frontend). */
    frontend?: FrontendService;
  }
}

export interface FrontendApi {
  /** The admitted shortcuts of the ready generations, in discovery order. */
  frontendShortcuts(): LiveShortcut[];
  /** Sends shortcut/trigger {id} to the owner; false (nothing sent) for an unknown or stale shortcut. */
  triggerShortcut(shortcut: LiveShortcut): boolean;
  /** Asks the registered completion chains in order under one deadline; null when none claims. */
  completeDraft(text: string, cursor: number, options?: CompleteOptions): Promise<DraftCompletion | null>;
  /** Whether the provider of an answer is still the live one it was asked of (ACMP-17). */
  completionLive(completion: DraftCompletion): boolean;
}

export const frontendModule = defineModule<FrontendHub, FrontendApi>({
  feature: "frontend",
  bind: (o) => (o.frontend ? new FrontendHub(o.frontend) : null),
  offer: (_m, api) =>
    isNegotiated(api)
      ? ["composer", "shortcuts", "autocomplete", ...(api === "0.4" ? ["autocomplete_edit_v1"] : [])]
      : null,
  open: (g, hub) => hub.open(g),
  childRequests: [COMPOSER_GET, COMPOSER_SET, COMPOSER_INSERT, SHORTCUT_REGISTER, AUTOCOMPLETE_REGISTER],
  childNotifications: [],
  hostRequests: [AUTOCOMPLETE_COMPLETE],
  embedderApi: (view) => ({
    frontendShortcuts: () => FrontendHub.live(view.ready()),
    triggerShortcut: (s: LiveShortcut) => FrontendHub.trigger(view.ready(), s),
    completeDraft: (text: string, cursor: number, options: CompleteOptions = {}) =>
      completeDraft(() => view.ready(), text, cursor, options),
    completionLive: (completion: DraftCompletion) => completionLive(view.ready(), completion),
  }),
});
