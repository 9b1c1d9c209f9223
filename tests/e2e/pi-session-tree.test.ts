// pi's session replacement and tree navigation with real pi extensions in QuickJS: pi's shipped
// confirm-destructive.ts and todo.ts as they are, and tests/fixtures/pi-tree-probe (ctx.newSession
// with setup and withSession, ctx.fork, ctx.navigateTree, session_before_tree and session_tree),
// embedded as the README's "Embedding the agent" shows: the host's sessionLayer with the agent's
// control (piSessionControl), the scripted model server (real HTTP through pi-ai), and the
// embedder's rpi UI service answering the dialogs a person would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ExtensionHost } from "@octet/host";
import { piExtensionId, rpiRuntime } from "@octet/rpi";
import {
  Agent,
  PI_SESSION_EVENTS,
  SessionFile,
  loadModelsFile,
  messageInjectionService,
  parseModelRef,
  piSessionControl,
  resolveModel,
  sessionControlService,
  sessionEntriesService,
  type SessionEntry,
} from "@octet/agent";
import { ROOT, runCli, waitUntil } from "./helpers.js";

const EXAMPLES = join(ROOT, "node_modules/@mariozechner/pi-coding-agent/examples/extensions");
const PROBE = join(ROOT, "tests/fixtures/pi-tree-probe");

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** An agent over a host running `files` (pi extensions), dialogs answered by `answers`. */
async function setup(files: string[], script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-tree-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const workspace = mkdtempSync(join(tmpdir(), "octet-pi-tree-ws-"));
  let agent: Agent | null = null;
  const replace = (next: Agent): void => void (agent = next);
  const notes: string[] = [];
  const asked: string[] = [];
  const answers = { confirm: false, select: "" };
  const host = await ExtensionHost.start({
    workspace,
    enable: files.map(piExtensionId),
    runtimes: [
      rpiRuntime({
        mode: "rpc",
        piExtensions: files,
        services: {
          // The embedder's dialogs: what a person would answer, recorded.
          ui: async (request) => {
            const title = String(request["title"] ?? request["message"] ?? "");
            if (request.type === "notify") {
              notes.push(String(request["message"]));
              return {};
            }
            asked.push(`${request.type}: ${title}`);
            if (request.type === "confirm") return { confirmed: answers.confirm };
            if (request.type === "select") return { value: answers.select };
            return undefined;
          },
        },
      }),
    ],
    sessionLayer: {
      events: PI_SESSION_EVENTS,
      state: () => agent?.piState() ?? null,
      control: piSessionControl({ agent: () => agent, replace }),
    },
    services: {
      sessionControl: sessionControlService({ agent: () => agent, replace, home }),
      sessionEntries: sessionEntriesService(() => agent),
      messageInjection: messageInjectionService(() => agent),
    },
  });
  for (const s of host.status()) assert.equal(s.state, "ready", `${s.name}: ${s.parkedReason ?? ""}`);
  const model = await resolveModel(parseModelRef("scripted/scripted-model"), {
    modelsFile: loadModelsFile(join(home, "models.json")),
    env: {},
  });
  agent = new Agent({ session: await SessionFile.create({ home, workspace }), model, host, maxRetries: 0 });
  const first = agent;
  return {
    server,
    host,
    notes,
    asked,
    answers,
    first,
    home,
    workspace,
    agent: (): Agent => agent!,
    sessionFiles: () => readdirSync(dirname(first.session.path)).filter((f) => f.endsWith(".jsonl")),
    done: async () => {
      await agent?.close();
      await host.shutdown();
      await server.close();
    },
  };
}

const text = (e: SessionEntry): string =>
  e.type === "message"
    ? typeof e.message.content === "string"
      ? e.message.content
      : e.message.content.map((p) => (p.type === "text" ? p.text : "")).join("")
    : e.type;

