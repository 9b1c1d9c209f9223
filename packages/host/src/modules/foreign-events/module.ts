/**
 * A foreign runtime's session events (ForeignLaunched.sessionEvents): the events of its own
 * protocol that the embedder's session layer delivers itself, with that protocol's payloads and
 * result rules, because octet's hooks cannot carry them (a pi `context` rewrite, an `input`
 * transform, a cancelled `session_before_switch`). Nothing is offered on the wire: the module
 * only lets the embedder find, in discovery order, the ready instances that take an event.
 */
import { defineModule } from "../module.js";

/** One ready foreign instance that takes an event, and the one way to deliver it. */
export interface ForeignEventTarget {
  /** The extension's name. */
  readonly extension: string;
  /**
   * Resolves with the instance's answer (undefined: no opinion); rejects saying why it failed.
   * `onUpdate` gets what the instance reports before it answers.
   */
  dispatch(data: Record<string, unknown>, signal?: AbortSignal, onUpdate?: (value: unknown) => void): Promise<unknown>;
}

export interface ForeignEventsApi {
  /**
   * The ready instances that take `name` now, in discovery order (the order pi runs extensions
   * in). Empty when none does, or when no foreign runtime was launched with a session layer.
   */
  foreignEvents(name: string): ForeignEventTarget[];
}

export const foreignEventsModule = defineModule<null, ForeignEventsApi>({
  feature: "foreign_session_events",
  offer: () => null,
  open: () => null,
  childRequests: [],
  childNotifications: [],
  embedderApi: (view) => ({
    foreignEvents: (name) =>
      view.ready().flatMap((g) => {
        const events = g.sessionEvents;
        if (!events?.names().includes(name)) return [];
        return [
          {
            extension: g.name,
            dispatch: (data: Record<string, unknown>, signal?: AbortSignal, onUpdate?: (value: unknown) => void) =>
              events.dispatch(name, data, {
                ...(signal ? { signal } : {}),
                ...(onUpdate ? { onUpdate } : {}),
                ...(g.context(true).resource_owner ? { owner: g.context(true).resource_owner! } : {}),
              }),
          },
        ];
      }),
  }),
});
