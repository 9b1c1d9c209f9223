/**
 * The pi corpus, shared by pi-corpus-quickjs.test.ts and pi-corpus-node.test.ts: every example
 * extension pi's coding-agent package ships
 * (node_modules/@mariozechner/pi-coding-agent/examples/extensions/, as shipped, never edited),
 * loaded by path through the real host and rpiRuntime, in QuickJS or in the node runtime. A case
 * holds when octet does what pi would do -- it loads and registers the tools and commands its
 * source registers -- or, in QuickJS only, refuses it cleanly where the sandbox makes pi's
 * behaviour impossible (a Node module imported, the Node global `process` read). In the node
 * runtime there is no sandbox to blame: a Node case must load. The pass count and a table of the
 * rest are printed; every case that does not hold must be listed with its reason in
 * docs/pi-corpus.md.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { builtinModules, isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { type PiExtensionRuntime, piExtensionId, rpiRuntime } from "@octet/rpi";
import { ROOT } from "./helpers.js";

export const CORPUS = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");

interface Case {
  name: string;
  path: string;
  /** The tool and command names the source registers with a literal name. */
  tools: string[];
  commands: string[];
  /** Every tool name it may register: the literal ones and pi's built-ins it wraps (createBashTool -> bash). */
  claims: string[];
  /** Its source imports a Node builtin or reads `process`: what only the node runtime can give it. */
  needsNode: boolean;
}

interface Outcome extends Case {
  holds: boolean;
  /** What happened: the registrations, or the refusal. */
  what: string;
  /** For a case that does not hold: the cause group of the report (pi API, Node, UI, loading). */
  cause: string;
}

const literalNames = (text: string, pattern: RegExp): string[] =>
  [...text.matchAll(pattern)].map((m) => m[1]!).filter((n) => !n.includes("${"));

/** A Node builtin imported by its bare or node: name (what QuickJS cannot give a case). */
const NODE_IMPORT = new RegExp(
  `from\\s+["'](node:[^"']+|${builtinModules.map((m) => m.replace(/[/]/g, "\\/")).join("|")})["']`,
);

/** Every case of the corpus, with the names its source registers (the entry and its sibling modules). */
async function corpus(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const name of (await readdir(CORPUS)).sort()) {
    const path = join(CORPUS, name);
    const isDir = (await stat(path)).isDirectory();
    if (!isDir && !name.endsWith(".ts")) continue;
    const files = isDir ? (await readdir(path)).filter((f) => f.endsWith(".ts")).map((f) => join(path, f)) : [path];
    const text = (await Promise.all(files.map((f) => readFile(f, "utf8")))).join("\n");
    const tools = literalNames(text, /registerTool\(\s*\{[^}]{0,200}?\bname:\s*["'`]([^"'`]+)["'`]/g);
    const wrapped = [...text.matchAll(/\bcreate(\w+)Tool\(/g)].map((m) => m[1]!.toLowerCase());
    cases.push({
      name: piExtensionId(path),
      path,
      tools,
      commands: literalNames(text, /registerCommand\(\s*["'`]([^"'`]+)["'`]/g),
      claims: [...new Set([...tools, ...wrapped])],
      needsNode: NODE_IMPORT.test(text) || /\bprocess\.\w/.test(text),
    });
  }
  return cases;
}

/** Why a refused case refused, and whether that refusal is the clean one the sandbox owes. */
function judgeRefusal(error: string, runtime: PiExtensionRuntime): { holds: boolean; what: string; cause: string } {
  const imported = /import "([^"]+)" from \S+: only relative imports/.exec(error);
  // Only QuickJS lacks Node: the node runtime refusing a Node module would be a failure.
  const sandboxed = runtime === "quickjs";
  if (imported !== null && isBuiltin(imported[1]!))
    return { holds: sandboxed, what: `refused: imports the Node module "${imported[1]}"`, cause: "Node" };
  if (/octet cannot render the pi-tui component/.test(error)) return { holds: true, what: error, cause: "" };
  const global = /octet cannot provide the Node global "(\w+)" \((\S+)\)/.exec(error);
  if (global !== null)
    return { holds: sandboxed, what: `refused: uses the Node global "${global[1]}" (${global[2]})`, cause: "Node" };
  if (imported !== null)
    return {
      holds: false,
      what: `refused: imports the npm package "${imported[1]}" from outside the package`,
      cause: "loading",
    };
  const api = /pi\.(\w+) is not available to (QuickJS|node) extensions/.exec(error);
  if (api !== null) return { holds: false, what: `pi.${api[1]} is not available in ${api[2]}`, cause: "pi API" };
  return { holds: false, what: error.replace(/\s+/g, " ").slice(0, 240), cause: "other" };
}

async function runBatch(cases: Case[], dir: string, cacheDir: string, runtime: PiExtensionRuntime) {
  const host = await ExtensionHost.start({
    workspace: dir,
    octetHome: join(dir, "home"),
    enable: cases.map((c) => c.name),
    runtimes: [
      rpiRuntime({
        piExtensions: cases.map((c) => c.path),
        piRuntime: runtime,
        piCacheDir: cacheDir,
        // A busy machine starts a dozen workers or processes at once: the handshake waits for all loads.
        timeouts: { handshakeMs: 60_000, loadMs: 60_000, initializeMs: 60_000 },
      }),
    ],
    onEvent: () => {},
  });
  try {
    const status = new Map(host.status().map((s) => [s.name, s]));
    return cases.map((c): Outcome => {
      const s = status.get(c.name);
      if (s === undefined) return { ...c, holds: false, what: "not discovered", cause: "loading" };
      if (s.state !== "ready") return { ...c, ...judgeRefusal(s.lastError ?? s.errors.join("; ") ?? s.state, runtime) };
      const missing = [
        ...c.tools.filter((t) => !s.tools.includes(t)).map((t) => `tool ${t}`),
        ...c.commands.filter((n) => !s.commands.includes(n)).map((n) => `command ${n}`),
      ];
      const registered = `tools [${s.tools.join(", ")}], commands [${s.commands.join(", ")}]`;
      const unheard = s.unsupportedHooks.length > 0 ? `; events never delivered: ${s.unsupportedHooks.join(", ")}` : "";
      if (missing.length > 0)
        return { ...c, holds: false, what: `loaded but missing ${missing.join(", ")}`, cause: "pi API" };
      return { ...c, holds: true, what: `loaded: ${registered}${unheard}`, cause: "" };
    });
  } finally {
    await host.shutdown();
  }
}

