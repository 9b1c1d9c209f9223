import { test } from "node:test";
import assert from "node:assert/strict";
import { OCTET_VERSION, bounds } from "@octet/protocol";
import {
  HOOKS_BY_API,
  UNSUPPORTED_API_03_MESSAGE,
  parseManifest,
  parseManifestDetailed,
} from "../../src/manifest/manifest.js";
import type { ExtensionManifest, ManifestError, ManifestResult } from "../../src/manifest/manifest.js";

const FILE = "/abs/x/extension.toml";

/** A valid manifest of the given API version with extra lines appended to its tables. */
function toml(
  opts: { api?: string; top?: string; entrypoint?: string; capabilities?: string; contributes?: string } = {},
): string {
  return [
    'name = "hello-tools"',
    'version = "0.1.0"',
    `api_version = "${opts.api ?? "0.4"}"`,
    opts.top ?? "",
    "[entrypoint]",
    'command = "python3"',
    opts.entrypoint ?? "",
    "[capabilities]",
    opts.capabilities ?? "",
    "[contributes]",
    opts.contributes ?? "",
    "",
  ].join("\n");
}

function ok(r: ManifestResult): ExtensionManifest {
  if (!r.ok) assert.fail(`expected a valid manifest, got:\n${r.errors.map((e) => e.message).join("\n")}`);
  return r.manifest;
}

function errs(r: ManifestResult): ManifestError[] {
  if (r.ok) assert.fail("expected manifest errors");
  return r.errors;
}

/** The one error for `key`; asserts the message names the file and the key and every given fragment. */
function errorAt(r: ManifestResult, key: string, ...fragments: string[]): ManifestError {
  const list = errs(r);
  const e = list.find((x) => x.key === key);
  if (e === undefined) assert.fail(`no error for key ${key}; got:\n${list.map((x) => x.message).join("\n")}`);
  assert.equal(e.file, FILE);
  assert.ok(e.message.startsWith(`${FILE}: key "${key}": `), e.message);
  for (const f of fragments)
    assert.ok(e.message.includes(f), `message ${JSON.stringify(e.message)} lacks ${JSON.stringify(f)}`);
  return e;
}

// ---- MAN-01 / MAN-02: shape and version selection ----

test("MAN-01: api_version selects exactly one wire version, each of 0.1, 0.2 and 0.4", () => {
  for (const api of ["0.1", "0.2", "0.4"] as const) {
    assert.equal(ok(parseManifest(toml({ api }), FILE)).api_version, api);
  }
});

test("MAN-01: api_version is never inferred from the package version", () => {
  const text = 'name = "x"\nversion = "0.4.0"\n[entrypoint]\ncommand = "node"\n';
  const e = errorAt(parseManifest(text, FILE), "api_version", "is required", "never inferred");
  assert.equal(e.rule, "required");
  assert.equal(e.code, "manifest_invalid");
  // A version that looks like another API does not change the selected one.
  const m = ok(parseManifest(toml({ api: "0.1" }).replace('version = "0.1.0"', 'version = "0.4.0"'), FILE));
  assert.equal(m.api_version, "0.1");
});

test("MAN-01: api_version must be a string, not a TOML number", () => {
  const text = toml().replace('api_version = "0.4"', "api_version = 0.4");
  errorAt(parseManifest(text, FILE), "api_version", '"0.1", "0.2" or "0.4"', "number 0.4");
  errorAt(parseManifest(toml({ api: "0.5" }), FILE), "api_version", 'string "0.5"');
});

test("MAN-02: the Python SDK's minimal API 0.4 manifest parses with every default filled", () => {
  const text = `name = "hello-tools"
version = "0.1.0"
api_version = "0.4"

[entrypoint]
command = "python3"
args = ["/absolute/path/to/my-extensions/hello-tools/extension.py"]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
tools = ["hello"]
`;
  assert.deepEqual(ok(parseManifest(text, FILE)), {
    name: "hello-tools",
    version: "0.1.0",
    api_version: "0.4",
    requires_octet: null,
    entrypoint: { command: "python3", args: ["/absolute/path/to/my-extensions/hello-tools/extension.py"] },
    capabilities: {
      filesystem: "none",
      process: false,
      network: false,
      secrets: [],
      environment: [],
      provider_credentials: false,
    },
    contributes: {
      tools: ["hello"],
      commands: [],
      hooks: [],
      ui: [],
      context: false,
      tool_renderers: [],
      notifications: false,
      confirmations: false,
      presentation: false,
      menu: false,
    },
  });
});

