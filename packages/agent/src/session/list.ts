/**
 * Finding sessions on disk: every file under <home>/sessions/, read without taking its lock
 * (listing must work while another octet writes). A file whose header is invalid is not a
 * session and is left out.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseSession } from "./load.js";
import { sessionsRoot, workspaceDirName } from "./paths.js";
import type { SessionEntry, SessionSummary } from "./types.js";

/** The shortest prefix findSession accepts, so a stray character does not pick a session. */
export const MIN_ID_PREFIX = 4;
const FIRST_PROMPT_CHARS = 100;

async function dirNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

function firstPrompt(entries: readonly SessionEntry[]): string | null {
  for (const e of entries) {
    if (e.type !== "message" || e.message.role !== "user") continue;
    const c = e.message.content;
    const text = typeof c === "string" ? c : c.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(" ");
    const flat = text.replace(/\s+/g, " ").trim();
    if (flat !== "") return flat.length > FIRST_PROMPT_CHARS ? flat.slice(0, FIRST_PROMPT_CHARS) : flat;
  }
  return null;
}

function latestName(entries: readonly SessionEntry[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.type === "session_info") return e.name === "" ? null : e.name;
  }
  return null;
}

async function summarize(path: string): Promise<SessionSummary | null> {
  try {
    const [bytes, st] = await Promise.all([readFile(path), stat(path)]);
    const s = parseSession(bytes, path);
    return {
      id: s.header.id,
      path,
      workspace: s.header.cwd,
      name: latestName(s.entries),
      created_unix_ms: s.header.timestamp_unix_ms,
      modified_unix_ms: st.mtimeMs,
      entries: s.entries.length,
      first_prompt: firstPrompt(s.entries),
    };
  } catch {
    // Not a session (bad header) or removed while listing.
    return null;
  }
}

/** Sessions newest first (by modification); with `workspace`, only that workspace's. */
export async function listSessions(home: string, workspace?: string): Promise<SessionSummary[]> {
  const root = sessionsRoot(home);
  const abs = workspace === undefined ? undefined : resolve(workspace);
  const dirs = abs === undefined ? await dirNames(root) : [workspaceDirName(abs)];
  const paths: string[] = [];
  for (const d of dirs) {
    for (const f of await dirNames(join(root, d))) if (f.endsWith(".jsonl")) paths.push(join(root, d, f));
  }
  const all = await Promise.all(paths.map(summarize));
  return all
    .filter((s): s is SessionSummary => s !== null && (abs === undefined || s.workspace === abs))
    .sort((a, b) => b.modified_unix_ms - a.modified_unix_ms || b.created_unix_ms - a.created_unix_ms);
}

/** The path of the most recently modified session of `workspace`, or null when it has none. */
export async function latestSession(home: string, workspace: string): Promise<string | null> {
  return (await listSessions(home, workspace))[0]?.path ?? null;
}

function pick(candidates: SessionSummary[], x: string): string | null {
  const exact = candidates.find((s) => s.id === x);
  if (exact) return exact.path;
  const matches = candidates.filter((s) => s.id.startsWith(x));
  if (matches.length === 1 && matches[0]) return matches[0].path;
  if (matches.length > 1) {
    const names = matches.map((s) => `${s.id} (${s.path})`).join(", ");
    throw new Error(`session prefix ${x} is ambiguous: it matches ${names}; give more of the id`);
  }
  return null;
}

/**
 * A session by exact id or unique prefix (at least MIN_ID_PREFIX characters): this workspace's
 * sessions first, then every workspace's.
 */
export async function findSession(home: string, workspace: string, idOrPrefix: string): Promise<string> {
  const x = idOrPrefix.trim().toLowerCase();
  if (x.length < MIN_ID_PREFIX) {
    throw new Error(
      `session id prefix ${JSON.stringify(idOrPrefix)} is too short: give at least ${MIN_ID_PREFIX} characters`,
    );
  }
  const found = pick(await listSessions(home, workspace), x) ?? pick(await listSessions(home), x);
  if (found === null) throw new Error(`no session ${idOrPrefix}; octet sessions list shows them`);
  return found;
}