/**
 * The cases in batches of at most `size`, in order, where no two cases of a batch register a tool
 * of the same name: several examples replace pi's built-in `bash` or `read`, and one host refuses
 * the second provider of a name, which pi, loading one of them, never would.
 */
function batches(cases: Case[], size: number): Case[][] {
  const out: Case[][] = [];
  for (const c of cases) {
    const fits = out.find((b) => b.length < size && !b.some((o) => o.claims.some((t) => c.claims.includes(t))));
    if (fits !== undefined) fits.push(c);
    else out.push([c]);
  }
  return out;
}

/** The rows of docs/pi-corpus.md's table for `runtime`: a row whose first cell is the case and second the runtime. */
async function documented(runtime: PiExtensionRuntime): Promise<Set<string>> {
  const doc = await readFile(join(ROOT, "docs", "pi-corpus.md"), "utf8");
  const names = new Set<string>();
  for (const line of doc.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length > 3 && (cells[2] === runtime || cells[2] === "both")) names.add(cells[1]!);
  }
  return names;
}

/**
 * Declares the corpus tests of one runtime: one test per batch (each within the runner's
 * per-test limit), then the verdict over all of them, which prints `pi corpus: <runtime> N/72 hold`.
 */
export async function corpusTests(
  runtime: PiExtensionRuntime,
  o: {
    floor: number;
    batch: number;
    part?: { index: number; of: number };
    /** Only these cases (the node runtime's default: the ones that need Node). */
    only?: (c: Case) => boolean;
    /** What `only` keeps, for the printed count. */
    onlyWhat?: string;
  },
): Promise<void> {
  const all = (await corpus()).filter((c) => o.only?.(c) ?? true);
  // A part of the corpus (contiguous, in name order), where one file for all of it takes too long.
  const part = o.part ?? { index: 1, of: 1 };
  const size = Math.ceil(all.length / part.of);
  const first = (part.index - 1) * size;
  const cases = all.slice(first, first + size);
  const which =
    part.of === 1
      ? `${runtime}${o.onlyWhat ? ` (${o.onlyWhat})` : ""}`
      : `${runtime}, cases ${first + 1}-${first + cases.length} of ${all.length},`;
  const outcomes: Outcome[] = [];
  const workDir = await mkdtemp(join(tmpdir(), `octet-pi-corpus-${runtime}-`));
  // Shared between runs: an entry is checked against the content hash of every input, so a stale
  // one is rebuilt, and a warm cache keeps the file inside its time on a busy machine.
  const cacheDir = join(tmpdir(), "octet-pi-corpus-cache");
  for (const [i, batch] of batches(cases, o.batch).entries()) {
    const names = `${batch.length} cases, ${batch[0]!.name} .. ${batch.at(-1)!.name}`;
    test(`pi corpus: batch ${i + 1} (${names}) loads through the host in ${runtime}`, async () => {
      const got = await runBatch(batch, workDir, cacheDir, runtime);
      assert.deepEqual(
        got.map((c) => c.name),
        batch.map((c) => c.name),
      );
      outcomes.push(...got);
    });
  }
  const how = runtime === "quickjs" ? "load in QuickJS as pi loads them, or are refused cleanly" : "load in node";
  test(`pi corpus: the shipped pi examples ${how} (${which} floor ${o.floor})`, async () => {
    await rm(workDir, { recursive: true, force: true });
    if (!o.only) assert.ok(all.length >= 60, `the corpus has ${all.length} cases; pi 0.73.1 ships over 60`);
    assert.equal(outcomes.length, cases.length, "every batch ran");
    const held = outcomes.filter((c) => c.holds);
    const rest = outcomes.filter((c) => !c.holds);
    console.log(`pi corpus: ${which} ${held.length}/${outcomes.length} hold`);
    for (const c of outcomes) console.log(`  ${c.holds ? "holds" : "FAILS"}  ${c.name.padEnd(28)} ${c.what}`);
    const listed = await documented(runtime);
    const undocumented = rest.filter((c) => !listed.has(c.name)).map((c) => `${c.name} (${c.what})`);
    assert.deepEqual(undocumented, [], `every ${runtime} case that does not hold is listed in docs/pi-corpus.md`);
    assert.ok(
      held.length >= o.floor,
      `pi corpus: ${which} ${held.length}/${outcomes.length} hold, below the floor of ${o.floor}: ` +
        rest.map((c) => `${c.name}: ${c.what}`).join("; "),
    );
    // A refusal that holds names what the sandbox lacks; a case that holds by loading registered something.
    const held_ =
      runtime === "quickjs"
        ? /^(loaded: |refused: (imports the Node module|uses the Node global) "[^"]+"|octet cannot render)/
        : /^(loaded: |octet cannot render)/;
    for (const c of held) assert.match(c.what, held_, c.name);
  });
}