test("MAN-02: every manifest key of an API 0.2 manifest is read", () => {
  const text = `name = "all_keys"
version = "2.3.4-beta.1"
api_version = "0.2"
requires_octet = "${OCTET_VERSION}"

[entrypoint]
command = "node"
args = ["ext.js", "-v", "-v"]

[capabilities]
filesystem = "write"
process = true
network = true
secrets = ["API_TOKEN", "_x.y-z"]
environment = ["SSH_AUTH_SOCK"]
provider_credentials = true

[contributes]
tools = ["hello_world", "git-status"]
commands = ["hello"]
hooks = ["before_prompt", "after_response", "before_tool_call", "after_tool_call", "provider_retry"]
ui = ["status", "header", "footer"]
context = true
tool_renderers = ["hello_world"]
notifications = true
confirmations = true
presentation = true
menu = true
`;
  assert.deepEqual(ok(parseManifest(text, FILE)), {
    name: "all_keys",
    version: "2.3.4-beta.1",
    api_version: "0.2",
    requires_octet: OCTET_VERSION,
    entrypoint: { command: "node", args: ["ext.js", "-v", "-v"] },
    capabilities: {
      filesystem: "write",
      process: true,
      network: true,
      secrets: ["API_TOKEN", "_x.y-z"],
      environment: ["SSH_AUTH_SOCK"],
      provider_credentials: true,
    },
    contributes: {
      tools: ["hello_world", "git-status"],
      commands: ["hello"],
      hooks: ["before_prompt", "after_response", "before_tool_call", "after_tool_call", "provider_retry"],
      ui: ["status", "header", "footer"],
      context: true,
      tool_renderers: ["hello_world"],
      notifications: true,
      confirmations: true,
      presentation: true,
      menu: true,
    },
  });
});

test("MAN-02: [capabilities] and [contributes] may be omitted", () => {
  const m = ok(parseManifest('name = "a"\nversion = "1"\napi_version = "0.1"\n[entrypoint]\ncommand = "a"\n', FILE));
  assert.equal(m.capabilities.filesystem, "none");
  assert.deepEqual(m.contributes.tools, []);
  assert.deepEqual(m.entrypoint.args, []);
});

// ---- MAN-03: required keys, unknown keys, grammar ----

test("MAN-03: name, version, api_version and [entrypoint].command are required", () => {
  const r = parseManifest("", FILE);
  for (const key of ["name", "version", "api_version", "entrypoint.command"]) {
    const e = errorAt(r, key, "is required");
    assert.equal(e.rule, "required");
    assert.equal(e.code, "manifest_invalid");
  }
  errorAt(
    parseManifest('name = "a"\nversion = "1"\napi_version = "0.4"\n[entrypoint]\nargs = []\n', FILE),
    "entrypoint.command",
    "is required",
  );
});

test("MAN-03: [entrypoint].command must be a non-empty string without NUL", () => {
  const empty = toml().replace('command = "python3"', 'command = ""');
  assert.equal(
    errorAt(parseManifest(empty, FILE), "entrypoint.command").message,
    `${FILE}: key "entrypoint.command": must be a non-empty string, got string ""`,
  );
  errorAt(
    parseManifest(toml().replace('command = "python3"', "command = 3"), FILE),
    "entrypoint.command",
    "non-empty string",
    "number 3",
  );
  errorAt(
    parseManifest(toml().replace('command = "python3"', 'command = "py\\u0000"'), FILE),
    "entrypoint.command",
    "NUL",
  );
  errorAt(
    parseManifest(toml({ entrypoint: 'args = ["a", 1]' }), FILE),
    "entrypoint.args[1]",
    "must be a string",
    "number 1",
  );
  errorAt(parseManifest(toml({ entrypoint: 'args = "a b"' }), FILE), "entrypoint.args", "array of strings");
  errorAt(parseManifest(toml({ entrypoint: 'args = ["a\\u0000"]' }), FILE), "entrypoint.args[0]", "NUL");
  errorAt(
    parseManifest(toml().replace("[entrypoint]\n", 'entrypoint = "node"\n[other]\n'), FILE),
    "entrypoint",
    "must be a table",
  );
});

