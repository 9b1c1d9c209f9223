/**
 * Warnings a flood would repeat (an extension's refused or failed requests), coalesced per
 * window: the first of each kind is said at once, its repeats are counted and said as one line
 * when the window ends ("... 935 times more in the last 1 s: ..."). A kind that keeps repeating
 * gets one such line per window, and is said in full again only after a window without it. So a
 * flood costs the host's log a line or two per second, however fast it goes, and no count is lost.
 */

/** The window over which repeats of one kind are summed into one line. */
export const WARNING_WINDOW_MS = 1000;
/** Kinds tracked in one window; repeats of further kinds are summed into one line of their own. */
export const MAX_WARNING_KINDS = 16;

const OTHER_KINDS = "\0other";

/** "1 time", "2 times": for a summary's count. */
export const times = (n: number): string => `${n} ${n === 1 ? "time" : "times"}`;

/** The one line for `count` repeats within the last `seconds`. */
export type Summary = (count: number, seconds: number) => string;

export class CoalescedWarnings {
  readonly #kinds = new Map<string, { repeats: number; summary: Summary }>();
  #window: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(
    private readonly say: (message: string) => void,
    private readonly windowMs: number = WARNING_WINDOW_MS,
  ) {}

  /** Says `message` now if its kind was quiet, else counts it for the kind's summary. */
  warn(kind: string, message: string, summary: Summary): void {
    if (this.#closed) return this.say(message);
    const full = this.#kinds.size >= MAX_WARNING_KINDS;
    const known = this.#kinds.get(kind) ?? (full ? this.#kinds.get(OTHER_KINDS) : undefined);
    if (known) {
      known.repeats++;
      return;
    }
    if (full) {
      const other: Summary = (n, s) => `${n} more warnings of other kinds in the last ${s} s (the first: ${message})`;
      this.#kinds.set(OTHER_KINDS, { repeats: 0, summary: other });
    } else {
      this.#kinds.set(kind, { repeats: 0, summary });
    }
    this.say(message);
    this.#arm();
  }

  /** Says what is counted now and stops windowing (the instance ended): later warnings are said as they come. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#window !== null) clearTimeout(this.#window);
    this.#window = null;
    this.#flush();
  }

  #arm(): void {
    if (this.#window !== null || this.#closed) return;
    this.#window = setTimeout(() => {
      this.#window = null;
      if (this.#flush()) this.#arm();
    }, this.windowMs);
    // A pending summary must not keep the embedding process alive.
    this.#window.unref();
  }

  /** Says each kind's summed repeats; forgets the quiet kinds. True if some kind repeated. */
  #flush(): boolean {
    let repeating = false;
    for (const [kind, k] of this.#kinds) {
      if (k.repeats === 0) {
        this.#kinds.delete(kind);
        continue;
      }
      this.say(k.summary(k.repeats, this.windowMs / 1000));
      k.repeats = 0;
      repeating = true;
    }
    return repeating;
  }
}
