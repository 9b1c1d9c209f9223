#!/usr/bin/env node
// Generates sdk/python/octet_extension/_methods.py from the compiled method table of the protocol
// package (packages/protocol/dist/src/methods), with the hook names and API versions, so the
// Python SDK routes by the same declarations as the host and the TypeScript SDK (issue 14.1).
// Validators are TypeScript code and are not exported. Run after `npm run build`:
//   node scripts/gen-python-methods.mjs          write the module
//   node scripts/gen-python-methods.mjs --check  exit 1 when the module differs (drift), write nothing
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const compiled = join(root, "packages", "protocol", "dist", "src", "index.js");
const target = join(root, "sdk", "python", "octet_extension", "_methods.py");

if (!existsSync(compiled)) {
  console.error(`gen-python-methods: ${compiled} is missing; run \`npm run build\` first`);
  process.exit(2);
}
const protocol = await import(pathToFileURL(compiled).href);

/** A Python literal of a string, a tuple of strings, or None. JSON strings are valid Python strings. */
const str = (s) => JSON.stringify(s);
const tuple = (items) => `(${items.map(str).join(", ")}${items.length === 1 ? "," : ""})`;
// The generated file keeps the repository's 120-character line limit (scripts/check-line-length.mjs):
// a tuple or a call that would not fit is written one item per line instead.
const MAX_LINE = 120;
const assignTuple = (name, items) => {
  const line = `${name} = ${tuple(items)}`;
  return line.length <= MAX_LINE ? [line] : [`${name} = (`, ...items.map((i) => `    ${str(i)},`), ")"];
};
const methodEntry = (key, fields) => {
  const line = `        ${fields.join(", ")}),`;
  return line.length <= MAX_LINE
    ? [`    ${key}: MethodSpec(`, line]
    : [`    ${key}: MethodSpec(`, ...fields.map((f) => `        ${f},`), "    ),"];
};

const lines = [
  '"""The wire methods of octet, GENERATED from packages/protocol/src/methods/ (issue 14.1).',
  "",
  "Do not edit: run `node scripts/gen-python-methods.mjs` after `npm run build`. A test",
  "(tests/e2e/python-methods.test.ts) fails when this file and the TypeScript table drift apart.",
  "Each method: who sends it, whether it is answered, the negotiated feature that must be on",
  "for it to be legal (None for core methods), and the API versions that carry it.",
  '"""',
  "from typing import NamedTuple, Optional, Tuple",
  "",
  "",
  "class MethodSpec(NamedTuple):",
  "    method: str",
  '    direction: str  # "host->child", "child->host" or "both"',
  '    kind: str  # "request" or "notification"',
  "    feature: Optional[str]",
  "    api_versions: Tuple[str, ...]",
  "",
  "",
  ...assignTuple("API_VERSIONS", protocol.API_VERSIONS),
  ...assignTuple("HOOK_NAMES", protocol.HOOK_NAMES),
  ...assignTuple("ADVISORY_HOOKS", protocol.ADVISORY_HOOKS),
  ...assignTuple("TURN_HOOKS", protocol.TURN_HOOKS),
  ...assignTuple("COMPACTION_HOOKS", protocol.COMPACTION_HOOKS),
  "",
  "METHODS = {",
];
for (const spec of protocol.METHODS.values()) {
  const feature = spec.feature === undefined ? "None" : str(spec.feature);
  const fields = [str(spec.method), str(spec.direction), str(spec.kind), feature, tuple(spec.apiVersions)];
  lines.push(...methodEntry(str(spec.method), fields));
}
lines.push("}");
const text = lines.join("\n") + "\n";

if (process.argv.includes("--check")) {
  const current = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (current !== text) {
    const fix = "run node scripts/gen-python-methods.mjs";
    console.error(`gen-python-methods: ${target} is out of date with packages/protocol/src/methods; ${fix}`);
    process.exit(1);
  }
  console.log(`gen-python-methods: ${protocol.METHODS.size} methods match`);
} else {
  writeFileSync(target, text);
  console.log(`gen-python-methods: wrote ${protocol.METHODS.size} methods to ${target}`);
}
