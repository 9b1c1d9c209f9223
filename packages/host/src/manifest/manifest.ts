/**
 * extension.toml: its schema, and the validation of manifest text into an ExtensionManifest with
 * every default filled. Every problem is a permanent ManifestError whose message names the file,
 * the key, the offending value and the rule or limit. The bounded file read is manifest-file.ts;
 * where manifests live is discovery.ts; whether one may start is trust.ts.
 */
import { parse as parseToml, TomlError } from "smol-toml";
import { HOOK_NAMES, OCTET_VERSION, bounds, isApiVersion, utf8ByteLength } from "@octet/protocol";
import type { ApiVersion, FilesystemCapability, InitializeContributes } from "@octet/protocol";
import { Collector, bool, isTable, noNul, quote, showValue, stringList } from "./manifest-values.js";
import type { Table } from "./manifest-values.js";

import type { ManifestError } from "./manifest-error.js";

export type { ManifestError, ManifestErrorCode } from "./manifest-error.js";

export const MANIFEST_FILE_NAME = "extension.toml";

export interface ExtensionManifest {
  name: string;
  version: string;
  api_version: ApiVersion;
  requires_octet: string | null;
  entrypoint: { command: string; args: string[] };
  capabilities: {
    filesystem: FilesystemCapability;
    process: boolean;
    network: boolean;
    secrets: string[];
    environment: string[];
    provider_credentials: boolean;
  };
  /** What initialize echoes as `contributes`, with every optional member filled in. */
  contributes: Required<InitializeContributes>;
}

export type ManifestResult = { ok: true; manifest: ExtensionManifest } | { ok: false; errors: ManifestError[] };

export interface ParseManifestOptions {
  /** The running host's version, checked against requires_octet (default OCTET_VERSION). */
  hostVersion?: string;
}

/** Lowercase letters, digits, "-" and "_", starting with a letter or digit, 1..64 bytes. */
export const EXTENSION_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Tool, command and renderer names (TDEF-08). */
export const CONTRIBUTION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
/** [capabilities].secrets names (MAN-13); the 64-byte bound is checked separately. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** requires_octet: one exact version, optionally written with Cargo's "=" exact operator. */
const EXACT_VERSION_PATTERN = /^=?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

export const FILESYSTEM_CAPABILITIES: readonly FilesystemCapability[] = ["none", "read", "write"];
export const UI_SURFACES: readonly string[] = ["status", "header", "footer"];
/** The only ambient variable [capabilities].environment may name (MAN-15). */
export const ENVIRONMENT_ALLOWLIST: readonly string[] = ["SSH_AUTH_SOCK"];

const HOOKS_01 = HOOK_NAMES;
const HOOKS_02 = [...HOOKS_01, "provider_retry", "before_persistence", "post_mutation"] as const;
const HOOKS_04 = [
  ...HOOKS_02,
  "model_turn_start",
  "model_turn_end",
  "compaction_strategy",
  "cache_warming_decision",
  "session_before_compact",
  "session_compact",
] as const;
/** Hook names a manifest may declare, per API version (HOOK-02, HOOK-08, INIT-43). */
export const HOOKS_BY_API: Readonly<Record<ApiVersion, readonly string[]>> = {
  "0.1": HOOKS_01,
  "0.2": HOOKS_02,
  "0.4": HOOKS_04,
};

export const UNSUPPORTED_API_03_MESSAGE = "canonical API 0.3 wire is not supported by this host";

const KEYS = {
  "": ["name", "version", "api_version", "requires_octet", "entrypoint", "capabilities", "contributes"],
  entrypoint: ["command", "args"],
  capabilities: ["filesystem", "process", "network", "secrets", "environment", "provider_credentials"],
  contributes: [
    "tools",
    "commands",
    "hooks",
    "ui",
    "context",
    "tool_renderers",
    "notifications",
    "confirmations",
    "presentation",
    "menu",
  ],
} as const;

/** Rejects keys outside the schema; Ygg-era names get a pointer to the octet name (MAN-04). */
function checkKeys(c: Collector, table: Table, prefix: keyof typeof KEYS): void {
  const allowed: readonly string[] = KEYS[prefix];
  for (const key of Object.keys(table)) {
    if (allowed.includes(key)) continue;
    const full = prefix === "" ? key : `${prefix}.${key}`;
    if (/ygg/i.test(key)) {
      const octet = key.replace(/ygg/gi, "octet");
      const hint = allowed.includes(octet) ? `; use ${JSON.stringify(octet)}` : "";
      c.add(full, "legacy_alias", `legacy alias ${quote(key)} is not accepted (octet reads only octet names)${hint}`);
    } else {
      c.add(full, "unknown_key", `unknown key (allowed here: ${allowed.join(", ")})`);
    }
  }
}

