/**
 * The single-use approval tokens of one generation (POL-07, POL-09..11, POL-13): issued when a
 * person approves an "ask", bound to the canonical intent, the parent request, the owner triple
 * and the process generation, consumed on first presentation whatever the outcome, expired after
 * at most five minutes, and dropped all at once when the generation ends.
 *
 * One store belongs to one generation's policy service, so a token can never be looked up by
 * another generation: a replacement starts with an empty store (POL-13). The binding still names
 * the generation, so a mismatch is a deny even if a store were ever shared by mistake.
 */
import { randomBytes } from "node:crypto";
import { bounds, type ResourceOwner } from "@octet/protocol";

/** What a token is bound to: compared member by member when it is presented. */
export interface ApprovalBinding {
  /** canonicalIntent() of the approved intent. */
  intent: string;
  parentId: number;
  owner: ResourceOwner;
}

interface Issued extends ApprovalBinding {
  expiresAt: number;
  /** Removes the listener that drops the token when its parent settles. */
  release: () => void;
}

export interface ApprovalTokenOptions {
  /** Milliseconds; capped at APPROVAL_TOKEN_TTL_MS (five minutes, POL-10). */
  ttlMs?: number;
  /** The clock expiry is read from (tests inject one). */
  now?: () => number;
}

export class ApprovalTokens {
  readonly #tokens = new Map<string, Issued>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  #closed = false;

  constructor(options: ApprovalTokenOptions = {}) {
    const ttl = options.ttlMs ?? bounds.APPROVAL_TOKEN_TTL_MS;
    if (!Number.isFinite(ttl) || ttl <= 0)
      throw new RangeError(`approval token lifetime must be a positive number of milliseconds, got ${ttl}`);
    // The text caps the lifetime: a longer configured value is shortened, never honoured.
    this.#ttlMs = Math.min(ttl, bounds.APPROVAL_TOKEN_TTL_MS);
    this.#now = options.now ?? Date.now;
  }

  /** Unconsumed, unexpired-or-not-yet-swept tokens (for tests and status). */
  get size(): number {
    return this.#tokens.size;
  }

  /**
   * A fresh token bound to `binding`. `parentSettled` aborts when the parent request settles: the
   * token can never match after that (its parent is no longer active), so it is dropped then.
   */
  issue(binding: ApprovalBinding, parentSettled: AbortSignal): string {
    if (this.#closed) throw new Error("approval tokens of an ended generation cannot be issued");
    this.#sweep();
    while (this.#tokens.size >= bounds.MAX_PENDING_APPROVALS) {
      const oldest = this.#tokens.keys().next().value as string;
      this.#drop(oldest);
    }
    // 32 bytes from the OS CSPRNG: a token is a capability, guessing one must be hopeless.
    const token = randomBytes(bounds.APPROVAL_TOKEN_HEX_CHARS / 2).toString("hex");
    const onSettled = (): void => this.#drop(token);
    parentSettled.addEventListener("abort", onSettled, { once: true });
    this.#tokens.set(token, {
      ...binding,
      owner: { ...binding.owner },
      expiresAt: this.#now() + this.#ttlMs,
      release: () => parentSettled.removeEventListener("abort", onSettled),
    });
    if (parentSettled.aborted) this.#drop(token);
    return token;
  }

  /**
   * Consumes `token` (POL-09, POL-11): it is removed before anything is compared, in the same
   * synchronous step as the lookup, so two concurrent retries cannot both use it. True only for
   * a known, unexpired token whose binding matches exactly; an unknown, reused, expired or
   * mismatched token is false, and a recognized one is gone either way.
   */
  consume(token: string, presented: ApprovalBinding): boolean {
    const issued = this.#tokens.get(token);
    if (issued === undefined) return false;
    this.#drop(token);
    if (this.#closed || this.#now() >= issued.expiresAt) return false;
    return (
      issued.intent === presented.intent &&
      issued.parentId === presented.parentId &&
      sameOwner(issued.owner, presented.owner)
    );
  }

  /** Invalidates every token (the generation ended or is replaced, POL-13); nothing is issued after. */
  close(): void {
    this.#closed = true;
    for (const token of [...this.#tokens.keys()]) this.#drop(token);
  }

  #drop(token: string): void {
    const issued = this.#tokens.get(token);
    if (issued === undefined) return;
    issued.release();
    this.#tokens.delete(token);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [token, issued] of this.#tokens) if (now >= issued.expiresAt) this.#drop(token);
  }
}

function sameOwner(a: ResourceOwner, b: ResourceOwner): boolean {
  return (
    a.session_id === b.session_id &&
    a.extension_instance_id === b.extension_instance_id &&
    a.process_generation === b.process_generation
  );
}
