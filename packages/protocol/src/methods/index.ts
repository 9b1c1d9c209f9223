/**
 * The method table (issue 14.1): every wire method the host and the SDKs know, declared once per
 * feature in this folder and gathered here into a frozen lookup. The host, the TypeScript SDK and
 * (through scripts/gen-python-methods.mjs) the Python SDK route by it, so a method cannot be
 * handled on one side without a declaration both sides read.
 *
 * Adding a method: declare it in its feature's file (or a new one) and list that file's array in
 * GROUPS. A duplicate name is refused when this module loads.
 */
import type { ApiVersion } from "../version.js";
import { ARTIFACT_METHODS } from "./artifacts.js";
import { CONTENT_METHODS } from "./content.js";
import { CONTRIBUTION_METHODS } from "./contributions.js";
import { CORE_METHODS } from "./core.js";
import { DYNAMIC_TOOL_METHODS } from "./dynamic-tools.js";
import { FRONTEND_METHODS } from "./frontend.js";
import { INTERACTION_METHODS } from "./interaction.js";
import { LIFECYCLE_METHODS } from "./lifecycle.js";
import { MENU_METHODS } from "./menus.js";
import { POLICY_METHODS } from "./policy.js";
import { PRESENTATION_METHODS } from "./presentation.js";
import { PROGRESS_METHODS } from "./progress.js";
import { SECRET_METHODS } from "./secrets.js";
import { SESSION_ENTRY_METHODS } from "./session-entries.js";
import { MESSAGE_INJECTION_METHODS } from "./message-injection.js";
import { SESSION_CONTROL_METHODS } from "./session-control.js";
import { TERMINAL_METHODS } from "./terminal.js";
import type { MethodDirection, MethodSpec } from "./spec.js";

const GROUPS: readonly (readonly MethodSpec[])[] = [
  CORE_METHODS,
  CONTENT_METHODS,
  CONTRIBUTION_METHODS,
  INTERACTION_METHODS,
  PROGRESS_METHODS,
  LIFECYCLE_METHODS,
  MENU_METHODS,
  ARTIFACT_METHODS,
  POLICY_METHODS,
  SECRET_METHODS,
  SESSION_ENTRY_METHODS,
  SESSION_CONTROL_METHODS,
  PRESENTATION_METHODS,
  DYNAMIC_TOOL_METHODS,
  MESSAGE_INJECTION_METHODS,
  TERMINAL_METHODS,
  FRONTEND_METHODS,
];

/**
 * A frozen name -> declaration map of `specs`; throws on a name declared twice, naming it, so two
 * features can never claim one method.
 */
export function buildMethodTable(specs: readonly MethodSpec[]): ReadonlyMap<string, MethodSpec> {
  const table = new Map<string, MethodSpec>();
  for (const spec of specs) {
    if (table.has(spec.method)) {
      throw new Error(`method table: "${spec.method}" is declared twice; a method name is declared once`);
    }
    if (spec.apiVersions.length === 0) throw new Error(`method table: "${spec.method}" names no API version`);
    table.set(spec.method, Object.freeze({ ...spec, apiVersions: Object.freeze([...spec.apiVersions]) }));
  }
  return freezeMap(table);
}

/** Every declared method, by name. */
export const METHODS: ReadonlyMap<string, MethodSpec> = buildMethodTable(GROUPS.flat());

/** The declaration of `method`, or undefined for a name no feature declares. */
export function methodSpec(method: string): MethodSpec | undefined {
  return METHODS.get(method);
}

export interface MethodFilter {
  /** Methods this side receives or sends in that direction ("both" methods match either); all when absent. */
  readonly direction?: Exclude<MethodDirection, "both">;
  readonly apiVersion: ApiVersion;
  /** The negotiated features; a method behind a feature not in it is left out. Empty on API 0.1. */
  readonly features: Iterable<string>;
}

/** The methods legal on a wire of `apiVersion` with `features` negotiated, in declaration order. */
export function methodsFor(filter: MethodFilter): MethodSpec[] {
  const features = new Set(filter.features);
  return [...METHODS.values()].filter((spec) => legal(spec, filter, features));
}

/**
 * The declaration of `method` if it is legal under `filter` (its direction, API version and
 * feature), else undefined: what a receiver asks before handling a method by name.
 */
export function legalMethod(method: string, filter: MethodFilter): MethodSpec | undefined {
  const spec = METHODS.get(method);
  if (!spec) return undefined;
  const features = filter.features instanceof Set ? (filter.features as ReadonlySet<string>) : new Set(filter.features);
  return legal(spec, filter, features) ? spec : undefined;
}

function legal(spec: MethodSpec, filter: MethodFilter, features: ReadonlySet<string>): boolean {
  if (filter.direction && spec.direction !== "both" && spec.direction !== filter.direction) return false;
  if (!spec.apiVersions.includes(filter.apiVersion)) return false;
  return spec.feature === undefined || features.has(spec.feature);
}

/** A Map whose mutators throw: Object.freeze alone leaves set/delete/clear working. */
function freezeMap<K, V>(map: Map<K, V>): ReadonlyMap<K, V> {
  const refuse = (): never => {
    throw new TypeError("the method table is frozen");
  };
  Object.defineProperties(map, { set: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } });
  return Object.freeze(map);
}

export type { MethodDirection, MethodKind, MethodSpec, MethodValidator } from "./spec.js";
export { ALL_VERSIONS, NEGOTIATED_VERSIONS } from "./spec.js";
export { INITIALIZE, SHUTDOWN, CANCEL_REQUEST } from "./core.js";
export { TOOL_CALL, COMMAND_EXECUTE, HOOK_RUN, CONTEXT_COLLECT, STATUS_COLLECT, TOOL_RENDER } from "./content.js";
export { NOTIFICATION, CONTEXT_CONTRIBUTION, STATUS_CONTRIBUTION } from "./contributions.js";
export { CONFIRMATION_REQUEST, INPUT_REQUEST } from "./interaction.js";
export { PROGRESS } from "./progress.js";
export { MENU_COLLECT } from "./menus.js";
export { ARTIFACT_PUBLISH } from "./artifacts.js";
export { POLICY_EVALUATE } from "./policy.js";
export { SECRET_GET, PROVIDER_CREDENTIALS } from "./secrets.js";
export { SESSION_APPEND_ENTRY, SESSION_SET_NAME, SESSION_SET_LABEL } from "./session-entries.js";
export { PRESENTATION_UPDATE } from "./presentation.js";
export { SESSION_WAIT_FOR_IDLE, SESSION_SWITCH, SESSION_COMPACT } from "./session-control.js";
export { TOOLS_REGISTER, TOOLS_UNREGISTER } from "./dynamic-tools.js";
export {
  SESSION_SEND_MESSAGE,
  SESSION_SEND_USER_MESSAGE,
  MESSAGE_UPDATED,
  MESSAGE_SETTLED,
  TOOLS_SET_ACTIVE,
} from "./message-injection.js";
export { TERMINAL_ACQUIRE, TERMINAL_RELEASE, TERMINAL_GRANT_LOST } from "./terminal.js";
export {
  COMPOSER_GET,
  COMPOSER_SET,
  COMPOSER_INSERT,
  SHORTCUT_REGISTER,
  SHORTCUT_TRIGGER,
  AUTOCOMPLETE_REGISTER,
  AUTOCOMPLETE_COMPLETE,
} from "./frontend.js";
