/**
 * pi's session replacement and tree navigation on the agent (pi's /new, /fork and /tree, and an
 * extension's ctx.newSession, ctx.fork and ctx.navigateTree), with pi's events:
 *
 * - newSession: session_before_switch {reason: "new"} may cancel; a new session file beside the
 *   current one (its header naming `parentSession` when given, the `entries` a pi setup callback
 *   wrote already in it), then the current one closes (session_shutdown {reason: "new",
 *   targetSessionFile}) and the agent over the new one sends session_start {reason: "new",
 *   previousSessionFile}.
 * - fork: session_before_fork {entryId, position} may cancel; a new session file holding the
 *   active path through the entry ("at") or up to before the selected user message ("before",
 *   whose text pi restores to the editor), labels of that path re-applied after it, as pi's
 *   createBranchedSession; then shutdown and start with reason "fork".
 * - navigateTree: the leaf moves within the same file. With `summarize`, the abandoned branch (old
 *   leaf back to the common ancestor) is summarized by the compaction summarizer into a
 *   branch_summary entry at the new position; session_before_tree {preparation} may cancel or give
 *   the summary; session_tree {newLeafId, oldLeafId, summaryEntry, fromExtension} follows.
 *
 * Only when idle, as a switch. Entry ids are kept in a fork (a compaction's first_kept and the
 * labels still point at them).
 */
import { AgentError } from "../agent-error.js";
import type { JsonValue, SessionEntry } from "../session/index.js";
import { SessionFile } from "../session/index.js";
import type { ResolvedModel } from "../models/index.js";
import { summarizeEntries } from "./compaction.js";
import { piEntry } from "./pi-entries.js";
import type { PiEvents } from "./pi-events.js";

/** What the operations need of the agent; `A` is the agent type (no import of agent.ts here). */
export interface TreeDeps<A> {
  session: SessionFile;
  pi: PiEvents;
  model: ResolvedModel;
  maxRetries: number | undefined;
  idle(): boolean;
  /** Closes this agent for `next` (session_shutdown) and returns the agent over it (session_start). */
  replace(next: SessionFile, reason: "resume" | "new" | "fork"): Promise<A>;
  /** Runs `work` as the agent's one operation of the moment (busy meanwhile; abort() cancels it). */
  busy<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

export type Replacement<A> = { cancelled: true; extension: string } | { cancelled: false; agent: A };

export interface NewSessionOptions {
  /** Recorded in the new session's header (pi's parentSession). */
  parentSession?: string;
  /** A root-to-leaf path written into the new session before it starts (pi's setup writes). */
  entries?: readonly SessionEntry[];
}

export interface NavigateOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface NavigateResult {
  cancelled: boolean;
  /** The text of the user message navigated to (pi puts it in the editor). */
  editorText?: string;
  summaryEntry?: SessionEntry;
}

function idleOrThrow(d: { idle(): boolean }, what: string): void {
  if (!d.idle()) throw new AgentError("busy", `${what} cannot run while a prompt runs`);
}

/** The root-to-`id` path of `session` (parent links). */
function pathTo(session: SessionFile, id: string | null): SessionEntry[] {
  const out: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let at = id; at !== null && !seen.has(at); ) {
    seen.add(at);
    const e = session.get(at);
    if (e === undefined) break;
    out.push(e);
    at = e.parent_id;
  }
  return out.reverse();
}

function userText(e: SessionEntry): string | null {
  if (e.type === "custom_message") return e.content;
  if (e.type !== "message" || e.message.role !== "user") return null;
  const c = e.message.content;
  return typeof c === "string" ? c : c.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}

/**
 * session/switch (W 2.21b): pi's session_before_switch {reason: "resume"} may cancel, and then the
 * target (opened and locked by the caller) is let go (AgentError cancelled_by_extension).
 */
export async function switchTo<A>(d: TreeDeps<A>, session: SessionFile): Promise<A> {
  if (!d.idle()) throw new AgentError("busy", "the session cannot be switched while a prompt runs");
  const before = d.pi.takes("session_before_switch")
    ? await d.pi.sessionBefore("session_before_switch", { reason: "resume", targetSessionFile: session.path })
    : null;
  if (before?.["cancel"] === true) {
    await session.close();
    throw new AgentError(
      "cancelled_by_extension",
      `the switch to session ${session.id} was cancelled by extension ${before.extension}`,
    );
  }
  return d.replace(session, "resume");
}

export async function newSession<A>(d: TreeDeps<A>, o: NewSessionOptions = {}): Promise<Replacement<A>> {
  idleOrThrow(d, "a new session");
  const before = d.pi.takes("session_before_switch")
    ? await d.pi.sessionBefore("session_before_switch", { reason: "new" })
    : null;
  if (before?.["cancel"] === true) return { cancelled: true, extension: before.extension };
  idleOrThrow(d, "a new session");
  const entries = o.entries ?? [];
  checkChain(entries);
  const next = await SessionFile.createSibling(d.session, {
    ...(o.parentSession !== undefined ? { parentSession: o.parentSession } : {}),
    entries,
  });
  return { cancelled: false, agent: await d.replace(next, "new") };
}

