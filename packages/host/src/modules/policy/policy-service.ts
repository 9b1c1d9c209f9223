/**
 * policy/evaluate (W 2.9, POL-01..13): the embedder's classifier decides allow / ask / deny for an
 * extension's declared intent; the host keeps the rules around it. Bound only when the embedder
 * gives a classifier, so policy_intents is never offered without one (INIT-29); approvals is
 * offered only when it also gives an approver, since a token means "a person said yes".
 *
 * Rules kept here, whatever the classifier does:
 * - The classifier never sees adapter_hints; the host applies them afterwards as a floor, so a
 *   hint can raise caution (destructive => at least ask) and can never lower it (POL-04).
 * - No decision, an unknown one, or a classifier that throws is a deny (fail closed, POL-05).
 * - A token is single-use, bound to the canonical intent, parent, owner and generation, expires
 *   within five minutes, and is consumed even when it does not match (POL-09..11); see
 *   approval-tokens.ts. A retry with a valid token upgrades an "ask" only: if the classifier now
 *   says deny, it is deny.
 * - A person who declines an approval yields deny: the host asked, the answer is no.
 */
import {
  ErrorCode,
  WireError,
  canonicalIntent,
  validatePolicyParams,
  type PolicyDecision,
  type PolicyEvaluateResult,
  type PolicyIntent,
  type ResourceOwner,
} from "@octet/protocol";
import type { ChildRequestScope, GenerationService, ServiceGeneration } from "../module.js";
import { settleBy } from "../signals.js";
import { ApprovalTokens } from "./approval-tokens.js";
import { requireParent } from "../parent.js";

/** The intent as the classifier sees it: everything but the adapter's hints (POL-04). */
export type ClassifiedIntent = Omit<PolicyIntent, "adapter_hints">;

export interface PolicyClassifyRequest {
  extension: string;
  owner: ResourceOwner;
  parentRequestId: number;
  intent: ClassifiedIntent;
  /** Aborted when the answer is no longer needed (the parent settled, or the request was cancelled). */
  signal: AbortSignal;
}

export interface PolicyApproveRequest {
  extension: string;
  intent: PolicyIntent;
  signal: AbortSignal;
}

/** What the embedder binds as `services.policy`. */
export interface PolicyOptions {
  /** The host's classification of an intent. Throwing, or returning anything but a decision, denies. */
  classify(request: PolicyClassifyRequest): PolicyDecision | Promise<PolicyDecision>;
  /**
   * Asks a trusted frontend to approve an intent the host classified "ask" (single-use approval
   * issuance). Present: the approvals feature is offered; true issues a token, false denies.
   */
  approve?(request: PolicyApproveRequest): Promise<boolean>;
  /** Token lifetime in ms; at most (and by default) five minutes (POL-10). */
  approvalTtlMs?: number;
  /** The clock of token expiry (tests inject one). */
  now?: () => number;
}

const CAUTION: Readonly<Record<PolicyDecision, number>> = { allow: 0, ask: 1, deny: 2 };

/** The more cautious of two decisions. */
export function moreCautious(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  return CAUTION[a] >= CAUTION[b] ? a : b;
}

/** The least cautious decision the adapter hints permit (POL-04): never below it, never lifted by it. */
export function hintFloor(intent: PolicyIntent): PolicyDecision {
  return intent.adapter_hints.destructive ? "ask" : "allow";
}

/** policy_intents with a classifier; approvals only with an approver too, since a token means "a person said yes". */
export function policyFeatures(options: PolicyOptions): string[] {
  return options.approve ? ["policy_intents", "approvals"] : ["policy_intents"];
}

export function policyService(options: PolicyOptions): (g: ServiceGeneration) => GenerationService {
  if (typeof options.classify !== "function") throw new TypeError("services.policy.classify must be a function");
  if (options.approve !== undefined && typeof options.approve !== "function")
    throw new TypeError("services.policy.approve must be a function when given");
  return (g) => {
    const tokens = new ApprovalTokens({
      ...(options.approvalTtlMs !== undefined ? { ttlMs: options.approvalTtlMs } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    let negotiated: ReadonlySet<string> = new Set();
    const evaluate = async (scope: ChildRequestScope): Promise<PolicyEvaluateResult> => {
      if (!negotiated.has("policy_intents")) {
        throw new WireError(
          ErrorCode.MethodNotFound,
          "unsupported_feature policy/evaluate needs the policy_intents feature, which this extension did not " +
            "negotiate",
        );
      }
      // A missing parent is "no active owner" (-32002, REV-08) before the params are judged.
      requireParent(scope.method, scope.params);
      const checked = validatePolicyParams(scope.params);
      if (!checked.ok)
        throw new WireError(ErrorCode.InvalidParams, `invalid policy/evaluate: ${checked.problems.join("; ")}`);
      const p = checked.value;
      if (p.approval_token !== undefined && !negotiated.has("approvals")) {
        throw new WireError(
          ErrorCode.InvalidParams,
          "invalid policy/evaluate: approval_token was supplied but the approvals feature was not negotiated",
        );
      }
      const { signal, parentId } = scope.parent(p.parent_request_id);
      const owner = g.owner();
      const canonical = canonicalIntent(p.intent);
      // Consumed now, before any await: a second retry racing this one finds nothing (POL-09).
      const approved =
        p.approval_token !== undefined
          ? tokens.consume(p.approval_token, { intent: canonical, parentId, owner })
          : false;
      if (p.approval_token !== undefined && !approved) return { decision: "deny" };

      const classified = moreCautious(
        await classify(g, options, {
          extension: g.name,
          owner,
          parentRequestId: parentId,
          intent: withoutHints(p.intent),
          signal,
        }),
        hintFloor(p.intent),
      );
      if (signal.aborted) throw cancelled();
      if (approved) return { decision: classified === "deny" ? "deny" : "allow" };
      if (classified !== "ask" || !negotiated.has("approvals") || !options.approve) return { decision: classified };

      let yes = false;
      try {
        yes = (await settleBy(options.approve({ extension: g.name, intent: p.intent, signal }), signal)) === true;
      } catch {
        yes = false;
      }
      if (signal.aborted) throw cancelled();
      if (!yes) return { decision: "deny" };
      return { decision: "ask", approval_token: tokens.issue({ intent: canonical, parentId, owner }, signal) };
    };
    return {
      features: policyFeatures(options),
      requests: { "policy/evaluate": evaluate },
      negotiated(features) {
        negotiated = new Set(features);
      },
      dispose() {
        tokens.close();
      },
    };
  };
}

async function classify(
  g: ServiceGeneration,
  options: PolicyOptions,
  request: PolicyClassifyRequest,
): Promise<PolicyDecision> {
  let decision: unknown;
  try {
    decision = await settleBy(Promise.resolve(options.classify(request)), request.signal);
  } catch (err) {
    g.diagnose(
      "warning",
      `policy classifier failed for ${request.intent.operation}; denied: ` +
        `${err instanceof Error ? err.message : String(err)}`,
    );
    return "deny";
  }
  if (decision === "allow" || decision === "ask" || decision === "deny") return decision;
  if (!request.signal.aborted)
    g.diagnose("warning", `policy classifier gave no decision for ${request.intent.operation}; denied`);
  return "deny";
}

function withoutHints(intent: PolicyIntent): ClassifiedIntent {
  return {
    kind: intent.kind,
    operation: intent.operation,
    target: { ...intent.target },
    data_classes: [...intent.data_classes],
  };
}

function cancelled(): WireError {
  return new WireError(ErrorCode.RequestCancelled, "policy/evaluate cancelled: its parent settled or it was cancelled");
}
