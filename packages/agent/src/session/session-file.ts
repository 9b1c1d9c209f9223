/**
 * A session file opened for writing: the loaded entries, the tree's leaf, and append(), which
 * resolves only once the line is written and fsynced. Appends go through one queue, so calls made
 * together are written in call order and never interleave bytes; ids, parents and timestamps are
 * assigned at call time, so the tree follows call order too.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { type FileHandle, mkdir, open, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { checkLine, checkNewEntry } from "./bounds.js";
import { parseSession } from "./load.js";
import { acquireLock, releaseLock } from "./lock.js";
import { sessionFileName, workspaceSessionsDir } from "./paths.js";
import { SESSION_VERSION, type NewEntry, type SessionEntry, type SessionHeader } from "./types.js";

/** Writes all of `buf` at the end of the file (O_APPEND), looping over short writes. */
async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

/** Makes a new directory entry durable: the file exists after a crash, not just its data. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class SessionFile {
  readonly id: string;
  readonly path: string;
  readonly workspace: string;
  readonly header: SessionHeader;
  readonly warnings: readonly string[];

  readonly #lockPath: string;
  readonly #now: () => number;
  #fh: FileHandle | null;
  #size: number;
  readonly #entries: SessionEntry[];
  readonly #byId = new Map<string, SessionEntry>();
  /** Ids handed out, committed or still queued: new ids avoid them and labels may target them. */
  readonly #known = new Set<string>();
  #leaf: string | null;
  /** Entries appended but not yet committed, with their parents (see pathToLeaf). */
  readonly #pending = new Map<string, string | null>();
  #queue: Promise<unknown> = Promise.resolve();
  /** Set when a write failed: the file's tail is uncertain, so later appends are refused. */
  #failed: Error | null = null;
  /** Set by close(): appends from then on are refused at once, not queued behind the close. */
  #closing = false;

  private constructor(o: {
    path: string;
    header: SessionHeader;
    entries: SessionEntry[];
    warnings: string[];
    fh: FileHandle;
    size: number;
    now: () => number;
  }) {
    this.path = o.path;
    this.#lockPath = `${o.path}.lock`;
    this.header = o.header;
    this.id = o.header.id;
    this.workspace = o.header.cwd;
    this.warnings = o.warnings;
    this.#fh = o.fh;
    this.#size = o.size;
    this.#now = o.now;
    this.#entries = o.entries;
    for (const e of o.entries) {
      this.#byId.set(e.id, e);
      this.#known.add(e.id);
    }
    this.#leaf = o.entries.at(-1)?.id ?? null;
  }

  /** Creates and locks a new session for `workspace` under `<home>/sessions/`. */
  static async create(o: { home: string; workspace: string; now?: () => number }): Promise<SessionFile> {
    const workspace = resolve(o.workspace);
    return SessionFile.#createIn(workspaceSessionsDir(o.home, workspace), workspace, o.now ?? Date.now, {}, []);
  }

  /**
   * Creates and locks a new session beside `of` (same directory and workspace): pi's new session
   * and fork. `parentSession` is recorded in the header; `entries` (a root-to-leaf path of `of`,
   * kept as they are, ids included) are written after it, so a fork starts with that history.
   */
  static async createSibling(
    of: SessionFile,
    o: { parentSession?: string; entries?: readonly SessionEntry[] } = {},
  ): Promise<SessionFile> {
    const parent = o.parentSession !== undefined ? { parent_session: o.parentSession } : {};
    return SessionFile.#createIn(dirname(of.path), of.workspace, of.#now, parent, o.entries ?? []);
  }

  static async #createIn(
    dir: string,
    workspace: string,
    now: () => number,
    extra: Partial<SessionHeader>,
    entries: readonly SessionEntry[],
  ): Promise<SessionFile> {
    // Folders made here are fsynced into their parents too: a power loss must not drop the
    // directory entry of a session whose lines were synced.
    const first = await mkdir(dir, { recursive: true });
    if (first !== undefined) {
      for (let d = dir; d.length >= first.length; d = dirname(d)) await syncDir(dirname(d));
    }
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id: randomUUID(),
      timestamp_unix_ms: now(),
      cwd: workspace,
      ...extra,
    };
    const path = join(dir, sessionFileName(header.timestamp_unix_ms, header.id));
    const warnings = acquireLock(`${path}.lock`);
    let fh: FileHandle | null = null;
    try {
      fh = await open(path, "wx");
      const text = [header, ...entries].map((e) => `${JSON.stringify(e)}\n`).join("");
      const bytes = Buffer.from(text, "utf8");
      await writeAll(fh, bytes);
      await fh.sync();
      await syncDir(dir);
      // Read back, as append() keeps them: what a reload will see.
      const kept = entries.map((e) => JSON.parse(JSON.stringify(e)) as SessionEntry);
      return new SessionFile({ path, header, entries: kept, warnings, fh, size: bytes.length, now });
    } catch (e) {
      await fh?.close();
      releaseLock(`${path}.lock`);
      throw e;
    }
  }

  /** Locks and loads an existing session file; a torn last line is cut off before anything is appended. */
  static async open(path: string, o: { now?: () => number } = {}): Promise<SessionFile> {
    const abs = resolve(path);
    const warnings = acquireLock(`${abs}.lock`);
    let fh: FileHandle | null = null;
    try {
      const loaded = parseSession(await readFile(abs), abs);
      fh = await open(abs, "a");
      let size = (await fh.stat()).size;
      if (loaded.tornOffset !== null) {
        await fh.truncate(loaded.tornOffset);
        await fh.sync();
        size = loaded.tornOffset;
      }
      return new SessionFile({
        path: abs,
        header: loaded.header,
        entries: loaded.entries,
        warnings: [...warnings, ...loaded.warnings],
        fh,
        size,
        now: o.now ?? Date.now,
      });
    } catch (e) {
      await fh?.close();
      releaseLock(`${abs}.lock`);
      throw e;
    }
  }

  /** Committed entries in file order. */
  entries(): readonly SessionEntry[] {
    return this.#entries;
  }

  get(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }

  /** The entry the next append follows; null before the first entry. */
  leafId(): string | null {
    return this.#leaf;
  }

  /** Moves the leaf: the next entry's parent is `id` (null: the next entry starts a new root). */
  branch(id: string | null): void {
    if (id !== null && !this.#known.has(id)) throw new Error(`cannot branch to ${JSON.stringify(id)}: no such entry`);
    this.#leaf = id;
  }

  /**
   * Root..leaf, following parent_id from the leaf (committed entries only: an entry still being
   * written is skipped to its parent, so a path asked for while another append waits for its
   * fsync is the committed history, not an empty one).
   */
  pathToLeaf(): SessionEntry[] {
    const out: SessionEntry[] = [];
    const seen = new Set<string>();
    let id = this.#leaf;
    while (id !== null && this.#pending.has(id)) id = this.#pending.get(id) ?? null;
    while (id !== null && !seen.has(id)) {
      seen.add(id);
      const e = this.#byId.get(id);
      if (e === undefined) break;
      out.push(e);
      id = e.parent_id;
    }
    return out.reverse();
  }

  /**
   * Appends an entry and resolves once its line is written and fsynced. Throws (without writing)
   * when the entry breaks a bound, naming the field, its size and the limit.
   */
  append(entry: NewEntry): Promise<SessionEntry> {
    try {
      if (this.#closing) throw new Error(`session ${this.path} is closed`);
      if (this.#failed) throw this.#failedError();
      checkNewEntry(entry, (id) => this.#known.has(id));
      const base = { id: this.#newId(), parent_id: this.#leaf, timestamp_unix_ms: this.#now() };
      // Base fields first, so a line reads like the documented format; ours win over any the caller set.
      const ordered = Object.assign({ type: entry.type, ...base }, entry, base) as SessionEntry;
      const line = JSON.stringify(ordered);
      checkLine(entry.type, line);
      this.#known.add(ordered.id);
      this.#pending.set(ordered.id, ordered.parent_id);
      this.#leaf = ordered.id;
      // The entry kept in memory is the line read back: what a reload will see, and not an object
      // the caller may still change (a message being streamed, a reused data object).
      const stored = JSON.parse(line) as SessionEntry;
      const done = this.#queue.then(() => this.#write(stored, Buffer.from(`${line}\n`, "utf8")));
      this.#queue = done.catch(() => undefined);
      return done;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  async #write(entry: SessionEntry, buf: Buffer): Promise<SessionEntry> {
    if (this.#failed) throw this.#failedError();
    const fh = this.#fh;
    if (fh === null) throw new Error(`session ${this.path} was closed before the entry was written`);
    try {
      await writeAll(fh, buf);
      await fh.sync();
    } catch (e) {
      this.#failed = e as Error;
      // Cut off whatever part reached the file, so a later open sees a clean end.
      await fh.truncate(this.#size).catch(() => undefined);
      throw e;
    }
    this.#size += buf.length;
    this.#entries.push(entry);
    this.#byId.set(entry.id, entry);
    this.#pending.delete(entry.id);
    return entry;
  }

  #failedError(): Error {
    return new Error(`session ${this.path} refused the append: an earlier write failed: ${this.#failed?.message}`);
  }

  #newId(): string {
    for (;;) {
      const id = randomBytes(6).toString("hex");
      if (!this.#known.has(id)) return id;
    }
  }

  /** The latest session_info name in the file; null when never named or cleared. */
  name(): string | null {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const e = this.#entries[i];
      if (e?.type === "session_info") return e.name === "" ? null : e.name;
    }
    return null;
  }

  /** Entry id -> label, from every label entry in file order (an empty label clears). */
  labels(): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const e of this.#entries) {
      if (e.type !== "label") continue;
      if (e.label === "") out.delete(e.target_id);
      else out.set(e.target_id, e.label);
    }
    return out;
  }

  /** Waits for queued appends, closes the file and releases the lock. Idempotent. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#queue;
    const fh = this.#fh;
    if (fh === null) return;
    this.#fh = null;
    try {
      await fh.close();
    } finally {
      releaseLock(this.#lockPath);
    }
  }
}
