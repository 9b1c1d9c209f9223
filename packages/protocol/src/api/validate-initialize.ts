/**
 * The initialize response, checked against what the host expects of this generation: the
 * manifest-selected API version, the manifest's declared tool and command names, and (API 0.2/0.4)
 * the protocol offer the host sent. Owns the catalog rules (counts, duplicates, equality with the
 * manifest unless a discovery feature frees them) and feature negotiation (INIT-06..28, INIT-34..42).
 * Whether an offered feature has a bound service behind it is the host's; so is what happens to
 * the child after a refusal.
 */
import { MAX_COMMANDS, MAX_CONCURRENT_REQUESTS, MAX_TOOLS } from "../bounds.js";
import { FEATURE_DEPENDENCIES, LIFECYCLE_EVENTS, REQUIRED_FEATURES, isKnownFeature } from "../features.js";
import {
  checkCount,
  duplicates,
  index,
  isAbsent,
  member,
  quote,
  quoteList,
  readArray,
  readInteger,
  readObject,
  readStringArray,
  refuse,
  rejectUnknown,
  show,
} from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type { CommandDefinition, InitializeResult, ProtocolSelection, ToolDefinition } from "./types.js";
import { checkCommandDefinition, checkToolCatalogBytes, checkToolDefinition } from "./validate-tool.js";

export interface InitializeExpectation {
  /** The manifest-selected version; the response must name exactly this one (INIT-06). */
  api: ApiVersion;
  /** The manifest's declared names, echoed in initialize.params.contributes. */
  contributes: { tools: readonly string[]; commands: readonly string[] };
  /** The protocol offer sent in the request; present exactly when api is 0.2 or 0.4. */
  offered?: { required: readonly string[]; optional: readonly string[]; maxConcurrentRequests: number };
}

export interface AcceptedInitialize {
  /** The response as validated; protocol.limits keeps the requested value, before clamping. */
  result: InitializeResult;
  /** Negotiated features, in the order the extension listed them ([] on API 0.1). */
  features: string[];
  /** Effective concurrency: the requested value clamped to the offered cap (1 on API 0.1). */
  maxConcurrentRequests: number;
  /** Subscribed lifecycle events, with "omitted or empty" resolved to all six ([] without the feature). */
  lifecycleEvents: string[];
}

const RESULT_MEMBERS = new Set(["api_version", "tools", "commands", "protocol"]);
const PROTOCOL_MEMBERS = new Set(["version", "features", "limits", "lifecycle_events"]);

interface Negotiation {
  selection: ProtocolSelection;
  features: string[];
  maxConcurrentRequests: number;
  lifecycleEvents: string[];
}