function subTable(c: Collector, root: Table, key: "entrypoint" | "capabilities" | "contributes"): Table | null {
  const v = root[key];
  if (v === undefined) return null;
  if (!isTable(v)) {
    c.add(key, "type", `must be a table ([${key}]), got ${showValue(v)}`);
    return null;
  }
  checkKeys(c, v, key);
  return v;
}

function contributionName(c: Collector, what: string): (item: string, itemKey: string) => boolean {
  return (item, itemKey) => {
    const n = utf8ByteLength(item);
    if (n > bounds.MAX_TOOL_NAME_BYTES) {
      c.add(
        itemKey,
        "bound",
        `${what} name ${quote(item)} is ${n} bytes, over the ${bounds.MAX_TOOL_NAME_BYTES}-byte limit`,
      );
      return false;
    }
    if (!CONTRIBUTION_NAME_PATTERN.test(item)) {
      c.add(itemKey, "grammar", `${what} name ${quote(item)} must match ${CONTRIBUTION_NAME_PATTERN.source}`);
      return false;
    }
    return true;
  };
}

/** Required short string without whitespace or control characters (name/version style). */
function requiredString(c: Collector, root: Table, key: string): string | null {
  const v = root[key];
  if (v === undefined) {
    c.add(key, "required", "is required");
    return null;
  }
  if (typeof v !== "string") {
    c.add(key, "type", `must be a string, got ${showValue(v)}`);
    return null;
  }
  if (v === "") {
    c.add(key, "required", "must be a non-empty string");
    return null;
  }
  return v;
}

function checkName(c: Collector, root: Table): string | null {
  const v = requiredString(c, root, "name");
  if (v === null) return null;
  const n = utf8ByteLength(v);
  if (n > bounds.MAX_EXTENSION_NAME_BYTES) {
    c.add("name", "bound", `${quote(v)} is ${n} bytes, over the ${bounds.MAX_EXTENSION_NAME_BYTES}-byte limit`);
    return null;
  }
  if (!EXTENSION_NAME_PATTERN.test(v)) {
    c.add(
      "name",
      "grammar",
      `${quote(v)} must match ${EXTENSION_NAME_PATTERN.source} (lowercase letters, digits, "-" and "_", ` +
        `starting with a letter or digit)`,
    );
    return null;
  }
  return v;
}

function checkVersion(c: Collector, root: Table): string | null {
  const v = requiredString(c, root, "version");
  if (v === null) return null;
  const n = utf8ByteLength(v);
  if (n > bounds.MAX_MANIFEST_VERSION_BYTES) {
    c.add("version", "bound", `${quote(v)} is ${n} bytes, over the ${bounds.MAX_MANIFEST_VERSION_BYTES}-byte limit`);
    return null;
  }
  if (/[\s\p{Cc}]/u.test(v)) {
    c.add("version", "grammar", `${quote(v)} must not contain whitespace or control characters`);
    return null;
  }
  return v;
}

function checkApiVersion(c: Collector, root: Table): ApiVersion | null {
  const v = root["api_version"];
  if (v === undefined) {
    c.add("api_version", "required", 'is required: "0.1", "0.2" or "0.4" (it is never inferred from "version")');
    return null;
  }
  if (v === "0.3") {
    c.add("api_version", "unsupported_api", `"0.3": ${UNSUPPORTED_API_03_MESSAGE}`, "manifest_unsupported_api");
    return null;
  }
  if (!isApiVersion(v)) {
    c.add("api_version", "value", `must be the string "0.1", "0.2" or "0.4", got ${showValue(v)}`);
    return null;
  }
  return v;
}

function checkRequiresOctet(c: Collector, root: Table, hostVersion: string): string | null {
  const v = root["requires_octet"];
  if (v === undefined) return null;
  if (typeof v !== "string") {
    c.add("requires_octet", "type", `must be a string holding one exact version, got ${showValue(v)}`);
    return null;
  }
  const n = utf8ByteLength(v);
  if (n > bounds.MAX_MANIFEST_VERSION_BYTES) {
    c.add(
      "requires_octet",
      "bound",
      `${quote(v)} is ${n} bytes, over the ${bounds.MAX_MANIFEST_VERSION_BYTES}-byte limit`,
    );
    return null;
  }
  const m = EXACT_VERSION_PATTERN.exec(v);
  if (m === null) {
    c.add(
      "requires_octet",
      "grammar",
      `${quote(v)} must be one exact version such as "${hostVersion}" or "=${hostVersion}" (ranges are not accepted)`,
    );
    return null;
  }
  const exact = m[1] ?? v;
  if (exact !== hostVersion) {
    c.add(
      "requires_octet",
      "version_mismatch",
      `extension requires octet ${exact} but this host is octet ${hostVersion}`,
      "version_mismatch",
    );
  }
  return exact;
}

