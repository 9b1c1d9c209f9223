/**
 * policy/evaluate (POL-02, POL-03, POL-06, POL-08): the params an extension sends, the answer it
 * gets back, and the canonical text of an intent that an approval token is bound to. Owns shapes
 * and bounds; classification, approval and token state are the host's.
 *
 * The params are open (FRAME-15), but the intent is closed: it is what a person approves and what
 * a token is bound to, so a member the host does not understand must not ride along unseen
 * (POL-06 default). The answer is closed too: it is exactly {decision, approval_token?}.
 */
import {
  APPROVAL_TOKEN_HEX_CHARS,
  MAX_POLICY_DATA_CLASSES,
  MAX_POLICY_DATA_CLASS_BYTES,
  MAX_POLICY_LABEL_BYTES,
  MAX_POLICY_OPERATION_BYTES,
  MAX_POLICY_ORIGIN_BYTES,
} from "../bounds.js";
import {
  checkCount,
  duplicates,
  index,
  isAbsent,
  member,
  quote,
  quoteList,
  readArray,
  readBoolean,
  readInteger,
  readObject,
  readOneOf,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";

export type PolicyDecision = "allow" | "ask" | "deny";
/** The intent kinds the text defines (POL-06: only external_side_effect). */
export type PolicyIntentKind = "external_side_effect";

export interface PolicyIntent {
  kind: PolicyIntentKind;
  /** A dotted identifier, e.g. "browser.submit_form". */
  operation: string;
  target: { origin: string; label: string };
  data_classes: string[];
  /** The adapter's own view: it may only make the host more cautious (POL-04). */
  adapter_hints: { read_only: boolean; destructive: boolean };
}

export interface PolicyEvaluateParams {
  parent_request_id: number;
  intent: PolicyIntent;
  approval_token?: string;
}

export interface PolicyEvaluateResult {
  decision: PolicyDecision;
  approval_token?: string;
}

export const POLICY_DECISIONS = ["allow", "ask", "deny"] as const satisfies readonly PolicyDecision[];
export const POLICY_INTENT_KINDS = ["external_side_effect"] as const satisfies readonly PolicyIntentKind[];

/** Dot-separated identifiers: "browser.submit_form", "git.push", "mcp.tool.call". */
export const POLICY_OPERATION_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
/** A data class: "user_text", "credentials", "pii.email". */
export const POLICY_DATA_CLASS_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** 64 lowercase hexadecimal characters (POL-07); uppercase is refused, not folded. */
export const APPROVAL_TOKEN_PATTERN = new RegExp(`^[0-9a-f]{${APPROVAL_TOKEN_HEX_CHARS}}$`);

const PARAM_INTENT = new Set(["kind", "operation", "target", "data_classes", "adapter_hints"]);
const TARGET_MEMBERS = new Set(["origin", "label"]);
const HINT_MEMBERS = new Set(["read_only", "destructive"]);
const RESULT_MEMBERS = new Set(["decision", "approval_token"]);

/** policy/evaluate params: parent_request_id, a closed intent, and an optional approval token. */
export function validatePolicyParams(value: unknown): Checked<PolicyEvaluateParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const intent = readIntent(p, "intent", member(obj, "intent"));
  const rawToken = member(obj, "approval_token");
  const token = isAbsent(rawToken) ? undefined : readToken(p, "approval_token", rawToken);
  if (!p.ok || parent === undefined || intent === undefined) return refuse(p);
  const out: PolicyEvaluateParams = { parent_request_id: parent, intent };
  if (token !== undefined) out.approval_token = token;
  return { ok: true, value: out };
}

/** The answer: exactly {decision, approval_token?}, with a token only on "ask" (POL-08). */
export function validatePolicyResult(value: unknown): Checked<PolicyEvaluateResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, RESULT_MEMBERS);
  const decision = readOneOf(p, "decision", member(obj, "decision"), POLICY_DECISIONS);
  const rawToken = member(obj, "approval_token");
  // Absent, not null: the text says allow and deny "must omit" it.
  const token = rawToken === undefined ? undefined : readToken(p, "approval_token", rawToken);
  if (token !== undefined && decision !== undefined && decision !== "ask") {
    p.add("approval_token", `present on a "${decision}" decision; a token is valid only on "ask"`);
  }
  if (!p.ok || decision === undefined) return refuse(p);
  return { ok: true, value: token === undefined ? { decision } : { decision, approval_token: token } };
}

/**
 * The canonical text of a validated intent: members in one fixed order, so two intents are "the
 * exact same" (POL-09) exactly when their canonical texts are equal, whatever order the extension
 * wrote its members in. data_classes keep their order: a reordered list is a different request.
 */