/** Validates an initialize result (INIT-06..11, INIT-17..28, TDEF-13/14 and TDEF via the definitions). */
export function validateInitializeResult(value: unknown, expect: InitializeExpectation): Checked<AcceptedInitialize> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  for (const key of Object.keys(obj)) {
    if (!RESULT_MEMBERS.has(key)) p.add(key, "unknown member");
  }
  const api = member(obj, "api_version");
  if (api !== expect.api) {
    p.add(
      "api_version",
      api === undefined
        ? `missing; expected "${expect.api}"`
        : `${show(api)} does not equal the manifest-selected "${expect.api}"`,
    );
  }

  // API 0.1 is frozen without negotiation (INIT-11); null reads as absent, like every optional member.
  let negotiation: Negotiation | undefined;
  const protocol = member(obj, "protocol");
  if (expect.api === "0.1") {
    if (!isAbsent(protocol)) p.add("protocol", "not allowed on API 0.1");
  } else negotiation = checkProtocol(p, protocol, expect);

  // The discovery features free a catalog from the manifest, never from duplicates (INIT-09). When
  // the selection itself has problems, the offered names it lists still decide, so a refusal does
  // not also report catalog differences the extension did negotiate away.
  const offered = new Set([...(expect.offered?.required ?? []), ...(expect.offered?.optional ?? [])]);
  const selected =
    expect.api === "0.1" ? [] : (negotiation?.features ?? rawFeatures(protocol).filter((f) => offered.has(f)));
  const tools = checkCatalog<ToolDefinition>(p, "tools", member(obj, "tools"), {
    max: MAX_TOOLS,
    declared: expect.contributes.tools,
    declaredAt: "contributes.tools",
    free: selected.includes("dynamic_tools"), // INIT-28
    // Prompt metadata needs tool_prompt_metadata_v1 selected in this same response (TDEF-14).
    check: (path, v) => checkToolDefinition(p, path, v, expect.api, selected),
    checkList: (path, list) => checkToolCatalogBytes(p, path, list), // TDEF-13
  });
  const commands = checkCatalog<CommandDefinition>(p, "commands", member(obj, "commands"), {
    max: MAX_COMMANDS,
    declared: expect.contributes.commands,
    declaredAt: "contributes.commands",
    free: selected.includes("runtime_commands"), // INIT-27
    check: (path, v) => checkCommandDefinition(p, path, v),
  });
  if (!p.ok || tools === undefined || commands === undefined) return refuse(p);

  const result: InitializeResult = { api_version: expect.api, tools, commands };
  if (negotiation === undefined) {
    return { ok: true, value: { result, features: [], maxConcurrentRequests: 1, lifecycleEvents: [] } };
  }
  result.protocol = negotiation.selection;
  const { features, maxConcurrentRequests, lifecycleEvents } = negotiation;
  return { ok: true, value: { result, features, maxConcurrentRequests, lifecycleEvents } };
}

/** The protocol selection of API 0.2/0.4 (INIT-17..26, INIT-34..42). */
function checkProtocol(p: Problems, raw: unknown, expect: InitializeExpectation): Negotiation | undefined {
  // A caller on 0.2/0.4 always passes its offer; without one, only the required features are offered.
  const offered = expect.offered ?? {
    required: REQUIRED_FEATURES,
    optional: [],
    maxConcurrentRequests: MAX_CONCURRENT_REQUESTS,
  };
  const obj = readObject(p, "protocol", raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, "protocol", obj, PROTOCOL_MEMBERS);

  const version = member(obj, "version");
  if (version !== expect.api) {
    p.add(
      "protocol.version",
      version === undefined
        ? `missing; expected "${expect.api}"`
        : `${show(version)} does not equal api_version "${expect.api}"`,
    );
  }

  const features = readStringArray(p, "protocol.features", member(obj, "features")) ?? [];
  const dup = duplicates(features);
  if (dup.length > 0) p.add("protocol.features", `duplicate ${quoteList(dup)}`);
  const offer = new Set([...offered.required, ...offered.optional]);
  features.forEach((name, i) => {
    if (!offer.has(name))
      p.add(
        index("protocol.features", i),
        `${quote(name)} ${isKnownFeature(name) ? "was not offered" : "is not a known feature"}`,
      );
  });
  const missing = offered.required.filter((name) => !features.includes(name));
  if (missing.length > 0) p.add("protocol.features", `missing required ${quoteList(missing)}`);
  for (const [feature, requires] of FEATURE_DEPENDENCIES) {
    if (features.includes(feature) && !features.includes(requires)) {
      p.add("protocol.features", `${quote(feature)} requires ${quote(requires)}`);
    }
  }

  // Unknown limits are ignored: they would be the host's own caps echoed back, and change nothing.
  const limits = readObject(p, "protocol.limits", member(obj, "limits"));
  const requested =
    limits === undefined
      ? undefined
      : readInteger(p, "protocol.limits.max_concurrent_requests", member(limits, "max_concurrent_requests"), 1);

  const lifecycle = checkLifecycle(p, member(obj, "lifecycle_events"), features.includes("lifecycle_events"));
  if (p.count !== before || requested === undefined || lifecycle === undefined) return undefined;

  const selection: ProtocolSelection = {
    version: expect.api,
    features,
    limits: { max_concurrent_requests: requested },
  };
  const sent = member(obj, "lifecycle_events");
  if (Array.isArray(sent)) selection.lifecycle_events = sent as string[];
  return {
    selection,
    features,
    // Above the offer is clamped, not refused (INIT-22): the extension asked for "as many as you allow".
    maxConcurrentRequests: Math.min(requested, offered.maxConcurrentRequests),
    lifecycleEvents: lifecycle,
  };
}

