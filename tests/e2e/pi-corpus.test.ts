/**
 * The pi corpus: every example extension pi's coding-agent package ships
 * (node_modules/@mariozechner/pi-coding-agent/examples/extensions/, as shipped, never edited),
 * loaded by path in QuickJS through the real host and rpiRuntime. A case holds when octet does
 * what pi would do -- it loads and registers the tools and commands its source registers -- or
 * refuses it cleanly where the sandbox makes pi's behaviour impossible (a Node module imported).
 * The pass count and a table of the rest are printed; every case that does not hold must be
 * listed with its reason in docs/pi-corpus.md.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { piExtensionId, rpiRuntime } from "@octet/rpi";
import { ROOT } from "./helpers.js";

const CORPUS = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
/** The count reached when this test was written: a regression below it fails. */
const FLOOR = 67;
/** Extensions per host: enough to share one host's start, few enough for a busy 2-core machine. */
const BATCH = 12;

interface Case {
  name: string;
  path: string;
  /** The tool and command names the source registers with a literal name. */
  tools: string[];
  commands: string[];
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

/** Every case of the corpus, with the names its source registers (the entry and its sibling modules). */
async function corpus(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const name of (await readdir(CORPUS)).sort()) {
    const path = join(CORPUS, name);
    const isDir = (await stat(path)).isDirectory();
    if (!isDir && !name.endsWith(".ts")) continue;
    const files = isDir ? (await readdir(path)).filter((f) => f.endsWith(".ts")).map((f) => join(path, f)) : [path];
    const text = (await Promise.all(files.map((f) => readFile(f, "utf8")))).join("\n");
    cases.push({
      name: piExtensionId(path),
      path,
      tools: literalNames(text, /registerTool\(\s*\{[^}]{0,200}?\bname:\s*["'`]([^"'`]+)["'`]/g),
      commands: literalNames(text, /registerCommand\(\s*["'`]([^"'`]+)["'`]/g),
    });
  }
  return cases;
}

/** Why a refused case refused, and whether that refusal is the clean one the sandbox owes. */
function judgeRefusal(error: string): { holds: boolean; what: string; cause: string } {
  const imported = /import "([^"]+)" from \S+: only relative imports/.exec(error);
  if (imported !== null && isBuiltin(imported[1]!))
    return { holds: true, what: `refused: imports the Node module "${imported[1]}"`, cause: "" };
  if (/octet cannot render the pi-tui component/.test(error)) return { holds: true, what: error, cause: "" };
  const global = /octet cannot provide the Node global "(\w+)" \((\S+)\)/.exec(error);
  if (global !== null)
    return { holds: true, what: `refused: uses the Node global "${global[1]}" (${global[2]})`, cause: "" };
  if (imported !== null)
    return {
      holds: false,
      what: `refused: imports the npm package "${imported[1]}" from outside the package`,
      cause: "loading",
    };
  const api = /pi\.(\w+) is not available to QuickJS extensions/.exec(error);
  if (api !== null) return { holds: false, what: `pi.${api[1]} is not available in QuickJS`, cause: "pi API" };
  return { holds: false, what: error.slice(0, 200), cause: "other" };
}

async function runBatch(cases: Case[], dir: string, cacheDir: string): Promise<Outcome[]> {
  const host = await ExtensionHost.start({
    workspace: dir,
    octetHome: join(dir, "home"),
    enable: cases.map((c) => c.name),
    runtimes: [
      rpiRuntime({
        piExtensions: cases.map((c) => c.path),
        piCacheDir: cacheDir,
        // A busy machine starts a dozen QuickJS workers at once: the handshake waits for all loads.
        timeouts: { handshakeMs: 60_000 },
      }),
    ],
    onEvent: () => {},
  });
  try {
    const status = new Map(host.status().map((s) => [s.name, s]));
    return cases.map((c): Outcome => {
      const s = status.get(c.name);
      if (s === undefined) return { ...c, holds: false, what: "not discovered", cause: "loading" };
      if (s.state !== "ready") return { ...c, ...judgeRefusal(s.lastError ?? s.errors.join("; ") ?? s.state) };
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

// One test per batch (each within the runner's per-test limit), then the verdict over all of them.
const cases = await corpus();
const outcomes: Outcome[] = [];
const workDir = await mkdtemp(join(tmpdir(), "octet-pi-corpus-"));
// Shared between runs: an entry is checked against the content hash of every input, so a stale
// one is rebuilt, and a warm cache keeps this file inside its time on a busy machine.
const cacheDir = join(tmpdir(), "octet-pi-corpus-cache");
for (let i = 0; i < cases.length; i += BATCH) {
  const batch = cases.slice(i, i + BATCH);
  const title = `pi corpus: cases ${i + 1}-${i + batch.length} of ${cases.length} load through the host in QuickJS`;
  test(title, async () => {
    const got = await runBatch(batch, workDir, cacheDir);
    assert.deepEqual(
      got.map((o) => o.name),
      batch.map((c) => c.name),
    );
    outcomes.push(...got);
  });
}

test("pi corpus: the shipped pi examples load in QuickJS as pi loads them, or are refused cleanly", async () => {
  await rm(workDir, { recursive: true, force: true });
  assert.ok(cases.length >= 60, `the corpus has ${cases.length} cases; pi 0.73.1 ships over 60`);
  assert.equal(outcomes.length, cases.length, "every batch ran");
  const held = outcomes.filter((o) => o.holds);
  const rest = outcomes.filter((o) => !o.holds);
  console.log(`pi corpus: ${held.length}/${outcomes.length} hold`);
  for (const o of outcomes) console.log(`  ${o.holds ? "holds" : "FAILS"}  ${o.name.padEnd(28)} ${o.what}`);
  const doc = await readFile(join(ROOT, "docs", "pi-corpus.md"), "utf8");
  // A row of the table whose first cell is the case (the formatter pads cells to the column width).
  const listed = (name: string): boolean => doc.split("\n").some((l) => l.split("|")[1]?.trim() === name);
  const undocumented = rest.filter((o) => !listed(o.name)).map((o) => `${o.name} (${o.what})`);
  assert.deepEqual(undocumented, [], "every case that does not hold is listed with its reason in docs/pi-corpus.md");
  assert.ok(
    held.length >= FLOOR,
    `pi corpus: ${held.length}/${outcomes.length} hold, below the floor of ${FLOOR}: ` +
      rest.map((o) => `${o.name}: ${o.what}`).join("; "),
  );
  // A refusal that holds names what the sandbox lacks; a case that holds by loading registered something.
  for (const o of held)
    assert.match(
      o.what,
      /^(loaded: |refused: (imports the Node module|uses the Node global) "[^"]+"|octet cannot render)/,
      o.name,
    );
});
