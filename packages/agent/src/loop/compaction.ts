/**
 * Compaction: when the context nears the model's window (or on /compact), the older part of the
 * session is summarized by the model into a compaction entry {summary, first_kept}; later requests
 * send the summary and the entries from first_kept on (session/context.ts). The cut falls on a
 * user or assistant entry, never between a tool call and its result. On a vision model the
 * compaction_strategy hook may render the history as frames (PNG), which the summarizer then
 * reads instead of the text (Python SDK "Vision compaction strategy"); the host checks the frames.
 *
 * Extensions that declared them see each compaction through two awaited hooks (WAVE1-40):
 * session_before_compact once the cut is prepared, before the summarizer is asked (its cancel
 * vetoes the compaction: nothing is committed), and session_compact with the committed entry. The
 * entry is the checkpoint: a session_compact failure keeps it, and it is never retried, rolled
 * back or replayed (SCOMP-14); the caller is told with CompactionHookFailedError.
 */
import { complete, type Message, type Usage, type UserMessage } from "@mariozechner/pi-ai";
import type { ExtensionHost } from "@octet/host";
import type { JsonValue, SessionEntry, SessionFile } from "../session/index.js";
import { buildContext } from "../session/index.js";
import type { ResolvedModel } from "../models/index.js";
import { describeProviderError, requestOptions } from "../models/index.js";
import { AgentError } from "../agent-error.js";
import type { PiEvents } from "./pi-events.js";
import { piEntry } from "./pi-entries.js";
import { emptyUsage } from "./events.js";