test("pi confirm-destructive: a 'no' cancels /new (session_before_switch) and /fork (before_fork)", async () => {
  const t = await setup([join(EXAMPLES, "confirm-destructive.ts"), PROBE], [{ text: "one" }]);
  try {
    await t.agent().prompt("question one");
    const user = t
      .agent()
      .session.pathToLeaf()
      .find((e) => text(e) === "question one")!;
    const cancelled = await t.agent().newSession();
    assert.equal(cancelled.cancelled, true);
    assert.equal(cancelled.cancelled && cancelled.extension, piExtensionId(join(EXAMPLES, "confirm-destructive.ts")));
    assert.ok(t.asked.includes("confirm: Clear session?"), t.asked.join(" | "));
    assert.ok(t.notes.includes("Clear cancelled"));
    const fork = await t.agent().fork(user.id);
    assert.equal(fork.cancelled, true);
    assert.ok(
      t.asked.some((a) => a.startsWith(`select: Fork from entry ${user.id.slice(0, 8)}?`)),
      t.asked.join(" | "),
    );
    assert.ok(t.notes.includes("Fork cancelled"));
    // An extension's own ctx.fork is cancelled the same way, and told so.
    await t.host.runCommand("fork-at", [user.id]);
    await waitUntil(() => t.notes.includes("fork cancelled=true"), 20_000, "the probe's fork answer");
    assert.equal(t.agent(), t.first, "still the first session");
    assert.equal(t.first.closed, false);
    assert.equal(t.sessionFiles().length, 1, "no session file was made");
    // A 'yes' lets the fork happen: the probe's ctx.fork goes through and withSession runs.
    t.answers.select = "Yes, create fork";
    await t.host.runCommand("fork-at", [user.id]);
    await waitUntil(() => t.notes.includes("fork cancelled=false"), 20_000, "the probe's second fork answer");
    assert.ok(t.notes.includes(`forked ${user.id}`), t.notes.join(" | "));
    assert.equal(t.first.closed, true);
    assert.equal(t.sessionFiles().length, 2);
    assert.ok(t.notes.includes(`shutdown fork ${t.agent().session.path}`), t.notes.join(" | "));
    assert.ok(t.notes.includes(`start fork ${t.first.session.path} 1`), "the new session starts with the copied path");
  } finally {
    await t.done();
  }
});

test("pi ctx.newSession: setup writes, parentSession, shutdown/start (reason new), withSession's kickoff", async () => {
  const t = await setup([PROBE], [{ text: "one" }, { match: "KICKOFF", text: "kicked off" }]);
  try {
    await t.agent().prompt("question one");
    const old = t.first.session.path;
    await t.host.runCommand("handoff-lite");
    await waitUntil(() => t.notes.some((n) => n.startsWith("handoff cancelled=false")), 20_000, "the handoff's answer");
    const next = t.agent();
    assert.notEqual(next, t.first);
    assert.ok(t.notes.includes(`shutdown new ${next.session.path}`), t.notes.join(" | "));
    assert.ok(t.notes.includes(`start new ${old} 1`), "session_start sees the setup entry");
    assert.ok(t.notes.includes(`with ${next.session.path} 1`), "withSession's ctx reads the new session");
    assert.ok(t.notes.includes(`handoff cancelled=false old ctx reads ${next.session.path}`));
    await waitUntil(
      () => next.session.pathToLeaf().some((e) => text(e) === "kicked off"),
      20_000,
      "the kickoff's answer",
    );
    const lines = readFileSync(next.session.path, "utf8").split("\n").filter(Boolean);
    assert.equal((JSON.parse(lines[0]!) as { parent_session?: string }).parent_session, old);
    assert.deepEqual(next.session.pathToLeaf().map(text), [
      "CARRIED CONTEXT",
      "KICKOFF in the new session",
      "kicked off",
    ]);
    const request = JSON.stringify(t.server.requests.at(-1));
    assert.match(request, /CARRIED CONTEXT/);
    assert.doesNotMatch(request, /question one/, "the old history stays in the old session");
  } finally {
    await t.done();
  }
});

