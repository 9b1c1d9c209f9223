/**
 * A ready-made classifier for embedders and the CLI: a rules file mapping operations to allow /
 * ask / deny. Owns the file's format and matching; asking a person about "ask" is the embedder's
 * (PolicyOptions.approve).
 *
 * Format (JSON or TOML, the same shape):
 *   default = "deny"                       # optional; deny when absent (fail closed, POL-05)
 *   [operations]
 *   "example.read" = "allow"               # an exact operation
 *   "example.*" = "ask"                    # every operation under "example."
 *   "*" = "deny"                           # every operation
 * The most specific rule wins: an exact name, then the longest "prefix.*", then "*", then default.
 */
import { parse as parseToml, TomlError } from "smol-toml";
import { POLICY_DECISIONS, POLICY_OPERATION_PATTERN, bounds, type PolicyDecision } from "@octet/protocol";
import type { PolicyClassifyRequest } from "./policy-service.js";

export interface PolicyRules {
  default: PolicyDecision;
  /** Pattern -> decision, as written. */
  operations: ReadonlyMap<string, PolicyDecision>;
}

/** Rules files are read whole; a policy is short, so a large file is a mistake (not a format error). */
export const MAX_POLICY_FILE_BYTES = 262_144;

/**
 * Parses a rules file. `format` is "json" or "toml" (by the file's extension; see policyFormatOf).
 * Throws an Error naming the offending member and what is allowed.
 */
export function parsePolicyRules(text: string, format: "json" | "toml"): PolicyRules {
  if (text.length > MAX_POLICY_FILE_BYTES)
    throw new Error(`the policy file is ${text.length} characters, over the ${MAX_POLICY_FILE_BYTES} limit`);
  let doc: unknown;
  try {
    doc = format === "json" ? JSON.parse(text) : parseToml(text);
  } catch (err) {
    // A TOML error knows its line and column: say them, the message alone rarely finds the typo.
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : "";
    const reason =
      err instanceof Error ? (err.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "") : String(err);
    throw new Error(`the policy file is not valid ${format.toUpperCase()}${where}: ${reason}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new Error('the policy file must be an object with an "operations" table');
  const root = doc as Record<string, unknown>;
  for (const key of Object.keys(root)) {
    if (key !== "default" && key !== "operations")
      throw new Error(`unknown key ${JSON.stringify(key)} in the policy file (allowed: "default", "operations")`);
  }
  const fallback = root["default"] === undefined ? "deny" : decision("default", root["default"]);
  const ops = root["operations"] ?? {};
  if (typeof ops !== "object" || ops === null || Array.isArray(ops))
    throw new Error('"operations" must be a table of operation = "allow" | "ask" | "deny"');
  const operations = new Map<string, PolicyDecision>();
  for (const [pattern, value] of Object.entries(ops as Record<string, unknown>)) {
    if (!isPattern(pattern)) {
      throw new Error(
        `operation pattern ${JSON.stringify(pattern)} is not an operation ("browser.submit_form"), a prefix ` +
          `("browser.*") or "*"; at most ${bounds.MAX_POLICY_OPERATION_BYTES} bytes`,
      );
    }
    operations.set(pattern, decision(`operations.${pattern}`, value));
  }
  return { default: fallback, operations };
}

/** "json" for *.json, "toml" for *.toml, else null. */
export function policyFormatOf(path: string): "json" | "toml" | null {
  const lower = path.toLowerCase();
  return lower.endsWith(".json") ? "json" : lower.endsWith(".toml") ? "toml" : null;
}

/** The decision the rules give an operation (the most specific rule wins). */
export function decideOperation(rules: PolicyRules, operation: string): PolicyDecision {
  const exact = rules.operations.get(operation);
  if (exact !== undefined) return exact;
  const parts = operation.split(".");
  for (let n = parts.length - 1; n >= 1; n--) {
    const hit = rules.operations.get(`${parts.slice(0, n).join(".")}.*`);
    if (hit !== undefined) return hit;
  }
  return rules.operations.get("*") ?? rules.default;
}

/** A PolicyOptions.classify over `rules`. */
export function rulesClassifier(rules: PolicyRules): (request: PolicyClassifyRequest) => PolicyDecision {
  return (request) => decideOperation(rules, request.intent.operation);
}

function decision(where: string, v: unknown): PolicyDecision {
  if (typeof v === "string" && (POLICY_DECISIONS as readonly string[]).includes(v)) return v as PolicyDecision;
  throw new Error(`${where} is ${JSON.stringify(v)}; expected "allow", "ask" or "deny"`);
}

function isPattern(p: string): boolean {
  if (p === "*") return true;
  if (p.length > bounds.MAX_POLICY_OPERATION_BYTES) return false;
  return POLICY_OPERATION_PATTERN.test(p.endsWith(".*") ? p.slice(0, -2) : p);
}
