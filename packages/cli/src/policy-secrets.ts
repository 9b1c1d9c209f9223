/**
 * The CLI's policy and secrets services: --policy FILE (a rules file, see the host's
 * policy-rules.ts) and --secret NAME=ENV_VAR (a broker over only the variables the user named).
 * Parsing and reading turn into usage errors that name the value; the rules and the wire are the
 * host's.
 */
import { readFileSync } from "node:fs";
import {
  parsePolicyRules,
  policyFormatOf,
  rulesClassifier,
  type HostServiceOptions,
  type PolicyApproveRequest,
  type PolicyRules,
} from "@octet/host";
import { SECRET_NAME_PATTERN, bounds } from "@octet/protocol";
import { UsageError } from "./usage-error.js";

/** One --secret NAME=ENV_VAR. */
export interface SecretMapping {
  name: string;
  variable: string;
}

const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses the --secret values; a malformed or repeated one is a usage error naming it. */
export function parseSecretFlags(values: readonly string[]): SecretMapping[] {
  const out: SecretMapping[] = [];
  for (const value of values) {
    const eq = value.indexOf("=");
    if (eq <= 0 || eq === value.length - 1)
      throw new UsageError(
        `--secret ${JSON.stringify(value)}: expected NAME=ENV_VAR, e.g. --secret guarded.api_token=GUARDED_TOKEN`,
      );
    const name = value.slice(0, eq);
    const variable = value.slice(eq + 1);
    if (name.length > bounds.MAX_SECRET_NAME_BYTES || !SECRET_NAME_PATTERN.test(name)) {
      throw new UsageError(
        `--secret ${JSON.stringify(value)}: ${JSON.stringify(name)} is not a secret name (a letter or "_", ` +
          `then letters, digits, "_", "-" or "."; at most ${bounds.MAX_SECRET_NAME_BYTES} bytes)`,
      );
    }
    if (!ENV_VAR_PATTERN.test(variable))
      throw new UsageError(
        `--secret ${JSON.stringify(value)}: ${JSON.stringify(variable)} is not an environment variable name`,
      );
    if (out.some((m) => m.name === name)) throw new UsageError(`--secret ${JSON.stringify(name)} is given twice`);
    out.push({ name, variable });
  }
  return out;
}

/** Reads and parses --policy FILE; any problem is a usage error naming the file. */
export function loadPolicyFile(path: string): PolicyRules {
  const format = policyFormatOf(path);
  if (!format) throw new UsageError(`--policy ${path}: the file must end in .json or .toml`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(`--policy ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return parsePolicyRules(text, format);
  } catch (err) {
    throw new UsageError(`--policy ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The host services for the flags: a classifier over the rules with `approve` asking the person
 * (an "ask"), and a broker that reads, at the moment of each request, only the variable mapped to
 * the name asked for. The environment as a whole is never read or passed anywhere.
 */
export function policySecretServices(
  o: {
    rules: PolicyRules | null;
    secrets: readonly SecretMapping[];
    approve: (r: PolicyApproveRequest) => Promise<boolean>;
    /**
     * Told why a secret was not handed over, naming the variable and never a value (issue
     * 13.11): the extension only gets the generic secret_unavailable, the person needs to know
     * which variable to set.
     */
    unavailable?: (message: string) => void;
  },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Pick<HostServiceOptions, "policy" | "secrets"> {
  const services: Pick<HostServiceOptions, "policy" | "secrets"> = {};
  if (o.rules) services.policy = { classify: rulesClassifier(o.rules), approve: o.approve };
  if (o.secrets.length > 0) {
    const byName = new Map(o.secrets.map((m) => [m.name, m.variable]));
    services.secrets = ({ name, extension }) => {
      const variable = byName.get(name);
      if (variable === undefined) {
        o.unavailable?.(
          `secret "${name}" asked for by extension "${extension}" is unavailable: no --secret ${name}=ENV_VAR ` +
            `was given (mapped: ${[...byName.keys()].join(", ")})`,
        );
        return null;
      }
      if (!Object.hasOwn(env, variable)) {
        o.unavailable?.(
          `secret "${name}" asked for by extension "${extension}" is unavailable: the environment variable ` +
            `${variable} (--secret ${name}=${variable}) is not set`,
        );
        return null;
      }
      return env[variable];
    };
  }
  return services;
}