test("MAN-03: unknown keys anywhere are permanent errors", () => {
  for (const [opts, key] of [
    [{ top: "homepage = 'x'" }, "homepage"],
    [{ entrypoint: "cwd = '/'" }, "entrypoint.cwd"],
    [{ capabilities: "gpu = true" }, "capabilities.gpu"],
    [{ contributes: "widgets = []" }, "contributes.widgets"],
  ] as const) {
    const e = errorAt(parseManifest(toml(opts), FILE), key, "unknown key", "allowed here:");
    assert.equal(e.rule, "unknown_key");
  }
  const table = toml() + "[env]\nFOO = 'x'\n";
  errorAt(parseManifest(table, FILE), "env", "unknown key");
});

test("MAN-03: filesystem is one of none, read, write; any other value is an error", () => {
  for (const fs of ["none", "read", "write"]) {
    assert.equal(ok(parseManifest(toml({ capabilities: `filesystem = "${fs}"` }), FILE)).capabilities.filesystem, fs);
  }
  const e = errorAt(
    parseManifest(toml({ capabilities: 'filesystem = "all"' }), FILE),
    "capabilities.filesystem",
    '"none", "read", "write"',
    'string "all"',
  );
  assert.equal(e.rule, "value");
  errorAt(
    parseManifest(toml({ capabilities: "process = 'yes'" }), FILE),
    "capabilities.process",
    "boolean",
    'string "yes"',
  );
  errorAt(parseManifest(toml({ contributes: "context = 1" }), FILE), "contributes.context", "boolean", "number 1");
});

test("MAN-03: the name grammar is lowercase letters, digits, - and _; 64 bytes pass, 65 are refused", () => {
  const at = "a" + "-".repeat(62) + "9";
  assert.equal(at.length, bounds.MAX_EXTENSION_NAME_BYTES);
  assert.equal(ok(parseManifest(toml().replace('"hello-tools"', `"${at}"`), FILE)).name, at);
  const past = at + "x";
  errorAt(
    parseManifest(toml().replace('"hello-tools"', `"${past}"`), FILE),
    "name",
    `"${past}"`,
    "65 bytes",
    "64-byte limit",
  );
  for (const bad of ["Hello", "-lead", "_lead", "has space", "dot.ted", "é"]) {
    const e = errorAt(
      parseManifest(toml().replace('"hello-tools"', JSON.stringify(bad)), FILE),
      "name",
      JSON.stringify(bad),
      "^[a-z0-9]",
    );
    assert.equal(e.rule, "grammar");
  }
  ok(parseManifest(toml().replace('"hello-tools"', '"0_x-y"'), FILE));
});

test("MAN-03: version is a non-empty string of at most 64 bytes without whitespace", () => {
  const at = "1." + "0".repeat(62);
  ok(parseManifest(toml().replace('version = "0.1.0"', `version = "${at}"`), FILE));
  errorAt(
    parseManifest(toml().replace('version = "0.1.0"', `version = "${at}0"`), FILE),
    "version",
    "65 bytes",
    "64-byte limit",
  );
  errorAt(parseManifest(toml().replace('version = "0.1.0"', 'version = "1 0"'), FILE), "version", "whitespace");
  errorAt(
    parseManifest(toml().replace('version = "0.1.0"', "version = 1"), FILE),
    "version",
    "must be a string",
    "number 1",
  );
});

test("MAN-03: TOML syntax errors are reported with line and column", () => {
  const e = errs(parseManifest('name = "a"\nversion = \n', FILE));
  assert.equal(e.length, 1);
  const first = e[0]!;
  assert.equal(first.rule, "toml_syntax");
  assert.equal(first.code, "manifest_invalid");
  assert.match(first.message, /^\/abs\/x\/extension\.toml:2:\d+: invalid TOML \(line 2, column \d+\): /);
  assert.ok(!first.message.includes("\n"), "one line");
  const dup = errs(parseManifest('name = "a"\nname = "b"\n', FILE))[0]!;
  assert.match(dup.message, /line 2/);
});

