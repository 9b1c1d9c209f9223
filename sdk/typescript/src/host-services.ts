/**
 * ext.policy and ext.secrets (W 2.9, W 2.10): asking the host whether an operation may happen,
 * and for a secret the manifest declares. Both are operation-scoped reverse requests: they run
 * inside the active tool/call or command/execute handler (found through AsyncLocalStorage, like
 * ext.progress) and carry its id as parent_request_id.
 *
 * Each refuses locally, before anything is sent, when the feature was not negotiated (the host
 * did not bind the service, or, for secrets, the manifest declares none), so an author sees
 * "not offered" rather than a wire error. Shapes are checked with the protocol's own validators.
 */
import {
  ErrorCode,
  WireError,
  isPlainObject,
  validatePolicyParams,
  validatePolicyResult,
  validateSecretParams,
  validateSecretResult,
  type PolicyDecision,
  type PolicyIntent,
} from "@octet/protocol";
import { parentOf, send } from "./reverse-requests.js";
import { requestStorage, type Link, type RequestScope } from "./request-scope.js";

/** An intent as an author writes it; the wire shape is built from it. */
export interface IntentInput {
  /** Default "external_side_effect", the only kind the text defines. */
  kind?: "external_side_effect";
  /** A dotted identifier, e.g. "browser.submit_form". */
  operation: string;
  target: { origin: string; label: string };
  dataClasses?: string[];
  /** Hints can only make the host more cautious; they never authorize anything. */
  hints?: { readOnly?: boolean; destructive?: boolean };
}

export interface PolicyAnswer {
  decision: PolicyDecision;
  /** Present only on "ask" when a person approved: pass it to evaluate() again to get "allow". */
  approvalToken?: string;
}

export interface PolicyApi {
  /** Whether the host offered policy_intents and this connection negotiated it. */
  readonly available: boolean;
  /** Whether single-use approvals were negotiated. */
  readonly approvals: boolean;
  /** One policy/evaluate. `approvalToken` retries an approved "ask" (single use). */
  evaluate(intent: IntentInput, options?: { approvalToken?: string }): Promise<PolicyAnswer>;
  /**
   * evaluate(), and when the answer is an approved "ask", the one retry with its token: true only
   * when the host finally says "allow". An unapproved "ask" or a "deny" is false.
   */
  authorize(intent: IntentInput): Promise<boolean>;
}

export interface SecretsApi {
  /** Whether the secrets feature was negotiated (a broker is bound and the manifest declares names). */
  readonly available: boolean;
  /**
   * The value of a secret named in the manifest's [capabilities].secrets. Rejects with a
   * WireError: code -32004 (ErrorCode.SecretUnavailable) when the host has no value for it,
   * -32602 for a name the manifest does not declare.
   */
  get(name: string): Promise<string>;
}

export function policyApi(link: () => Link | null): PolicyApi {
  const evaluate = async (intent: IntentInput, options: { approvalToken?: string } = {}): Promise<PolicyAnswer> => {
    const { scope, l } = active(link, "policy.evaluate");
    if (!l.features.has("policy_intents"))
      throw new Error(
        "policy.evaluate() needs the policy_intents feature, which the host did not offer (the host binds no " +
          "policy service)",
      );
    if (options.approvalToken !== undefined && !l.features.has("approvals"))
      throw new Error("policy.evaluate() with an approvalToken needs the approvals feature, which was not negotiated");
    const params: Record<string, unknown> = {
      parent_request_id: parentOf(scope, "policy.evaluate"),
      intent: toWire(intent),
    };
    if (options.approvalToken !== undefined) params["approval_token"] = options.approvalToken;
    const checked = validatePolicyParams(params);
    if (!checked.ok) throw new TypeError(`policy.evaluate(): ${checked.problems.join("; ")}`);
    const answer = validatePolicyResult(await send(scope, l, "policy/evaluate", checked.value));
    if (!answer.ok) throw new Error(`the host's policy/evaluate answer is invalid: ${answer.problems.join("; ")}`);
    return answer.value.approval_token === undefined
      ? { decision: answer.value.decision }
      : { decision: answer.value.decision, approvalToken: answer.value.approval_token };
  };
  return {
    get available() {
      return link()?.features.has("policy_intents") ?? false;
    },
    get approvals() {
      return link()?.features.has("approvals") ?? false;
    },
    evaluate,
    async authorize(intent) {
      const first = await evaluate(intent);
      if (first.decision !== "ask" || first.approvalToken === undefined) return first.decision === "allow";
      return (await evaluate(intent, { approvalToken: first.approvalToken })).decision === "allow";
    },
  };
}

export function secretsApi(link: () => Link | null): SecretsApi {
  return {
    get available() {
      return link()?.features.has("secrets") ?? false;
    },
    async get(name) {
      const { scope, l } = active(link, "secrets.get");
      if (!l.features.has("secrets"))
        throw new Error(
          "secrets.get() needs the secrets feature, which the host did not offer (it binds no secret broker, " +
            "or the manifest declares no [capabilities].secrets)",
        );
      const params = { parent_request_id: parentOf(scope, "secrets.get"), name };
      const checked = validateSecretParams(params);
      if (!checked.ok) throw new TypeError(`secrets.get(): ${checked.problems.join("; ")}`);
      const answer = await send(scope, l, "secret/get", checked.value);
      const result = validateSecretResult(answer);
      // Never quote the answer: it is (or contains) the secret.
      if (!result.ok)
        throw new WireError(
          ErrorCode.SecretUnavailable,
          "secret_unavailable the host's secret/get answer is malformed",
        );
      return result.value.value;
    },
  };
}

function active(link: () => Link | null, what: string): { scope: RequestScope; l: Link } {
  const l = link();
  if (!l) throw new Error(`${what}() is available only after the host initialized the extension`);
  if (l.api === "0.1") throw new Error(`${what}() needs API 0.2 or later`);
  const scope = requestStorage.getStore();
  if (!scope)
    throw new Error(
      `${what}() must be called from a tool/call or command/execute handler (no request is running here)`,
    );
  return { scope, l };
}

function toWire(intent: IntentInput): PolicyIntent | unknown {
  if (!isPlainObject(intent)) return intent;
  return {
    kind: intent.kind ?? "external_side_effect",
    operation: intent.operation,
    target: intent.target,
    data_classes: intent.dataClasses ?? [],
    adapter_hints: { read_only: intent.hints?.readOnly ?? false, destructive: intent.hints?.destructive ?? false },
  };
}
