/**
 * The shell's /new, /fork, /tree and /session tree: pi's session replacement and tree navigation
 * on the agent (Agent.newSession, fork, navigateTree), with the same pi events an extension's
 * ctx.newSession, ctx.fork and ctx.navigateTree bring. An entry is named by its id or a unique
 * prefix of it, as /session tree lists them.
 */
import type { Agent, SessionEntry } from "@octet/agent";
import { paint, terminalSafe } from "./output.js";
import { UsageError } from "./usage-error.js";

/** Characters of an entry's text shown per line of /session tree. */
const PREVIEW_CHARS = 60;

export async function treeCommand(
  head: "new" | "fork" | "tree" | "session" | string,
  rest: string,
  agent: Agent,
  replace: (next: Agent) => void,
): Promise<void> {
  const words = rest.split(/\s+/).filter(Boolean);
  const out = (text: string): void => void process.stdout.write(`${text}\n`);
  switch (head) {
    case "new": {
      const done = await agent.newSession();
      if (done.cancelled) return out(`new session cancelled by extension ${terminalSafe(done.extension)}`);
      replace(done.agent);
      // As pi: the new session's session_start is delivered before anything else happens in it.
      await done.agent.whenStarted();
      return out(`new session ${done.agent.session.id.slice(0, 8)} (${terminalSafe(done.agent.session.path)})`);
    }
    case "fork": {
      if (words.length === 0 || words.length > 2 || (words[1] !== undefined && words[1] !== "at"))
        throw new UsageError("usage: /fork ENTRY_ID [at] (/session tree lists the entry ids)");
      const done = await agent.fork(entryId(agent, words[0]!), words[1] === "at" ? "at" : "before");
      if (done.cancelled) return out(`fork cancelled by extension ${terminalSafe(done.extension)}`);
      replace(done.agent);
      await done.agent.whenStarted();
      out(`forked into session ${done.agent.session.id.slice(0, 8)} (${terminalSafe(done.agent.session.path)})`);
      if (done.selectedText !== undefined)
        out(`${paint("dim", "the prompt forked before:")} ${terminalSafe(done.selectedText)}`);
      return;
    }
    case "tree": {
      if (words.length === 0 || words.length > 2 || (words[1] !== undefined && words[1] !== "summary"))
        throw new UsageError("usage: /tree ENTRY_ID [summary] (/session tree lists the entry ids)");
      const done = await agent.navigateTree(entryId(agent, words[0]!), { summarize: words[1] === "summary" });
      if (done.cancelled) return out("tree navigation cancelled by an extension");
      out(`at entry ${agent.session.leafId() ?? "(the start)"}`);
      if (done.summaryEntry?.type === "branch_summary")
        out(`${paint("dim", "summary of the branch left:")} ${terminalSafe(done.summaryEntry.summary)}`);
      if (done.editorText !== undefined)
        out(`${paint("dim", "the prompt there was:")} ${terminalSafe(done.editorText)}`);
      return;
    }
    default:
      return out(treeText(agent));
  }
}

/** An entry id from an exact id or a unique prefix of one. */
function entryId(agent: Agent, given: string): string {
  if (agent.session.get(given)) return given;
  const matches = agent.session.entries().filter((e) => e.id.startsWith(given));
  if (matches.length === 1) return matches[0]!.id;
  throw new UsageError(
    matches.length === 0
      ? `no entry ${JSON.stringify(given)} in this session (/session tree lists them)`
      : `entry prefix ${JSON.stringify(given)} matches ${matches.length} entries; give more of the id`,
  );
}

/** The session's entries as a tree (children indented under their parent); `*` marks the active path. */
export function treeText(agent: Agent): string {
  const entries = agent.session.entries();
  const active = new Set(agent.session.pathToLeaf().map((e) => e.id));
  const children = new Map<string | null, SessionEntry[]>();
  for (const e of entries) children.set(e.parent_id, [...(children.get(e.parent_id) ?? []), e]);
  const lines: string[] = [];
  const walk = (parent: string | null, depth: number): void => {
    const kids = children.get(parent) ?? [];
    // A straight run stays at one depth; the branches of a fork are indented one step.
    const at = kids.length > 1 ? depth + 1 : depth;
    for (const e of kids) {
      lines.push(`${active.has(e.id) ? "*" : " "} ${"  ".repeat(at)}${e.id}  ${preview(e)}`);
      walk(e.id, at);
    }
  };
  walk(null, 0);
  return lines.length > 0 ? lines.join("\n") : "(no entries yet)";
}

function preview(e: SessionEntry): string {
  let text: string = e.type;
  if (e.type === "message") {
    const c = e.message.content;
    const body =
      typeof c === "string"
        ? c
        : c.map((p) => (p.type === "text" ? p.text : p.type === "toolCall" ? `[${p.name}]` : "")).join(" ");
    text = `${e.message.role}: ${body}`;
  } else if (e.type === "branch_summary") text = `branch summary: ${e.summary}`;
  else if (e.type === "custom_message") text = `${e.entry_type}: ${e.content}`;
  const flat = terminalSafe(text.replace(/\s+/g, " ").trim());
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}...` : flat;
}