test("MAN-03: requires_octet is one exact version; ranges are refused", () => {
  assert.equal(
    ok(parseManifest(toml({ top: `requires_octet = "=${OCTET_VERSION}"` }), FILE)).requires_octet,
    OCTET_VERSION,
  );
  for (const bad of [`>=${OCTET_VERSION}`, `^${OCTET_VERSION}`, "~0.1", "*", "0.1", "0.1.0 - 0.2.0", ""]) {
    const e = errorAt(
      parseManifest(toml({ top: `requires_octet = ${JSON.stringify(bad)}` }), FILE),
      "requires_octet",
      JSON.stringify(bad),
      "exact version",
    );
    assert.equal(e.code, "manifest_invalid");
  }
  errorAt(parseManifest(toml({ top: "requires_octet = 1" }), FILE), "requires_octet", "must be a string");
  // The 64-byte bound: at the limit the string is read (and compared), one past it is refused.
  const at = "1.0.0-" + "a".repeat(bounds.MAX_MANIFEST_VERSION_BYTES - 6);
  assert.equal(
    ok(parseManifest(toml({ top: `requires_octet = "${at}"` }), FILE, { hostVersion: at })).requires_octet,
    at,
  );
  errorAt(
    parseManifest(toml({ top: `requires_octet = "${at}a"` }), FILE, { hostVersion: at }),
    "requires_octet",
    "65 bytes",
    "64-byte limit",
  );
});

test("MAN-03: 32 problems are all reported; a 33rd is summarized in one final error", () => {
  const keys = (n: number): string => Array.from({ length: n }, (_, i) => `bad${i} = 1`).join("\n");
  const at = errs(parseManifest(toml({ top: keys(bounds.MAX_MANIFEST_ERRORS) }), FILE));
  assert.equal(at.length, 32);
  assert.ok(at.every((e) => e.rule === "unknown_key"));
  const past = errs(parseManifest(toml({ top: keys(bounds.MAX_MANIFEST_ERRORS + 1) }), FILE));
  assert.equal(past.length, 33);
  assert.equal(past.at(-1)!.message, `${FILE}: 1 more problem not shown (at most 32 are reported)`);
});

test("MAN-03: problems beyond the report limit are summarized in one error", () => {
  const many = Array.from({ length: 40 }, (_, i) => `bad${i} = 1`).join("\n");
  const list = errs(parseManifest(toml({ top: many }), FILE));
  assert.equal(list.length, bounds.MAX_MANIFEST_ERRORS + 1);
  assert.equal(list.at(-1)!.rule, "too_many_errors");
  assert.match(list.at(-1)!.message, /8 more problems not shown \(at most 32 are reported\)/);
});

// ---- MAN-04: no legacy aliases ----

test("MAN-04: Ygg-era alias keys are refused and point at the octet name", () => {
  const e = errorAt(
    parseManifest(toml({ top: `requires_ygg = "${OCTET_VERSION}"` }), FILE),
    "requires_ygg",
    "legacy alias",
    'use "requires_octet"',
  );
  assert.equal(e.rule, "legacy_alias");
  errorAt(parseManifest(toml({ top: 'ygg_version = "0.1"' }), FILE), "ygg_version", "legacy alias");
  errorAt(parseManifest(toml({ capabilities: "ygg_secrets = []" }), FILE), "capabilities.ygg_secrets", "legacy alias");
  // The octet names themselves are accepted, and an API number implies no alias.
  ok(parseManifest(toml({ api: "0.1", top: `requires_octet = "${OCTET_VERSION}"` }), FILE));
});

// ---- MAN-05 / MAN-07: requires_octet against the host version ----

test("MAN-05: a requires_octet mismatch is a version_mismatch error naming both versions", () => {
  const e = errorAt(
    parseManifest(toml({ top: 'requires_octet = "9.9.9"' }), FILE),
    "requires_octet",
    "9.9.9",
    OCTET_VERSION,
  );
  assert.equal(e.code, "version_mismatch");
  assert.equal(
    e.message,
    `${FILE}: key "requires_octet": extension requires octet 9.9.9 but this host is octet ${OCTET_VERSION}`,
  );
  // An explicit hostVersion replaces the default.
  ok(parseManifest(toml({ top: 'requires_octet = "9.9.9"' }), FILE, { hostVersion: "9.9.9" }));
  const other = errorAt(
    parseManifest(toml({ top: `requires_octet = "${OCTET_VERSION}"` }), FILE, { hostVersion: "0.8.0" }),
    "requires_octet",
    "0.8.0",
  );
  assert.equal(other.code, "version_mismatch");
});

test("MAN-07: an unpackaged local manifest may omit requires_octet", () => {
  assert.equal(ok(parseManifest(toml(), FILE)).requires_octet, null);
});

// ---- MAN-11 / MAN-12: presentation and menu ----

