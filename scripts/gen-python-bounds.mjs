#!/usr/bin/env node
// Generates sdk/python/octet_extension/_bounds.py from the compiled bounds of the protocol package
// (packages/protocol/dist/src/bounds.js), so the Python SDK's limits are the TypeScript ones by
// construction (DESIGN.md: bounds are named once). Run after `npm run build`:
//   node scripts/gen-python-bounds.mjs          write the module
//   node scripts/gen-python-bounds.mjs --check  exit 1 when the module differs (drift), write nothing
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const compiled = join(root, "packages", "protocol", "dist", "src", "bounds.js");
const target = join(root, "sdk", "python", "octet_extension", "_bounds.py");

if (!existsSync(compiled)) {
  console.error(`gen-python-bounds: ${compiled} is missing; run \`npm run build\` first`);
  process.exit(2);
}
const bounds = await import(pathToFileURL(compiled).href);
const names = Object.keys(bounds).sort();
const lines = [
  '"""Every numeric limit of the octet wire, GENERATED from packages/protocol/src/bounds.ts.',
  "",
  "Do not edit: run `node scripts/gen-python-bounds.mjs` after `npm run build`. A test",
  "(tests/e2e/python-sdk.test.ts) fails when this file and the TypeScript bounds drift apart.",
  '"""',
  "",
];
for (const name of names) {
  const value = bounds[name];
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    console.error(
      `gen-python-bounds: ${name} is ${String(value)}, not a safe integer; the generator handles integers only`,
    );
    process.exit(2);
  }
  lines.push(`${name} = ${value}`);
}
const text = lines.join("\n") + "\n";

if (process.argv.includes("--check")) {
  const current = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (current !== text) {
    console.error(
      `gen-python-bounds: ${target} is out of date with packages/protocol/src/bounds.ts; run node ` +
        `scripts/gen-python-bounds.mjs`,
    );
    process.exit(1);
  }
  console.log(`gen-python-bounds: ${names.length} bounds match`);
} else {
  writeFileSync(target, text);
  console.log(`gen-python-bounds: wrote ${names.length} bounds to ${target}`);
}
