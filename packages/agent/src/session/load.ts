/**
 * Reading a session file back. The header must be valid (or the file is refused, named). A
 * torn last line, left by a crash in the middle of a write, is skipped and its byte offset
 * returned so the writer can cut it off: append() never reported it committed. A bad line before
 * the last is corruption from elsewhere: it is skipped with a warning naming its line number,
 * and every other entry is kept.
 */
import { MAX_ENTRY_ID_BYTES, checkNewEntry, utf8Bytes } from "./bounds.js";
import { SESSION_VERSION, type NewEntry, type SessionEntry, type SessionHeader } from "./types.js";

export interface LoadedSession {
  header: SessionHeader;
  entries: SessionEntry[];
  warnings: string[];
  /** Where the torn last line starts (the length to truncate to), or null when the end is clean. */
  tornOffset: number | null;
}

const NEWLINE = 0x0a;

export function parseHeader(line: string, file: string): SessionHeader {
  let v: Partial<SessionHeader>;
  try {
    v = JSON.parse(line) as Partial<SessionHeader>;
  } catch {
    throw new Error(`${file} is not a session file: line 1 is not JSON`);
  }
  if (v === null || typeof v !== "object" || v.type !== "session") {
    throw new Error(`${file} is not a session file: line 1 is not a {"type":"session"} header`);
  }
  if (v.version !== SESSION_VERSION) {
    throw new Error(`${file} has session version ${String(v.version)}; this octet reads version ${SESSION_VERSION}`);
  }
  if (typeof v.id !== "string" || v.id === "" || typeof v.cwd !== "string" || typeof v.timestamp_unix_ms !== "number") {
    throw new Error(`${file} has an invalid session header: id, cwd and timestamp_unix_ms are required`);
  }
  return v as SessionHeader;
}

/** Checks a parsed line is an entry; returns the reason it is not, or null. */
function entryProblem(v: unknown): string | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "not a JSON object";
  const e = v as Record<string, unknown>;
  if (typeof e.id !== "string" || e.id === "" || utf8Bytes(e.id) > MAX_ENTRY_ID_BYTES) return "no valid id";
  if (e.parent_id !== null && typeof e.parent_id !== "string") return "no valid parent_id";
  if (typeof e.timestamp_unix_ms !== "number") return "no timestamp_unix_ms";
  try {
    // References are not checked on load: an entry whose target was lost to corruption is kept.
    checkNewEntry(e as unknown as NewEntry, () => true);
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

/** Parses the whole file. Throws an Error naming the file when the header is missing or invalid. */
export function parseSession(bytes: Buffer, file: string): LoadedSession {
  const firstEnd = bytes.indexOf(NEWLINE);
  if (bytes.length === 0) throw new Error(`${file} is not a session file: it is empty`);
  if (firstEnd < 0) throw new Error(`${file} is not a session file: its header line is incomplete`);
  const header = parseHeader(bytes.subarray(0, firstEnd).toString("utf8"), file);
  const entries: SessionEntry[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  let tornOffset: number | null = null;
  let start = firstEnd + 1;
  let lineNo = 1;
  while (start < bytes.length) {
    lineNo++;
    const end = bytes.indexOf(NEWLINE, start);
    const last = end < 0 || end === bytes.length - 1;
    const text = bytes.subarray(start, end < 0 ? bytes.length : end).toString("utf8");
    let parsed: unknown;
    let problem: string | null;
    try {
      parsed = JSON.parse(text);
      problem = entryProblem(parsed);
    } catch {
      problem = "not valid JSON";
    }
    if (end < 0 || (last && problem === "not valid JSON")) {
      tornOffset = start;
      warnings.push(
        `${file}: skipped an incomplete last line at byte ${start} (${bytes.length - start} bytes, ` +
          "left by a write that did not finish; it was never committed)",
      );
      break;
    }
    if (problem === null && seen.has((parsed as SessionEntry).id)) {
      problem = `duplicate id ${(parsed as SessionEntry).id}`;
    }
    if (problem !== null) {
      warnings.push(`${file}: skipped corrupt line ${lineNo} (${problem}); the other entries are kept`);
    } else {
      const entry = parsed as SessionEntry;
      seen.add(entry.id);
      entries.push(entry);
    }
    start = end + 1;
  }
  return { header, entries, warnings, tornOffset };
}