test("MAN-11: an API 0.1 manifest that declares presentation is invalid; 0.2 and 0.4 may", () => {
  const e = errorAt(
    parseManifest(toml({ api: "0.1", contributes: "presentation = true" }), FILE),
    "contributes.presentation",
    'api_version "0.2" or "0.4"',
    '(api_version is "0.1")',
  );
  assert.equal(e.rule, "api_version");
  assert.equal(
    ok(parseManifest(toml({ api: "0.2", contributes: "presentation = true" }), FILE)).contributes.presentation,
    true,
  );
  assert.equal(
    ok(parseManifest(toml({ api: "0.4", contributes: "presentation = true" }), FILE)).contributes.presentation,
    true,
  );
  ok(parseManifest(toml({ api: "0.1", contributes: "presentation = false" }), FILE));
});

test("MAN-12: menu = true needs API 0.2+ and at least one declared command", () => {
  errorAt(
    parseManifest(toml({ api: "0.1", contributes: 'commands = ["a"]\nmenu = true' }), FILE),
    "contributes.menu",
    'api_version "0.2" or "0.4"',
  );
  errorAt(
    parseManifest(toml({ api: "0.2", contributes: "menu = true" }), FILE),
    "contributes.menu",
    "at least one command",
  );
  errorAt(
    parseManifest(toml({ api: "0.4", contributes: "commands = []\nmenu = true" }), FILE),
    "contributes.menu",
    "at least one command",
  );
  assert.equal(
    ok(parseManifest(toml({ api: "0.2", contributes: 'commands = ["a"]\nmenu = true' }), FILE)).contributes.menu,
    true,
  );
  ok(parseManifest(toml({ api: "0.1", contributes: "menu = false" }), FILE));
});

// ---- MAN-13..16: capabilities ----

test("MAN-13: secret names of 64 ASCII bytes pass, 65 are refused naming the value and limit", () => {
  const at = "S" + "x".repeat(63);
  assert.equal(at.length, bounds.MAX_SECRET_NAME_BYTES);
  assert.deepEqual(ok(parseManifest(toml({ capabilities: `secrets = ["${at}"]` }), FILE)).capabilities.secrets, [at]);
  const past = at + "y";
  const e = errorAt(
    parseManifest(toml({ capabilities: `secrets = ["${past}"]` }), FILE),
    "capabilities.secrets[0]",
    `"${past}"`,
    "65 bytes",
    "64-byte limit",
  );
  assert.equal(e.rule, "bound");
});

test("MAN-13: secret names start with a letter or _, then letters, digits, _, - or .; duplicates refused", () => {
  ok(parseManifest(toml({ capabilities: 'secrets = ["a", "_", "A1_-.z", "gh.token-2"]' }), FILE));
  for (const bad of ["1abc", "-a", ".a", "a b", "a/b", "é", ""]) {
    const e = errorAt(
      parseManifest(toml({ capabilities: `secrets = [${JSON.stringify(bad)}]` }), FILE),
      "capabilities.secrets[0]",
      JSON.stringify(bad),
    );
    assert.equal(e.rule, "grammar");
  }
  const d = errorAt(
    parseManifest(toml({ capabilities: 'secrets = ["A", "B", "A"]' }), FILE),
    "capabilities.secrets[2]",
    "duplicate",
    '"A"',
  );
  assert.equal(d.rule, "duplicate");
});

test("MAN-14: a non-empty secrets list on API 0.1 is invalid; an empty one is accepted", () => {
  errorAt(
    parseManifest(toml({ api: "0.1", capabilities: 'secrets = ["TOKEN"]' }), FILE),
    "capabilities.secrets",
    'api_version "0.2" or "0.4"',
  );
  ok(parseManifest(toml({ api: "0.1", capabilities: "secrets = []" }), FILE));
  assert.deepEqual(
    ok(parseManifest(toml({ api: "0.2", capabilities: 'secrets = ["TOKEN"]' }), FILE)).capabilities.secrets,
    ["TOKEN"],
  );
});

