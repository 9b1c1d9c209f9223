#!/usr/bin/env node
// Imports flow one way: protocol -> host | sdk | rpi -> cli. The protocol package is pure (no node:*,
// no Buffer, no process) and the SDK depends on the protocol only. Fails with the offending file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const rules = [
  { dir: "packages/protocol/src", banned: [/from\s+["']node:/, /from\s+["']@octet\//, /\bBuffer\b/, /\bprocess\./, /require\(/], why: "the protocol core is pure" },
  { dir: "sdk/typescript/src", banned: [/from\s+["']@octet\/(host|cli)/, /from\s+["']smol-toml/], why: "the SDK depends on @octet/protocol only" },
  { dir: "packages/host/src", banned: [/from\s+["']@octet\/(cli|extension|rpi)/], why: "the host does not import the CLI, the SDK or the rpi runtime" },
  { dir: "packages/rpi/src", banned: [/from\s+["']@octet\/(cli|extension|host)/], why: "the rpi runtime depends on @octet/protocol only; the host takes it as a plug-in" },
];
let bad = 0;
function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith(".ts")) out.push(p);
  }
  return out;
}
for (const rule of rules) {
  for (const file of walk(join(root, rule.dir), [])) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const re of rule.banned) {
        if (re.test(line)) {
          console.error(`${relative(root, file)}:${i + 1}: ${line.trim()}  (${rule.why})`);
          bad++;
        }
      }
    });
  }
}
if (bad > 0) process.exit(1);
console.log("check-boundaries: imports flow one way");
