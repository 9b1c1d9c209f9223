/**
 * ext.presentation (W 2.5): publishing complete semantic state snapshots with presentation/update.
 * Owns how a snapshot is owned and the local refusals; the snapshot's rules are the protocol's
 * validatePresentationUpdate, run here before sending so an author gets the host's refusal as an
 * exception at the call instead of a diagnostic on the host's side.
 *
 * Ownership, in order: an explicit `owner` (a background publisher sends the host-issued triple
 * it received in a request's context.resource_owner, PRES-03); else, inside an active request
 * handler, that request as parent_request_id (PRES-02); else process-scoped state, which may not
 * reference sessions (PRES-05). There is no feature to negotiate: the manifest's
 * contributes.presentation, echoed in initialize, is what the host admits it by (PRES-01).
 */
import {
  isPlainObject,
  validatePresentationUpdate,
  type PresentationAction,
  type PresentationActivity,
  type PresentationCollection,
  type PresentationDetail,
  type PresentationNode,
  type PresentationSnapshot,
  type ResourceOwner,
} from "@octet/protocol";
import type { Link } from "./request-scope.js";
import { requestStorage } from "./request-scope.js";

/** T with the members K optional. */
type Loose<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** A snapshot as an author writes it: members with a default on the wire ([] or false) may be left out. */
export type PresentationInput = Omit<PresentationSnapshot, "activities" | "actions" | "collection"> & {
  activities?: Loose<PresentationActivity, "references">[];
  actions?: Loose<PresentationAction, "arguments" | "destructive">[];
  collection?: Omit<PresentationCollection, "nodes" | "detail"> & {
    nodes?: Loose<PresentationNode, "action_ids" | "references">[];
    detail?: Loose<PresentationDetail, "references">;
  };
};

export interface PresentationUpdateOptions {
  /** Publish as this host-issued owner (from ctx.context.resource_owner), e.g. from a background job. */
  owner?: ResourceOwner;
  /** Publish process-scoped state even inside a request handler. */
  scope?: "process";
}

/** What the SDK learned in initialize that the checks need. */
export interface PresentationState {
  link: Link | null;
  /** initialize params.contributes, as the host sent it. */
  contributes: Record<string, unknown> | null;
}

export class Presentation {
  readonly #state: () => PresentationState;

  constructor(state: () => PresentationState) {
    this.#state = state;
  }

  /**
   * Sends one complete snapshot. Throws (sending nothing) on API 0.1, before initialize, without
   * contributes.presentation = true in the manifest, or when the snapshot breaks a rule.
   */
  update(snapshot: PresentationInput, options: PresentationUpdateOptions = {}): void {
    const { link, contributes } = this.#state();
    if (!link) throw new Error("presentation.update() is available only after the host initialized the extension");
    if (link.api === "0.1")
      throw new Error("presentation.update() needs API 0.2 or later (presentation/update is not part of API 0.1)");
    if (contributes?.["presentation"] !== true) {
      throw new Error(
        "presentation.update() needs `presentation = true` under [contributes] in extension.toml; the host " +
          "drops snapshots of an extension that does not declare it",
      );
    }
    const params: Record<string, unknown> = { snapshot };
    if (options.owner !== undefined) {
      if (options.scope === "process")
        throw new TypeError('presentation.update(): owner and scope "process" are exclusive');
      params["resource_owner"] = options.owner;
    } else if (options.scope !== "process") {
      const scope = requestStorage.getStore();
      if (scope?.active && typeof scope.id === "number") params["parent_request_id"] = scope.id;
    }
    const declared =
      isPlainObject(contributes) && Array.isArray(contributes["commands"])
        ? contributes["commands"].filter((c): c is string => typeof c === "string")
        : [];
    const checked = validatePresentationUpdate(params, { declaredCommands: declared });
    if (!checked.ok) throw new TypeError(`presentation.update(): ${checked.problems.join("; ")}`);
    link.peer.notify("presentation/update", checked.value.params);
  }
}