test("MAN-15: environment may list only SSH_AUTH_SOCK, and only on API 0.2+", () => {
  assert.deepEqual(
    ok(parseManifest(toml({ api: "0.2", capabilities: 'environment = ["SSH_AUTH_SOCK"]' }), FILE)).capabilities
      .environment,
    ["SSH_AUTH_SOCK"],
  );
  ok(parseManifest(toml({ api: "0.4", capabilities: 'environment = ["SSH_AUTH_SOCK"]' }), FILE));
  errorAt(
    parseManifest(toml({ api: "0.4", capabilities: 'environment = ["OPENAI_API_KEY"]' }), FILE),
    "capabilities.environment[0]",
    '"OPENAI_API_KEY"',
    "allowed: SSH_AUTH_SOCK",
  );
  errorAt(
    parseManifest(toml({ api: "0.1", capabilities: 'environment = ["SSH_AUTH_SOCK"]' }), FILE),
    "capabilities.environment",
    'api_version "0.2" or "0.4"',
  );
  // Any 0.1 declaration, even an empty one, is invalid.
  errorAt(
    parseManifest(toml({ api: "0.1", capabilities: "environment = []" }), FILE),
    "capabilities.environment",
    "api_version",
  );
  errorAt(
    parseManifest(toml({ api: "0.2", capabilities: 'environment = ["SSH_AUTH_SOCK", "SSH_AUTH_SOCK"]' }), FILE),
    "capabilities.environment[1]",
    "duplicate",
  );
});

test("MAN-16: provider_credentials = true is valid only on API 0.2+", () => {
  assert.equal(
    ok(parseManifest(toml({ api: "0.2", capabilities: "provider_credentials = true" }), FILE)).capabilities
      .provider_credentials,
    true,
  );
  assert.equal(
    ok(parseManifest(toml({ api: "0.4", capabilities: "provider_credentials = true" }), FILE)).capabilities
      .provider_credentials,
    true,
  );
  errorAt(
    parseManifest(toml({ api: "0.1", capabilities: "provider_credentials = true" }), FILE),
    "capabilities.provider_credentials",
    'api_version "0.2" or "0.4"',
  );
  ok(parseManifest(toml({ api: "0.1", capabilities: "provider_credentials = false" }), FILE));
  errorAt(
    parseManifest(toml({ api: "0.2", capabilities: 'provider_credentials = "yes"' }), FILE),
    "capabilities.provider_credentials",
    "boolean",
  );
});

// ---- contributes ----

test("MAN-03: tool and command names of 128 bytes pass, 129 are refused naming the value and limit", () => {
  const at = "t".repeat(bounds.MAX_TOOL_NAME_BYTES);
  assert.deepEqual(ok(parseManifest(toml({ contributes: `tools = ["${at}"]` }), FILE)).contributes.tools, [at]);
  const past = at + "t";
  errorAt(
    parseManifest(toml({ contributes: `tools = ["${past}"]` }), FILE),
    "contributes.tools[0]",
    "129 bytes",
    "128-byte limit",
    `"${past.slice(0, 80)}...`,
  );
  assert.deepEqual(ok(parseManifest(toml({ contributes: `commands = ["${at}"]` }), FILE)).contributes.commands, [at]);
  errorAt(
    parseManifest(toml({ contributes: `commands = ["${past}"]` }), FILE),
    "contributes.commands[0]",
    "129 bytes",
    "128-byte limit",
  );
  for (const bad of ["", "a.b", "a b", "ü"]) {
    errorAt(
      parseManifest(toml({ contributes: `tools = [${JSON.stringify(bad)}]` }), FILE),
      "contributes.tools[0]",
      "^[A-Za-z0-9_-]{1,128}$",
    );
  }
  errorAt(parseManifest(toml({ contributes: 'tools = ["a", "a"]' }), FILE), "contributes.tools[1]", "duplicate", '"a"');
  errorAt(parseManifest(toml({ contributes: 'commands = ["a", "a"]' }), FILE), "contributes.commands[1]", "duplicate");
});