/** INIT-24..26: the effective subscription, or undefined after a problem. */
function checkLifecycle(p: Problems, raw: unknown, negotiated: boolean): string[] | undefined {
  const path = "protocol.lifecycle_events";
  const names = isAbsent(raw) ? [] : readStringArray(p, path, raw);
  if (names === undefined) return undefined;
  if (!negotiated) {
    if (names.length === 0) return [];
    p.add(path, `${names.length} subscriptions without the lifecycle_events feature negotiated`);
    return undefined;
  }
  if (names.length === 0) return [...LIFECYCLE_EVENTS];
  let ok = true;
  names.forEach((name, i) => {
    if (!(LIFECYCLE_EVENTS as readonly string[]).includes(name)) {
      p.add(index(path, i), `${quote(name)} is not one of the six lifecycle events`);
      ok = false;
    }
  });
  const dup = duplicates(names);
  if (dup.length > 0) {
    p.add(path, `duplicate ${quoteList(dup)}`);
    ok = false;
  }
  return ok ? names : undefined;
}

/** Feature names as sent, for deciding catalog freedom even when the selection has problems. */
function rawFeatures(protocol: unknown): string[] {
  if (isAbsent(protocol) || typeof protocol !== "object" || Array.isArray(protocol)) return [];
  const features = member(protocol as Record<string, unknown>, "features");
  return Array.isArray(features) ? features.filter((f): f is string => typeof f === "string") : [];
}

interface CatalogRule<T> {
  max: number;
  declared: readonly string[];
  declaredAt: string;
  /** True when a negotiated feature makes the response authoritative over the manifest. */
  free: boolean;
  check: (path: string, v: unknown) => T | undefined;
  /** A whole-list bound checked before any entry is walked (the encoded tool catalog). */
  checkList?: (path: string, list: unknown[]) => boolean;
}

/** A definition list: count bound first (so an oversized list is not walked), then each entry. */
function checkCatalog<T extends { name: string }>(
  p: Problems,
  path: string,
  raw: unknown,
  rule: CatalogRule<T>,
): T[] | undefined {
  const list = readArray(p, path, raw);
  if (list === undefined || !checkCount(p, path, list.length, rule.max, "definition")) return undefined;
  if (rule.checkList !== undefined && !rule.checkList(path, list)) return undefined;
  const before = p.count;
  const defs = list.map((item, i) => rule.check(index(path, i), item));
  // Names are taken from every entry that has one, so duplicates show even beside other problems.
  const names = list.flatMap((item) => {
    const name =
      typeof item === "object" && item !== null ? member(item as Record<string, unknown>, "name") : undefined;
    return typeof name === "string" ? [name] : [];
  });
  const dup = duplicates(names);
  if (dup.length > 0) p.add(path, `duplicate names ${quoteList(dup)}`);
  if (!rule.free) {
    const got = new Set(names);
    const declared = new Set(rule.declared);
    const missing = [...declared].filter((n) => !got.has(n));
    const extra = [...got].filter((n) => !declared.has(n));
    if (missing.length > 0) p.add(path, `missing ${quoteList(missing)} declared in ${rule.declaredAt}`);
    if (extra.length > 0) p.add(path, `${quoteList(extra)} not declared in ${rule.declaredAt}`);
  }
  if (p.count !== before) return undefined;
  return defs.filter((d): d is T => d !== undefined);
}
