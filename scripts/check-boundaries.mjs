#!/usr/bin/env node
// Imports flow one way: protocol -> host | sdk | rpi -> cli. The protocol package is pure (no node:*,
// no Buffer, no process) and the SDK depends on the protocol only. And no package imports itself
// in a circle: a cycle makes load order decide what a module sees, and welds its files together.
//
// Each file is parsed with the TypeScript compiler (not matched line by line), so a comment or a
// string never counts and a multi-line, `export ... from` or dynamic `import("...")` always does.
// Fails (exit 1) naming the file and line of each broken rule, and each cycle as a chain of files.
//
//   node scripts/check-boundaries.mjs [--root DIR] [--allowed-cycles FILE]
// DIR: a tree laid out like this repository; FILE: a JSON array of cycles (arrays of files) that
// replaces ALLOWED_CYCLES below. checkBoundaries() is the same check for the checker's own tests.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const PACKAGES = [
  "packages/protocol/src",
  "sdk/typescript/src",
  "sdk/typescript/testing",
  "packages/host/src",
  "packages/rpi/src",
  "packages/agent/src",
  "packages/cli/src",
];
const rules = [
  { dir: "packages/protocol/src", imports: [/^node:/, /^@octet\//], pure: true, why: "the protocol core is pure" },
  {
    dir: "sdk/typescript/src",
    imports: [/^@octet\/(host|cli)(\/|$)/, /^smol-toml(\/|$)/],
    why: "the SDK depends on @octet/protocol only",
  },
  {
    // @octet/extension/testing: a separate entry that runs the author's extension under the host.
    dir: "sdk/typescript/testing",
    imports: [/^@octet\/(cli|agent)(\/|$)/],
    why: "the SDK's test harness sits on the host (and rpi), never on the CLI or the agent",
  },
  {
    dir: "packages/host/src",
    imports: [/^@octet\/(cli|extension|rpi|agent)(\/|$)/],
    why: "the host imports no CLI, SDK, rpi runtime or agent",
  },
  {
    dir: "packages/rpi/src",
    imports: [/^@octet\/(cli|extension|host)(\/|$)/],
    why: "the rpi runtime depends on @octet/protocol only; the host takes it as a plug-in",
  },
  {
    dir: "packages/agent/src",
    imports: [/^@octet\/(cli|extension|rpi)(\/|$)/],
    why: "the agent sits on the host; the CLI and the runtimes plug into it, not the reverse",
  },
];

// Cycles tolerated as warnings: each entry is the set of files of one cycle; a cycle whose files
// all lie inside one entry only warns, anything else fails. Empty: the package graphs are acyclic
// (issue 14.5). The mechanism stays for the checker's tests and for a cycle being broken in steps.
export const ALLOWED_CYCLES = [];

/** Every .ts file under dir (no declaration files), sorted so the output is stable. */
function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|tsx|mts)$/.test(name) && !/\.d\.(ts|mts)$/.test(name)) out.push(p);
  }
  return out;
}

/**
 * What one file imports (module specifier, line, type-only or not) and, for the purity rule,
 * where it uses Buffer, process or require.
 */
function scan(file) {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports = [];
  const impure = [];
  const line = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const add = (spec, node) => {
    if (spec && ts.isStringLiteralLike(spec)) imports.push({ specifier: spec.text, line: line(node) });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, node);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], node);
      else if (ts.isIdentifier(callee) && callee.text === "require") {
        add(node.arguments[0], node);
        impure.push({ what: "require(...)", line: line(node) });
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, node);
    if (ts.isIdentifier(node) && node.text === "Buffer" && !isMemberName(node))
      impure.push({ what: "Buffer", line: line(node) });
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "process") {
      impure.push({ what: `process.${node.name.text}`, line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { imports, impure };
}

/** `x.Buffer`, `{ Buffer: 1 }` or a type's `{ Buffer: T }` names a member, not the global. */
function isMemberName(node) {
  const p = node.parent;
  return (
    (ts.isPropertyAccessExpression(p) && p.name === node) ||
    (ts.isPropertyAssignment(p) && p.name === node) ||
    (ts.isPropertySignature(p) && p.name === node)
  );
}

/** The .ts file a relative specifier names ("./a.js" is written for "./a.ts"), or null. */
function resolveRelative(from, specifier) {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan. */
function cycleGroups(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const connect = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? new Set()).has(v)) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return groups;
}

/** One shortest chain from the group's first file back to itself, inside the group. */
function chainOf(group, graph) {
  const inGroup = new Set(group);
  const start = group[0];
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let at = v; at !== start; at = previous.get(at)) path.unshift(at);
        return [start, ...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return group;
}

/**
 * The problems (layer rules broken, cycles not allowed) and warnings (allowed cycles) of the tree
 * at `root`, as the lines the command prints. `allowedCycles`: arrays of root-relative files.
 */
export function checkBoundaries(root, allowedCycles = ALLOWED_CYCLES) {
  const problems = [];
  const warnings = [];
  const rel = (f) => relative(root, f);
  for (const dir of PACKAGES) {
    const rule = rules.find((r) => r.dir === dir);
    const graph = new Map();
    for (const file of walk(join(root, dir))) {
      const { imports, impure } = scan(file);
      const edges = new Set();
      for (const { specifier, line } of imports) {
        if (rule?.imports.some((re) => re.test(specifier)))
          problems.push(`${rel(file)}:${line}: imports "${specifier}"  (${rule.why})`);
        const target = resolveRelative(file, specifier);
        if (target !== null) edges.add(target);
      }
      if (rule?.pure)
        for (const { what, line } of impure) problems.push(`${rel(file)}:${line}: uses ${what}  (${rule.why})`);
      graph.set(file, edges);
    }
    for (const group of cycleGroups(graph)) {
      const names = group.map(rel);
      const chain = chainOf(group, graph);
      const all = group.length > chain.length - 1 ? ` (${group.length} files in all: ${names.join(", ")})` : "";
      const text = `${chain.map(rel).join(" -> ")}${all}`;
      if (allowedCycles.some((entry) => names.every((n) => entry.includes(n))))
        warnings.push(`import cycle (allowed for now): ${text}`);
      else problems.push(`import cycle in ${dir}: ${text}`);
    }
  }
  return { problems, warnings };
}

function main(argv) {
  const option = (name) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const root = resolve(option("--root") ?? fileURLToPath(new URL("..", import.meta.url)));
  const allowedFile = option("--allowed-cycles");
  const allowed = allowedFile === undefined ? ALLOWED_CYCLES : JSON.parse(readFileSync(allowedFile, "utf8"));
  const { problems, warnings } = checkBoundaries(root, allowed);
  for (const p of problems) console.error(p);
  for (const w of warnings) console.warn(`check-boundaries: warning: ${w}`);
  if (problems.length > 0) {
    console.error(`check-boundaries: ${problems.length} problem(s)`);
    process.exit(1);
  }
  const allowedNote = warnings.length > 0 ? ` other than the ${warnings.length} allowed for now (warnings above)` : "";
  console.log(`check-boundaries: imports flow one way; no import cycles${allowedNote}`);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2));