test("MAN-03: at most 256 tools and 256 commands may be declared; 257 are refused", () => {
  const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => `"n${i}"`).join(", ")}]`;
  assert.equal(
    ok(parseManifest(toml({ contributes: `tools = ${list(bounds.MAX_TOOLS)}` }), FILE)).contributes.tools.length,
    256,
  );
  errorAt(
    parseManifest(toml({ contributes: `tools = ${list(bounds.MAX_TOOLS + 1)}` }), FILE),
    "contributes.tools",
    "257 entries",
    "limit of 256",
  );
  assert.equal(
    ok(parseManifest(toml({ contributes: `commands = ${list(bounds.MAX_COMMANDS)}` }), FILE)).contributes.commands
      .length,
    256,
  );
  errorAt(
    parseManifest(toml({ contributes: `commands = ${list(bounds.MAX_COMMANDS + 1)}` }), FILE),
    "contributes.commands",
    "257 entries",
    "limit of 256",
  );
});

test("MAN-03: an API 0.1 manifest may declare exactly the four legacy hooks", () => {
  const four = ["before_prompt", "after_response", "before_tool_call", "after_tool_call"];
  assert.deepEqual(HOOKS_BY_API["0.1"], four);
  assert.deepEqual(
    ok(parseManifest(toml({ api: "0.1", contributes: `hooks = ${JSON.stringify(four)}` }), FILE)).contributes.hooks,
    four,
  );
  errorAt(
    parseManifest(toml({ api: "0.1", contributes: 'hooks = ["provider_retry"]' }), FILE),
    "contributes.hooks[0]",
    '"provider_retry"',
    'requires api_version "0.2" or "0.4"',
  );
  errorAt(
    parseManifest(toml({ api: "0.1", contributes: 'hooks = ["on_start"]' }), FILE),
    "contributes.hooks[0]",
    'unknown hook "on_start"',
  );
  errorAt(
    parseManifest(toml({ api: "0.1", contributes: 'hooks = ["before_prompt", "before_prompt"]' }), FILE),
    "contributes.hooks[1]",
    "duplicate",
  );
});

test(
  "MAN-03: API 0.2 manifests may add provider_retry, before_persistence and post_mutation; 0.4-only hooks " +
    "are refused on 0.2",
  () => {
    const three = ["provider_retry", "before_persistence", "post_mutation"];
    assert.deepEqual(
      ok(parseManifest(toml({ api: "0.2", contributes: `hooks = ${JSON.stringify(three)}` }), FILE)).contributes.hooks,
      three,
    );
    for (const h of ["model_turn_start", "model_turn_end", "compaction_strategy", "cache_warming_decision"]) {
      errorAt(
        parseManifest(toml({ api: "0.2", contributes: `hooks = ["${h}"]` }), FILE),
        "contributes.hooks[0]",
        `"${h}"`,
        'requires api_version "0.4"',
      );
    }
  },
);

test("MAN-03: advisory, model_turn and compaction hooks are declarable on API 0.4", () => {
  const all = HOOKS_BY_API["0.4"];
  assert.equal(all.length, 13);
  assert.deepEqual(
    ok(parseManifest(toml({ api: "0.4", contributes: `hooks = ${JSON.stringify(all)}` }), FILE)).contributes.hooks,
    [...all],
  );
});

test("MAN-03: ui surfaces are status, header and footer", () => {
  ok(parseManifest(toml({ contributes: 'ui = ["status", "header", "footer"]' }), FILE));
  errorAt(
    parseManifest(toml({ contributes: 'ui = ["sidebar"]' }), FILE),
    "contributes.ui[0]",
    '"sidebar"',
    "status, header, footer",
  );
});

test("MAN-03: tool_renderers must name declared tools", () => {
  ok(parseManifest(toml({ contributes: 'tools = ["a", "b"]\ntool_renderers = ["b"]' }), FILE));
  const e = errorAt(
    parseManifest(toml({ contributes: 'tools = ["a"]\ntool_renderers = ["b"]' }), FILE),
    "contributes.tool_renderers[0]",
    '"b"',
    "contributes.tools",
  );
  assert.equal(e.rule, "undeclared_tool");
});

// ---- MAN-23: API 0.3 ----

test("MAN-23: api_version 0.3 is refused as manifest_unsupported_api with a clear message", () => {
  const e = errorAt(parseManifest(toml({ api: "0.3" }), FILE), "api_version", UNSUPPORTED_API_03_MESSAGE);
  assert.equal(e.code, "manifest_unsupported_api");
  assert.equal(e.message, `${FILE}: key "api_version": "0.3": canonical API 0.3 wire is not supported by this host`);
});

test("MAN-03: parseManifestDetailed reports the name even when the manifest is invalid", () => {
  const d = parseManifestDetailed(toml({ api: "0.3" }), FILE);
  assert.equal(d.name, "hello-tools");
  assert.equal(d.result.ok, false);
  assert.equal(parseManifestDetailed("name = 'Bad Name'", FILE).name, null);
  assert.equal(parseManifestDetailed("not toml [", FILE).name, null);
});
