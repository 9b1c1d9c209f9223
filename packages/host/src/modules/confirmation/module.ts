/**
 * confirmation/request (CONF-01..06, REV-07/08): the extension asks the person a yes/no question
 * inside an active tool/call or command/execute. Bound always: without the embedder's confirm
 * service the answer is a denial, never a guess (CONF-04). On API 0.1 there is no parent: the
 * question lives as long as the generation.
 */
import { CONFIRMATION_REQUEST, ErrorCode, WireError, isNegotiated, validateConfirmationParams } from "@octet/protocol";
import { defineModule, type ActiveParent, type ChildRequestScope, type ServiceGeneration } from "../module.js";
import { requireParent } from "../parent.js";
import { settleBy } from "../signals.js";

/** The embedder's answer to a confirmation; `signal` aborts when nobody needs the answer any more. */
export type ConfirmService = (request: {
  extension: string;
  prompt: string;
  detail?: string;
  destructive: boolean;
  default: boolean;
  signal: AbortSignal;
}) => Promise<boolean>;

declare module "../options.js" {
  interface HostServiceOptions {
    /** Answers confirmation/request; absent means no interactive frontend, which denies (CONF-04). */
    confirm?: ConfirmService | undefined;
  }
}

const METHOD = CONFIRMATION_REQUEST.method;

export const confirmationModule = defineModule<{ confirm: ConfirmService | undefined }>({
  feature: "confirmation",
  bind: (o) => ({ confirm: o.confirm }),
  offer: () => [],
  open: (g, b) => ({ features: [], requests: { [METHOD]: (scope) => confirmation(g, b.confirm, scope) } }),
  childRequests: [CONFIRMATION_REQUEST],
  childNotifications: [],
});

async function confirmation(
  g: ServiceGeneration,
  confirm: ConfirmService | undefined,
  scope: ChildRequestScope,
): Promise<unknown> {
  const negotiated = isNegotiated(g.api);
  if (negotiated) requireParent(METHOD, scope.params);
  const checked = validateConfirmationParams(scope.params, g.api);
  if (!checked.ok) throw new WireError(ErrorCode.InvalidParams, `invalid ${METHOD}: ${checked.problems.join("; ")}`);
  const p = checked.value;
  // The parent must be an active tool/call or command/execute of this generation (CONF-02, REV-08).
  let signal = scope.signal;
  let parent: ActiveParent | undefined;
  if (negotiated) ({ signal, parent } = scope.parent(p.parent_request_id));
  if (!g.manifest.contributes.confirmations) {
    g.diagnose("warning", `${METHOD} denied: the manifest does not declare contributes.confirmations`);
    return { confirmed: false };
  }
  // A destructive menu action the person already confirmed: its own first question is answered (MENU-13).
  if (parent?.takeApproval()) return { confirmed: true };
  // No interactive frontend: a denial, never a guess (CONF-04).
  if (!confirm) return { confirmed: false };
  let confirmed = false;
  try {
    const detail = p.detail !== undefined ? { detail: p.detail } : {};
    const question = { extension: g.name, prompt: p.prompt, ...detail, destructive: p.destructive, default: p.default };
    const answer = confirm({ ...question, signal });
    confirmed = (await settleBy(answer, signal)) === true;
  } catch {
    confirmed = false;
  }
  // A cancelled child request is answered -32800 (FRAME-14); on API 0.1 there is no parent.
  if (signal.aborted && negotiated) {
    throw new WireError(ErrorCode.RequestCancelled, `${METHOD} cancelled: its parent settled or it was cancelled`);
  }
  return { confirmed: confirmed && !signal.aborted };
}