/** The compaction is committed as `entry`, but a session_compact hook failed after it (SCOMP-14). */
export class CompactionHookFailedError extends AgentError {
  readonly entry: SessionEntry;
  constructor(entry: SessionEntry, cause: unknown) {
    super(
      "compaction_hook_failed",
      `compaction committed as entry ${entry.id} and kept; it is not retried: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
    );
    this.entry = entry;
  }
}

export interface CompactionSettings {
  /** Automatic compaction before a request when the context is this close to the window. */
  enabled: boolean;
  /** Tokens kept free for the answer: compaction starts above contextWindow - reserveTokens. */
  reserveTokens: number;
  /** Roughly how many tokens of the most recent entries are kept verbatim. */
  keepRecentTokens: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = {
  enabled: true,
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
};

/** What the summarizer is told; the conversation follows in the user message. */
export const SUMMARY_SYSTEM_PROMPT =
  "You summarize a conversation between a user and a coding agent so that the agent can continue " +
  "the work from the summary alone. Keep: the user's goals and constraints, decisions taken, files " +
  "read or changed (with paths), commands run and their outcome, errors still open, and the next " +
  "steps. Be concise and factual; do not invent anything.";

/** Instructions are capped like session/compact's custom_instructions (wire reference 2.21c). */
export const MAX_INSTRUCTIONS_BYTES = 16_384;

export interface CompactionOutcome {
  entry: SessionEntry;
  summary: string;
  first_kept: string;
  tokens_before: number;
  usage: Usage;
}

/** A rough token count (4 characters a token), the same for every provider. */
export function estimateTokens(m: Message): number {
  let chars = 0;
  if (m.role === "user") chars = typeof m.content === "string" ? m.content.length : partsChars(m.content);
  else if (m.role === "toolResult") chars = partsChars(m.content);
  else
    for (const c of m.content)
      chars += c.type === "text" ? c.text.length : c.type === "thinking" ? c.thinking.length : JSON.stringify(c).length;
  return Math.ceil(chars / 4);
}

function partsChars(parts: readonly { type: string; text?: string }[]): number {
  // An image costs about as much as a page of text whatever its size.
  return parts.reduce((n, p) => n + (p.type === "text" ? (p.text ?? "").length : 4800), 0);
}

/**
 * The context's size: the provider's own count for the last answer that has one among the last
 * `trustLast` messages, plus an estimate of everything after it (of everything, without one).
 */
export function contextTokens(messages: readonly Message[], trustLast = messages.length): number {
  const first = Math.max(0, messages.length - trustLast);
  let at = -1;
  for (let i = messages.length - 1; i >= first && at < 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant" && m.stopReason !== "error" && m.stopReason !== "aborted" && m.usage.totalTokens > 0)
      at = i;
  }
  const u = at >= 0 ? (messages[at] as Extract<Message, { role: "assistant" }>).usage : null;
  const counted = u ? u.input + u.output + u.cacheRead + u.cacheWrite : 0;
  return counted + messages.slice(at + 1).reduce((n, m) => n + estimateTokens(m), 0);
}

/**
 * The size of what a request for `path` would carry. An answer from before the latest compaction
 * counted the context before it was summarized, so only answers after it are trusted.
 */
export function pathTokens(path: readonly SessionEntry[]): number {
  const { messages } = buildContext(path);
  const last = findLastIndex(path, (e) => e.type === "compaction");
  const fresh = last < 0 ? messages.length : buildContext(path.slice(last + 1)).messages.length;
  return contextTokens(messages, fresh);
}

export function needsCompaction(session: SessionFile, model: ResolvedModel, s: CompactionSettings): boolean {
  if (!s.enabled) return false;
  const window = model.model.contextWindow;
  const reserve = Math.min(s.reserveTokens, Math.floor(window / 4));
  return pathTokens(session.pathToLeaf()) > window - reserve;
}

/**
 * The entry from which the recent part is kept: walking back from the leaf, the first user or
 * assistant entry once keepRecentTokens are gathered; null when there is nothing before it to
 * summarize. The cut falls after the latest compaction entry: what a request before the cut
 * carried (that compaction's summary and kept entries) is what the new summary replaces, and a
 * cut inside the kept part would hand the summarizer the raw history the old summary stands for.
 */
export function chooseFirstKept(path: readonly SessionEntry[], keepRecentTokens: number): string | null {
  const floor = Math.max(
    0,
    findLastIndex(path, (e) => e.type === "compaction"),
  );
  let kept = 0;
  let candidate: number | null = null;
  for (let i = path.length - 1; i > floor; i--) {
    const e = path[i]!;
    if (e.type !== "message") continue;
    kept += estimateTokens(e.message);
    if (e.message.role !== "toolResult") candidate = i;
    if (kept >= keepRecentTokens && candidate !== null) break;
  }
  if (candidate === null) return null;
  // Nothing older than the cut that is a message: nothing to summarize.
  const older = path.slice(0, candidate).some((e) => e.type === "message" || e.type === "compaction");
  return older ? path[candidate]!.id : null;
}

export async function compactSession(o: {
  session: SessionFile;
  model: ResolvedModel;
  host: ExtensionHost | null;
  settings: CompactionSettings;
  instructions?: string;
  signal: AbortSignal;
  maxRetries?: number;
  /** A notification a compaction hook returned. */
  onNotice?: (n: { extension: string; level: string; title: string; message?: string }) => void;
  /** pi's session_before_compact / session_compact for the pi extensions that take them (pi-events.ts). */
  pi?: PiEvents | null;
}): Promise<CompactionOutcome> {
  const instructions = o.instructions?.trim() ?? "";
  const size = Buffer.byteLength(instructions, "utf8");
  if (size > MAX_INSTRUCTIONS_BYTES)
    throw new Error(`compaction instructions are ${size} bytes, over the ${MAX_INSTRUCTIONS_BYTES}-byte limit`);
  const path = o.session.pathToLeaf();
  const firstKept = chooseFirstKept(path, o.settings.keepRecentTokens);
  if (firstKept === null)
    throw new AgentError("nothing_to_compact", "nothing to compact yet: the session has no older entries to summarize");
  const cut = path.findIndex((e) => e.id === firstKept);
  const older = buildContext(path.slice(0, cut)).messages;
  const tokensBefore = pathTokens(path);
  const hooks = o.host?.compactionHooks;
  if (hooks?.takesCompactionHook("session_before_compact")) {
    const before = await hooks.runCompactionHook(
      "session_before_compact",
      {
        kind: "session_before_compact",
        session_id: o.session.id,
        first_kept: firstKept,
        tokens_before: tokensBefore,
        custom_instructions: instructions === "" ? null : instructions,
        timestamp_ms: Date.now(),
      },
      { signal: o.signal },
    );
    for (const n of before.notifications) o.onNotice?.(n);
    if (before.vetoedBy !== null)
      throw new AgentError(
        "compaction_vetoed",
        `the session_before_compact hook of extension ${before.vetoedBy} cancelled the compaction`,
      );
  }
  // pi's session_before_compact: a cancel vetoes, a `compaction` is the summary to save instead.
  const piBefore = o.pi?.takes("session_before_compact")
    ? await o.pi.sessionBefore(
        "session_before_compact",
        {
          preparation: {
            firstKeptEntryId: firstKept,
            messagesToSummarize: older,
            turnPrefixMessages: [],
            isSplitTurn: false,
            tokensBefore,
            fileOps: { read: [], written: [], edited: [] },
            settings: { ...o.settings, enabled: true },
          },
          branchEntries: path.map(piEntry),
          ...(instructions !== "" ? { customInstructions: instructions } : {}),
        },
        o.signal,
      )
    : null;
  if (piBefore?.["cancel"] === true)
    throw new AgentError(
      "compaction_vetoed",
      `the session_before_compact hook of extension ${piBefore.extension} cancelled the compaction`,
    );
  const given = extensionCompaction(piBefore, firstKept, path);
  if (given)
    return commitCompaction(o, { ...given, firstKept, tokensBefore, fromExtension: true, usage: emptyUsage() });
  const transcript = older.map(transcriptLine).join("\n\n");
  const content: UserMessage["content"] = [];
  const details: { [key: string]: JsonValue } = {};
  if (o.host && o.model.model.input.includes("image")) {
    const framed = await o.host.compactionFrames(
      { model_id: o.model.model.id, text: transcript },
      { signal: o.signal },
    );
    if (framed) {
      for (const f of framed.frames)
        content.push({ type: "image", data: Buffer.from(f).toString("base64"), mimeType: "image/png" });
      details["compaction_frames"] = { extension: framed.extension, count: framed.frames.length };
    }
  }
  if (content.length === 0) content.push({ type: "text", text: `<conversation>\n${transcript}\n</conversation>` });
  const { summary, usage } = await askSummary(
    o,
    content,
    `Summarize the conversation above.`,
    instructions,
    "compaction",
  );
  return commitCompaction(o, { summary, details, firstKept, tokensBefore, fromExtension: false, usage });
}

/**
 * The summarizer's request: `content` (the conversation), then the ask and the focus. `what`
 * names the operation in errors ("compaction", "branch summary").
 */
async function askSummary(
  o: { model: ResolvedModel; signal: AbortSignal; maxRetries?: number },
  content: Exclude<UserMessage["content"], string>,
  ask: string,
  instructions: string,
  what: string,
): Promise<{ summary: string; usage: Usage }> {
  const parts = [
    ...content,
    { type: "text" as const, text: `${ask}${instructions !== "" ? `\nFocus: ${instructions}` : ""}` },
  ];
  const answer = await complete(
    o.model.model,
    { systemPrompt: SUMMARY_SYSTEM_PROMPT, messages: [{ role: "user", content: parts, timestamp: Date.now() }] },
    {
      signal: o.signal,
      ...requestOptions(o.model),
      ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
    },
  );
  if (answer.stopReason === "aborted") throw new Error(`${what} cancelled`);
  if (answer.stopReason === "error") throw new Error(`${what} failed: ${describeProviderError(answer, o.model)}`);
  const summary = answer.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n")
    .trim();
  if (summary === "") throw new Error(`${what} failed: the model answered no summary`);
  return { summary, usage: answer.usage };
}

/**
 * A summary of `entries` by the compaction summarizer (pi's branch summary of /tree): their
 * context as a transcript, with `instructions` as the focus, or in place of the ask when `replace`.
 */
export async function summarizeEntries(o: {
  entries: readonly SessionEntry[];
  model: ResolvedModel;
  signal: AbortSignal;
  maxRetries?: number;
  instructions?: string;
  replace?: boolean;
}): Promise<{ summary: string; usage: Usage }> {
  const instructions = o.instructions?.trim() ?? "";
  const size = Buffer.byteLength(instructions, "utf8");
  if (size > MAX_INSTRUCTIONS_BYTES)
    throw new Error(`branch summary instructions are ${size} bytes, over the ${MAX_INSTRUCTIONS_BYTES}-byte limit`);
  const transcript = buildContext(o.entries).messages.map(transcriptLine).join("\n\n");
  const content: UserMessage["content"] = [{ type: "text", text: `<conversation>\n${transcript}\n</conversation>` }];
  const ask =
    o.replace === true && instructions !== ""
      ? instructions
      : "Summarize this conversation branch, which the user left to continue from an earlier point.";
  return askSummary(o, content, ask, o.replace === true ? "" : instructions, "branch summary");
}

/**
 * The summary a pi extension's session_before_compact gave (pi's CompactionResult), when it is
 * usable: a non-empty summary, and the cut octet prepared (another firstKeptEntryId would need a
 * cut octet did not check: refused, the model summarizes instead).
 */
function extensionCompaction(
  answer: Record<string, unknown> | null,
  firstKept: string,
  path: readonly SessionEntry[],
): { summary: string; details: { [key: string]: JsonValue } } | null {
  const c = answer?.["compaction"] as { summary?: unknown; firstKeptEntryId?: unknown; details?: unknown } | undefined;
  if (!c || typeof c.summary !== "string" || c.summary.trim() === "") return null;
  if (
    c.firstKeptEntryId !== undefined &&
    c.firstKeptEntryId !== firstKept &&
    path.some((e) => e.id === c.firstKeptEntryId)
  )
    return null;
  const details =
    typeof c.details === "object" && c.details !== null && !Array.isArray(c.details)
      ? (JSON.parse(JSON.stringify(c.details)) as { [key: string]: JsonValue })
      : {};
  return { summary: c.summary.trim(), details: { ...details, from_extension: String(answer?.["extension"] ?? "") } };
}

/** Saves the compaction entry, then session_compact: octet's hook, and pi's event. */
async function commitCompaction(
  o: Parameters<typeof compactSession>[0],
  c: {
    summary: string;
    details: { [key: string]: JsonValue };
    firstKept: string;
    tokensBefore: number;
    fromExtension: boolean;
    usage: Usage;
  },
): Promise<CompactionOutcome> {
  const { summary, details, firstKept, tokensBefore } = c;
  const hooks = o.host?.compactionHooks;
  const entry = await o.session.append({
    type: "compaction",
    summary,
    first_kept: firstKept,
    tokens_before: tokensBefore,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
  if (o.pi?.takes("session_compact"))
    await o.pi.observe("session_compact", { compactionEntry: piEntry(entry), fromExtension: c.fromExtension });
  if (hooks?.takesCompactionHook("session_compact")) {
    try {
      const after = await hooks.runCompactionHook(
        "session_compact",
        {
          kind: "session_compact",
          session_id: o.session.id,
          compaction_entry: {
            id: entry.id,
            parent: entry.parent_id,
            timestamp_unix_ms: entry.timestamp_unix_ms,
            summary,
            first_kept: firstKept,
            tokens_before: tokensBefore,
          },
          timestamp_ms: Date.now(),
        },
        { signal: o.signal },
      );
      for (const n of after.notifications) o.onNotice?.(n);
    } catch (err) {
      throw new CompactionHookFailedError(entry, err);
    }
  }
  return { entry, summary, first_kept: firstKept, tokens_before: tokensBefore, usage: c.usage };
}

/** One message as the summarizer reads it; long tool output is cut, the gist survives. */
function transcriptLine(m: Message): string {
  const cap = (t: string, n: number): string => (t.length > n ? `${t.slice(0, n)} [... ${t.length - n} more]` : t);
  if (m.role === "user")
    return `User: ${
      typeof m.content === "string"
        ? m.content
        : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n")
    }`;
  if (m.role === "toolResult")
    return `Tool result (${m.toolName}${m.isError ? ", error" : ""}): ${cap(
      m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join("\n"),
      2000,
    )}`;
  return `Assistant: ${m.content
    .map((c) =>
      c.type === "text"
        ? c.text
        : c.type === "toolCall"
          ? `[calls ${c.name} ${cap(JSON.stringify(c.arguments), 500)}]`
          : "",
    )
    .filter((t) => t !== "")
    .join("\n")}`;
}

function findLastIndex<T>(a: readonly T[], f: (x: T) => boolean): number {
  for (let i = a.length - 1; i >= 0; i--) if (f(a[i]!)) return i;
  return -1;
}