export async function fork<A>(
  d: TreeDeps<A>,
  entryId: string,
  position: "before" | "at" = "before",
): Promise<Replacement<A> & { selectedText?: string }> {
  idleOrThrow(d, "a fork");
  const selected = d.session.get(entryId);
  if (selected === undefined)
    throw new AgentError("unknown_entry", `cannot fork from ${JSON.stringify(entryId)}: no such entry in this session`);
  let leaf: string | null = selected.id;
  let selectedText: string | undefined;
  if (position === "before") {
    const text = selected.type === "message" ? userText(selected) : null;
    if (text === null)
      throw new AgentError(
        "invalid_entry",
        `cannot fork before entry ${entryId}: it is a ${selected.type} entry, not a user message ` +
          '(position "at" copies the path through any entry)',
      );
    leaf = selected.parent_id;
    selectedText = text;
  }
  const before = d.pi.takes("session_before_fork")
    ? await d.pi.sessionBefore("session_before_fork", { entryId, position })
    : null;
  if (before?.["cancel"] === true) return { cancelled: true, extension: before.extension };
  idleOrThrow(d, "a fork");
  const path = pathTo(d.session, leaf).filter((e) => e.type !== "label");
  const next = await SessionFile.createSibling(d.session, { parentSession: d.session.path, entries: path });
  try {
    const kept = new Set(path.map((e) => e.id));
    for (const [target, label] of d.session.labels())
      if (kept.has(target)) await next.append({ type: "label", target_id: target, label });
  } catch (err) {
    await next.close();
    throw err;
  }
  const agent = await d.replace(next, "fork");
  return { cancelled: false, agent, ...(selectedText !== undefined ? { selectedText } : {}) };
}

export async function navigateTree<A>(
  d: TreeDeps<A>,
  targetId: string,
  o: NavigateOptions = {},
): Promise<NavigateResult> {
  return d.busy("navigate the session tree", async (signal) => {
    const session = d.session;
    const oldLeafId = session.leafId();
    if (targetId === oldLeafId) return { cancelled: false };
    const target = session.get(targetId);
    if (target === undefined)
      throw new AgentError("unknown_entry", `cannot navigate to ${JSON.stringify(targetId)}: no such entry`);
    // The abandoned branch: from the old leaf back to the deepest entry both paths share.
    const targetPath = new Set(pathTo(session, targetId).map((e) => e.id));
    const oldPath = pathTo(session, oldLeafId);
    let common = -1;
    for (let i = oldPath.length - 1; i >= 0 && common < 0; i--) if (targetPath.has(oldPath[i]!.id)) common = i;
    const abandoned = oldPath.slice(common + 1);
    let instructions = o.customInstructions;
    let replace = o.replaceInstructions;
    let label = o.label;
    let given: { summary: string; details?: unknown } | null = null;
    if (d.pi.takes("session_before_tree")) {
      const preparation = {
        targetId,
        oldLeafId,
        commonAncestorId: common >= 0 ? oldPath[common]!.id : null,
        entriesToSummarize: abandoned.map(piEntry),
        userWantsSummary: o.summarize === true,
        ...(instructions !== undefined ? { customInstructions: instructions } : {}),
        ...(replace !== undefined ? { replaceInstructions: replace } : {}),
        ...(label !== undefined ? { label } : {}),
      };
      const answer = await d.pi.sessionBefore("session_before_tree", { preparation }, signal);
      if (answer?.["cancel"] === true) return { cancelled: true };
      const s = answer?.["summary"] as { summary?: unknown; details?: unknown } | undefined;
      if (o.summarize === true && typeof s?.summary === "string" && s.summary.trim() !== "")
        given = { summary: s.summary, ...(s.details !== undefined ? { details: s.details } : {}) };
      if (typeof answer?.["customInstructions"] === "string") instructions = answer["customInstructions"];
      if (typeof answer?.["replaceInstructions"] === "boolean") replace = answer["replaceInstructions"];
      if (typeof answer?.["label"] === "string") label = answer["label"];
    }
    let summary = given;
    if (summary === null && o.summarize === true && abandoned.length > 0) {
      const made = await summarizeEntries({
        entries: abandoned,
        model: d.model,
        signal,
        ...(d.maxRetries !== undefined ? { maxRetries: d.maxRetries } : {}),
        ...(instructions !== undefined ? { instructions } : {}),
        ...(replace !== undefined ? { replace } : {}),
      });
      summary = { summary: made.summary };
    }
    // A user message (or an extension's) is re-asked from its parent, its text back in the editor.
    const text = userText(target);
    const newLeaf = text !== null ? target.parent_id : target.id;
    session.branch(newLeaf);
    let summaryEntry: SessionEntry | undefined;
    if (summary !== null) {
      summaryEntry = await session.append({
        type: "branch_summary",
        from_id: newLeaf ?? "root",
        summary: summary.summary,
        // Plain JSON only, as a compaction's details.
        ...(summary.details !== undefined ? { details: JSON.parse(JSON.stringify(summary.details)) as JsonValue } : {}),
        ...(given !== null ? { from_extension: true } : {}),
      });
    }
    if (label !== undefined && label !== "")
      await session.append({ type: "label", target_id: summaryEntry?.id ?? targetId, label });
    if (d.pi.takes("session_tree"))
      await d.pi.observe("session_tree", {
        newLeafId: session.leafId(),
        oldLeafId,
        ...(summaryEntry ? { summaryEntry: piEntry(summaryEntry), fromExtension: given !== null } : {}),
      });
    return {
      cancelled: false,
      ...(text !== null ? { editorText: text } : {}),
      ...(summaryEntry ? { summaryEntry } : {}),
    };
  });
}

/** Entries given for a new session must form one path (pi's setup writes, in order). */
function checkChain(entries: readonly SessionEntry[]): void {
  let parent: string | null = null;
  const ids = new Set<string>();
  for (const e of entries) {
    if (e.parent_id !== parent || ids.has(e.id))
      throw new Error(`the new session's entry ${JSON.stringify(e.id)} does not follow ${String(parent)}`);
    ids.add(e.id);
    parent = e.id;
  }
}