test("pi ctx.switchSession: confirm-destructive's 'no' is {cancelled: true}; a 'yes' runs withSession", async () => {
  const t = await setup([join(EXAMPLES, "confirm-destructive.ts"), PROBE], [{ text: "one" }]);
  try {
    await t.agent().prompt("question one");
    const other = await SessionFile.create({ home: t.home, workspace: t.workspace });
    const target = other.path;
    await other.close();
    await t.host.runCommand("switch-to", [target]);
    await waitUntil(() => t.notes.includes("switch cancelled=true"), 20_000, "the cancelled switch's answer");
    assert.ok(t.asked.includes("confirm: Switch session?"), t.asked.join(" | "));
    assert.equal(t.agent(), t.first, "still the first session");
    t.answers.confirm = true;
    await t.host.runCommand("switch-to", [target]);
    await waitUntil(() => t.notes.includes("switch cancelled=false"), 20_000, "the switch's answer");
    assert.equal(t.agent().session.path, target);
    assert.ok(t.notes.includes(`switched with ${target}`), t.notes.join(" | "));
    assert.equal(t.first.closed, true);
  } finally {
    await t.done();
  }
});

test("pi ctx.navigateTree: session_before_tree gives the summary, session_tree follows, the label lands", async () => {
  const t = await setup([PROBE], [{ text: "one" }, { text: "two" }]);
  try {
    await t.agent().prompt("question one");
    await t.agent().prompt("question two");
    const session = t.agent().session;
    const oldLeaf = session.leafId()!;
    const answer = session.pathToLeaf().find((e) => text(e) === "one")!;
    await t.host.runCommand("nav", [answer.id]);
    await waitUntil(() => t.notes.some((n) => n.startsWith("nav cancelled=false")), 20_000, "the navigation's answer");
    const summary = session.pathToLeaf().at(-2)!;
    assert.equal(summary.type, "branch_summary");
    assert.equal(summary.type === "branch_summary" && summary.summary, "PROBE SUMMARY of 2 entries");
    assert.equal(summary.type === "branch_summary" && summary.from_extension, true);
    assert.equal(summary.parent_id, answer.id);
    assert.equal(session.labels().get(summary.id), "probe-label");
    // As pi: the label is appended before session_tree, so the new leaf is the label's entry.
    assert.equal(session.leafId(), session.pathToLeaf().at(-1)!.id);
    assert.equal(session.pathToLeaf().at(-1)!.type, "label");
    assert.ok(t.notes.includes(`tree ${session.leafId()} ${oldLeaf} branch_summary true`), t.notes.join(" | "));
    assert.ok(t.notes.includes(`nav cancelled=false leaf ${session.leafId()}`), "the old ctx reads the moved leaf");
    assert.equal(t.server.requests.length, 2, "the extension's summary: the model was not asked");
  } finally {
    await t.done();
  }
});

test("pi example todo: after /tree back, session_tree rebuilds the list from the branch", async () => {
  const t = await setup(
    [join(EXAMPLES, "todo.ts")],
    [
      { tool_calls: [{ name: "todo", arguments: { action: "add", text: "first task" } }] },
      { text: "added first" },
      { tool_calls: [{ name: "todo", arguments: { action: "add", text: "second task" } }] },
      { text: "added second" },
      { tool_calls: [{ name: "todo", arguments: { action: "list" } }] },
      { text: "listed" },
    ],
  );
  try {
    await t.agent().prompt("add the first");
    const back = t.agent().session.leafId()!;
    await t.agent().prompt("add the second");
    await t.agent().navigateTree(back);
    await t.agent().prompt("list them");
    const results = t
      .agent()
      .session.pathToLeaf()
      .flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [text(e)] : []));
    assert.equal(results.length, 2, results.join(" | "));
    assert.match(results[1]!, /first task/);
    assert.doesNotMatch(results[1]!, /second task/, "the abandoned branch's todo is gone from the list");
  } finally {
    await t.done();
  }
});