function checkEntrypoint(c: Collector, root: Table): { command: string; args: string[] } | null {
  if (root["entrypoint"] === undefined) {
    c.add("entrypoint.command", "required", 'is required ([entrypoint] command = "...")');
    return null;
  }
  const ep = subTable(c, root, "entrypoint");
  if (ep === null) return null;
  let command: string | null = null;
  const v = ep["command"];
  if (v === undefined) c.add("entrypoint.command", "required", "is required");
  else if (typeof v !== "string" || v === "") {
    c.add("entrypoint.command", "type", `must be a non-empty string, got ${showValue(v)}`);
  } else if (noNul(c, "entrypoint.command", v)) command = v;
  // Arguments may repeat ("-v", "-v") and are passed verbatim (ENV-10).
  const args = stringList(c, ep, "entrypoint", "args", (item, key) => noNul(c, key, item), { unique: false });
  return command === null ? null : { command, args };
}

/** Reports a 0.2+-only declaration on API 0.1; silent when api_version itself is invalid (already reported). */
function gate(c: Collector, api: ApiVersion | null, key: string, what: string): void {
  if (api === "0.1") c.add(key, "api_version", `${what} requires api_version "0.2" or "0.4" (api_version is "0.1")`);
}

function checkCapabilities(c: Collector, root: Table, api: ApiVersion | null): ExtensionManifest["capabilities"] {
  const caps = subTable(c, root, "capabilities");
  let filesystem: FilesystemCapability = "none";
  const fsValue = caps?.["filesystem"];
  if (fsValue !== undefined) {
    if (typeof fsValue === "string" && (FILESYSTEM_CAPABILITIES as readonly string[]).includes(fsValue)) {
      filesystem = fsValue as FilesystemCapability;
    } else {
      c.add("capabilities.filesystem", "value", `must be one of "none", "read", "write", got ${showValue(fsValue)}`);
    }
  }
  const processCap = bool(c, caps, "capabilities", "process");
  const network = bool(c, caps, "capabilities", "network");
  const secrets = stringList(c, caps, "capabilities", "secrets", (item, key) => {
    const n = utf8ByteLength(item);
    if (n > bounds.MAX_SECRET_NAME_BYTES) {
      c.add(
        key,
        "bound",
        `secret name ${quote(item)} is ${n} bytes, over the ${bounds.MAX_SECRET_NAME_BYTES}-byte limit`,
      );
      return false;
    }
    if (!SECRET_NAME_PATTERN.test(item)) {
      c.add(
        key,
        "grammar",
        `secret name ${quote(item)} must match ${SECRET_NAME_PATTERN.source} (ASCII; starts with a letter or ` +
          `"_", then letters, digits, "_", "-" or ".")`,
      );
      return false;
    }
    return true;
  });
  if (secrets.length > 0) gate(c, api, "capabilities.secrets", "a non-empty secrets list");
  const environment = stringList(c, caps, "capabilities", "environment", (item, key) => {
    if (ENVIRONMENT_ALLOWLIST.includes(item)) return true;
    c.add(
      key,
      "value",
      `environment name ${quote(item)} is not allowed (allowed: ${ENVIRONMENT_ALLOWLIST.join(", ")})`,
    );
    return false;
  });
  if (caps?.["environment"] !== undefined) gate(c, api, "capabilities.environment", "an environment declaration");
  const providerCredentials = bool(c, caps, "capabilities", "provider_credentials");
  if (providerCredentials) gate(c, api, "capabilities.provider_credentials", "provider_credentials = true");

  return { filesystem, process: processCap, network, secrets, environment, provider_credentials: providerCredentials };
}

