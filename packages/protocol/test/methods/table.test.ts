/**
 * The method table (issue 14.1): every method the host, the SDKs and the rpi runtime use is
 * declared, a duplicate is refused, and methodsFor filters by direction, version and feature.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { METHODS, buildMethodTable, methodSpec, methodsFor } from "../../src/methods/index.js";
import { KNOWN_FEATURES } from "../../src/features.js";
import { API_VERSIONS } from "../../src/version.js";

// dist/test/methods -> the repository root.
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
const SCANNED = [
  "packages/host/src",
  "packages/rpi/src",
  "packages/cli/src",
  "sdk/typescript/src",
  "sdk/python/octet_extension",
];
/**
 * Quoted name/name strings that are not wire methods: media types, menu id paths in comments, the
 * API 0.3 bus wire of event_bus.py (PY-53/54), which this host refuses and the table omits, and
 * MCP's own notifications (packages/cli/src/mcp speaks MCP to MCP clients and servers), and the
 * method `octet check` sends because no table declares it (ERR-01: it must be answered -32601).
 */
const NOT_METHODS = new RegExp(
  "^(image|audio|video|text|application)/|^(submenu/item|jev/forget|bus/declare|bus/publish)$|" +
    "^notifications/|^octet_check/",
);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|py)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function methodLiterals(): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of SCANNED) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      for (const m of readFileSync(file, "utf8").matchAll(/["'`](\$\/[A-Za-z]+|[a-z_]+\/[a-z_]+)["'`]/g)) {
        if (!NOT_METHODS.test(m[1]!) && !found.has(m[1]!)) found.set(m[1]!, file.slice(ROOT.length));
      }
    }
  }
  return found;
}

test("issue 14.1: every method string in the host, rpi, CLI and both SDKs is declared in the table", () => {
  const found = methodLiterals();
  assert.ok(found.has("tool/call") && found.has("$/cancelRequest"), "the scan finds the sources");
  const undeclared = [...found].filter(([method]) => !METHODS.has(method)).map(([m, file]) => `${m} (${file})`);
  assert.deepEqual(undeclared, [], "declare each method in packages/protocol/src/methods/");
});

test("issue 14.1: the table declares each name once, refusing a duplicate by name", () => {
  const spec = { method: "x/y", direction: "child->host", kind: "request", apiVersions: ["0.2"] } as const;
  assert.throws(() => buildMethodTable([spec, { ...spec, kind: "notification" }]), /"x\/y" is declared twice/);
  assert.throws(() => buildMethodTable([{ ...spec, apiVersions: [] }]), /"x\/y" names no API version/);
  assert.equal(buildMethodTable([spec]).get("x/y")?.kind, "request");
});

test("issue 14.1: the table is frozen", () => {
  assert.throws(() => (METHODS as Map<string, unknown>).set("a/b", {}), /frozen/);
  assert.throws(() => (METHODS as Map<string, unknown>).delete("tool/call"), /frozen/);
  assert.ok(Object.isFrozen(methodSpec("tool/call")));
  assert.equal(methodSpec("no/such"), undefined);
});

test("issue 14.1: each declaration names a known feature and known API versions", () => {
  for (const spec of METHODS.values()) {
    const known: readonly string[] = KNOWN_FEATURES;
    if (spec.feature !== undefined) assert.ok(known.includes(spec.feature), spec.method);
    for (const v of spec.apiVersions) assert.ok((API_VERSIONS as readonly string[]).includes(v), spec.method);
  }
});

test("issue 14.1: methodsFor filters by direction, API version and negotiated feature", () => {
  const names = (f: Parameters<typeof methodsFor>[0]): string[] => methodsFor(f).map((s) => s.method);
  const v01 = names({ direction: "child->host", apiVersion: "0.1", features: [] });
  assert.deepEqual(v01.sort(), ["confirmation/request", "context/contribution", "notification", "status/contribution"]);
  const cancel = ["request_cancellation"];
  const bare = names({ direction: "child->host", apiVersion: "0.2", features: cancel });
  assert.ok(bare.includes("$/cancelRequest") && bare.includes("input/request") && bare.includes("presentation/update"));
  assert.ok(!bare.includes("artifact/publish") && !bare.includes("$/progress") && !bare.includes("tools/register"));
  const withFeatures = names({ direction: "child->host", apiVersion: "0.4", features: ["artifacts", "dynamic_tools"] });
  assert.ok(withFeatures.includes("artifact/publish"));
  assert.ok(withFeatures.includes("tools/unregister"));
  assert.ok(!withFeatures.includes("$/cancelRequest"), "a feature not in the list leaves its method out");
  const features = ["lifecycle_events", "request_cancellation"];
  const hostToChild = names({ direction: "host->child", apiVersion: "0.2", features });
  for (const m of ["session/started", "menu/collect", "$/cancelRequest"]) assert.ok(hostToChild.includes(m), m);
  assert.ok(!hostToChild.includes("confirmation/request"));
  assert.ok(!names({ apiVersion: "0.1", features: [] }).includes("menu/collect"));
});

test("issue 14.1: declarations point at the existing validators", () => {
  const toolCall = methodSpec("tool/call")?.validateParams;
  assert.equal(toolCall?.({ name: "t", arguments: {} }).ok, false, "context is required");
  const session = methodSpec("session/started")?.validateParams;
  assert.ok(session, "lifecycle events bind the method name into validateLifecycleEvent");
  assert.equal(methodSpec("shutdown")?.validateParams, undefined);
});