export function canonicalIntent(intent: PolicyIntent): string {
  return JSON.stringify([
    intent.kind,
    intent.operation,
    intent.target.origin,
    intent.target.label,
    intent.data_classes,
    intent.adapter_hints.read_only,
    intent.adapter_hints.destructive,
  ]);
}

function readToken(p: Problems, path: string, v: unknown): string | undefined {
  if (typeof v !== "string") {
    p.add(path, `expected a string of ${APPROVAL_TOKEN_HEX_CHARS} lowercase hex characters, got ${describe(v)}`);
    return undefined;
  }
  if (!APPROVAL_TOKEN_PATTERN.test(v)) {
    // A token is a capability: never echo it, say only what is wrong with its form.
    p.add(
      path,
      `must be exactly ${APPROVAL_TOKEN_HEX_CHARS} lowercase hexadecimal characters (got ${v.length} characters)`,
    );
    return undefined;
  }
  return v;
}

function readIntent(p: Problems, path: string, v: unknown): PolicyIntent | undefined {
  const obj = readObject(p, path, v);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, PARAM_INTENT);
  const kind = readOneOf(p, `${path}.kind`, member(obj, "kind"), POLICY_INTENT_KINDS);
  const operation = readString(p, `${path}.operation`, member(obj, "operation"), {
    maxBytes: MAX_POLICY_OPERATION_BYTES,
  });
  if (operation !== undefined && !POLICY_OPERATION_PATTERN.test(operation)) {
    p.add(
      `${path}.operation`,
      `${quote(operation)} is not a dotted identifier like "browser.submit_form" (${POLICY_OPERATION_PATTERN.source})`,
    );
  }
  const target = readTarget(p, `${path}.target`, member(obj, "target"));
  const dataClasses = readDataClasses(p, `${path}.data_classes`, member(obj, "data_classes"));
  const hints = readHints(p, `${path}.adapter_hints`, member(obj, "adapter_hints"));
  if (
    p.count !== before ||
    kind === undefined ||
    operation === undefined ||
    target === undefined ||
    dataClasses === undefined ||
    hints === undefined
  )
    return undefined;
  return { kind, operation, target, data_classes: dataClasses, adapter_hints: hints };
}

function readTarget(p: Problems, path: string, v: unknown): PolicyIntent["target"] | undefined {
  const obj = readObject(p, path, v);
  if (obj === undefined) return undefined;
  rejectUnknown(p, path, obj, TARGET_MEMBERS);
  const origin = readString(p, `${path}.origin`, member(obj, "origin"), {
    maxBytes: MAX_POLICY_ORIGIN_BYTES,
    plainText: true,
  });
  // The label is what a person reads when asked to approve: text, non-blank, short.
  const label = readString(p, `${path}.label`, member(obj, "label"), {
    nonBlank: true,
    maxBytes: MAX_POLICY_LABEL_BYTES,
    plainText: true,
  });
  return origin === undefined || label === undefined ? undefined : { origin, label };
}

function readDataClasses(p: Problems, path: string, v: unknown): string[] | undefined {
  const arr = readArray(p, path, v);
  if (arr === undefined) return undefined;
  if (!checkCount(p, path, arr.length, MAX_POLICY_DATA_CLASSES, "entry", "entries")) return undefined;
  const out: string[] = [];
  arr.forEach((item, i) => {
    const s = readString(p, index(path, i), item, { maxBytes: MAX_POLICY_DATA_CLASS_BYTES });
    if (s === undefined) return;
    if (!POLICY_DATA_CLASS_PATTERN.test(s))
      p.add(index(path, i), `${quote(s)} is not an identifier (${POLICY_DATA_CLASS_PATTERN.source})`);
    else out.push(s);
  });
  const dup = duplicates(out);
  if (dup.length > 0) p.add(path, `duplicate entries ${quoteList(dup)}`);
  return out.length === arr.length && dup.length === 0 ? out : undefined;
}

function readHints(p: Problems, path: string, v: unknown): PolicyIntent["adapter_hints"] | undefined {
  const obj = readObject(p, path, v);
  if (obj === undefined) return undefined;
  rejectUnknown(p, path, obj, HINT_MEMBERS);
  const readOnly = readBoolean(p, `${path}.read_only`, member(obj, "read_only"));
  const destructive = readBoolean(p, `${path}.destructive`, member(obj, "destructive"));
  return readOnly === undefined || destructive === undefined ? undefined : { read_only: readOnly, destructive };
}