function checkContributes(c: Collector, root: Table, api: ApiVersion | null): ExtensionManifest["contributes"] {
  const con = subTable(c, root, "contributes");
  const tools = stringList(c, con, "contributes", "tools", contributionName(c, "tool"), { maxItems: bounds.MAX_TOOLS });
  const commands = stringList(c, con, "contributes", "commands", contributionName(c, "command"), {
    maxItems: bounds.MAX_COMMANDS,
  });
  const allHooks = HOOKS_BY_API["0.4"];
  const hooks = stringList(c, con, "contributes", "hooks", (item, key) => {
    if (!allHooks.includes(item)) {
      c.add(key, "value", `unknown hook ${quote(item)} (known: ${allHooks.join(", ")})`);
      return false;
    }
    if (api !== null && !HOOKS_BY_API[api].includes(item)) {
      const needs = HOOKS_BY_API["0.2"].includes(item) ? '"0.2" or "0.4"' : '"0.4"';
      c.add(key, "api_version", `hook ${quote(item)} requires api_version ${needs} (api_version is "${api}")`);
      return false;
    }
    return true;
  });
  const ui = stringList(c, con, "contributes", "ui", (item, key) => {
    if (UI_SURFACES.includes(item)) return true;
    c.add(key, "value", `unknown ui surface ${quote(item)} (allowed: ${UI_SURFACES.join(", ")})`);
    return false;
  });
  const context = bool(c, con, "contributes", "context");
  const toolNames = new Set(tools);
  const toolRenderers = stringList(c, con, "contributes", "tool_renderers", (item, key) => {
    if (!contributionName(c, "tool renderer")(item, key)) return false;
    if (toolNames.has(item)) return true;
    c.add(key, "undeclared_tool", `tool renderer ${quote(item)} is not a tool declared in contributes.tools`);
    return false;
  });
  const notifications = bool(c, con, "contributes", "notifications");
  const confirmations = bool(c, con, "contributes", "confirmations");
  const presentation = bool(c, con, "contributes", "presentation");
  if (presentation) gate(c, api, "contributes.presentation", "semantic presentation");
  const menu = bool(c, con, "contributes", "menu");
  if (menu) {
    gate(c, api, "contributes.menu", "menu = true");
    const declared = con?.["commands"];
    if (!Array.isArray(declared) || declared.length === 0) {
      c.add(
        "contributes.menu",
        "requires_command",
        "menu = true requires at least one command in contributes.commands",
      );
    }
  }

  return {
    tools,
    commands,
    hooks,
    ui,
    context,
    tool_renderers: toolRenderers,
    notifications,
    confirmations,
    presentation,
    menu,
  };
}

/**
 * The top-level `name = "..."` line of a manifest TOML cannot parse (an unquoted value elsewhere,
 * say): without it the broken extension is listed under its folder's name, and enabling it by its
 * real name says it was never discovered (13.3). Only a plain quoted valid name before the first
 * table header counts.
 */
function nameBeforeSyntaxError(text: string): string | null {
  for (const line of text.split("\n")) {
    if (/^\s*\[/.test(line)) return null;
    const m = /^\s*name\s*=\s*"([^"\\]*)"\s*(?:#.*)?$/.exec(line);
    if (m)
      return EXTENSION_NAME_PATTERN.test(m[1]!) && utf8ByteLength(m[1]!) <= bounds.MAX_EXTENSION_NAME_BYTES
        ? m[1]!
        : null;
  }
  return null;
}

/** Validates manifest text and returns the manifest, and the name whenever it was readable. */
export function parseManifestDetailed(
  text: string,
  file: string,
  options: ParseManifestOptions = {},
): { result: ManifestResult; name: string | null } {
  const c = new Collector(file);
  let root: Table;
  try {
    root = parseToml(text, { unsafeKeyBehaviour: "throw", maxDepth: 32 });
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0] ?? err.message;
      const reason = first.replace(/^Invalid TOML document: /, "");
      c.errors.push({
        file,
        key: "",
        rule: "toml_syntax",
        message: `${file}:${err.line}:${err.column}: invalid TOML (line ${err.line}, column ${err.column}): ${reason}`,
        code: "manifest_invalid",
      });
    } else {
      const reason = err instanceof Error ? err.message : String(err);
      c.add("", "toml_syntax", `invalid TOML: ${reason}`);
    }
    return { result: { ok: false, errors: c.finish() }, name: nameBeforeSyntaxError(text) };
  }

  checkKeys(c, root, "");
  const name = checkName(c, root);
  const version = checkVersion(c, root);
  const api = checkApiVersion(c, root);
  const requiresOctet = checkRequiresOctet(c, root, options.hostVersion ?? OCTET_VERSION);
  const entrypoint = checkEntrypoint(c, root);

  const capabilities = checkCapabilities(c, root, api);
  const contributes = checkContributes(c, root, api);

  const errors = c.finish();
  if (errors.length > 0 || name === null || version === null || api === null || entrypoint === null) {
    return { result: { ok: false, errors }, name };
  }
  return {
    name,
    result: {
      ok: true,
      manifest: {
        name,
        version,
        api_version: api,
        requires_octet: requiresOctet,
        entrypoint,
        capabilities,
        contributes,
      },
    },
  };
}

/** Validates extension.toml text; `file` is only used to name the manifest in messages. */
export function parseManifest(text: string, file: string, options?: ParseManifestOptions): ManifestResult {
  return parseManifestDetailed(text, file, options).result;
}