test("the shell's /fork, /tree, /session tree and /new, with a pi extension told of each (over a pipe)", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({
    script: [{ text: "one" }, { text: "two" }, { text: "three" }],
  })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-tree-cli-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const workspace = mkdtempSync(join(tmpdir(), "octet-pi-tree-cli-ws-"));
  const octet = (args: string[], input?: string) =>
    runCli(["--model", "scripted/scripted-model", "--workspace", workspace, "--pi-extension", PROBE, ...args], {
      env: { OCTET_HOME: home },
      timeoutMs: 60_000,
      ...(input !== undefined ? { input } : {}),
    });
  const dir = (): string => join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
  const read = (file: string): Record<string, unknown>[] =>
    readFileSync(join(dir(), file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  try {
    const first = await octet(["run", "question one"]);
    assert.equal(first.code, 0, first.stderr);
    const [a] = readdirSync(dir());
    const answer = read(a!).find((e) => JSON.stringify(e["message"] ?? "").includes('"one"'))!;
    const id = String(answer["id"]);
    const r = await octet(
      ["--continue"],
      `/fork ${id} at\nquestion two\n/tree ${id.slice(0, 6)}\nquestion three\n/session tree\n/new\n/quit\n`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /forked into session/);
    assert.match(r.stdout, new RegExp(`at entry ${id}`));
    assert.match(r.stdout, /new session [0-9a-f]{8}/);
    assert.match(r.stderr, /start fork .*\.jsonl 2/, "the probe's session_start of the fork");
    assert.match(r.stderr, /tree [0-9a-f]{12} [0-9a-f]{12} - undefined/, "session_tree of /tree");
    assert.match(r.stderr, /shutdown new /);
    const files = readdirSync(dir()).filter((f) => f.endsWith(".jsonl"));
    assert.equal(files.length, 3, files.join(", "));
    const forked = files.map((f) => read(f)).find((l) => l[0]!["parent_session"] === join(dir(), a!))!;
    const children = forked.filter((e) => e["parent_id"] === id).map((e) => JSON.stringify(e["message"]));
    assert.equal(children.length, 2, "two branches from the answer: the forked path, then /tree");
    assert.match(children[0]!, /question two/);
    assert.match(children[1]!, /question three/);
    // /session tree shows both branches, the active one marked.
    assert.match(r.stdout, /\* +[0-9a-f]{12} {2}user: question three/);
    assert.match(r.stdout, / {3,}[0-9a-f]{12} {2}user: question two/);
  } finally {
    await server.close();
  }
});

test("pi dirty-repo-guard (node): the shell's /new and /fork are cancelled while the repo is dirty", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script: [{ text: "one" }] })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-tree-guard-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const workspace = mkdtempSync(join(tmpdir(), "octet-pi-tree-guard-ws-"));
  const git = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: workspace });
  git("init", "-q");
  writeFileSync(join(workspace, "a.txt"), "a\n");
  git("add", "a.txt");
  git("commit", "-qm", "first");
  writeFileSync(join(workspace, "a.txt"), "changed\n");
  const guard = join(EXAMPLES, "dirty-repo-guard.ts");
  try {
    const args = ["--model", "scripted/scripted-model", "--workspace", workspace, "--pi-extension", guard];
    const r = await runCli([...args, "--pi-runtime", "node"], {
      env: { OCTET_HOME: home },
      timeoutMs: 90_000,
      input: "question one\n/new\n/session tree\n/quit\n",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /new session cancelled by extension dirty-repo-guard/);
    const entry = /\* ([0-9a-f]{12}) {2}user: question one/.exec(r.stdout)?.[1];
    assert.ok(entry, r.stdout);
    const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith(".jsonl")).length, 1, "no session was made");
    // Committed: the guard lets /fork through.
    git("commit", "-qam", "second");
    const again = await runCli([...args, "--pi-runtime", "node", "--continue"], {
      env: { OCTET_HOME: home },
      timeoutMs: 90_000,
      input: `/fork ${entry}\n/quit\n`,
    });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /forked into session/);
    assert.match(again.stdout, /the prompt forked before: question one/);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith(".jsonl")).length, 2);
  } finally {
    await server.close();
  }
});
