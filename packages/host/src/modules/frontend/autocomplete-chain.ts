/**
 * The host side of Tab (W 2.24b, ACMP-02..08, ACMP-16, ACMP-17): the registered chains of the
 * ready generations are asked in discovery order, one at a time, under one aggregate deadline
 * (500 ms by default). An answer is validated against the exact request it answers; an empty or
 * invalid one, a failure or a timeout passes to the next chain. The first non-empty answer wins,
 * and only if its generation is still the same ready one when it arrives (a reloaded or retired
 * provider's answer is dropped). The caller rechecks its own draft before applying anything, and
 * the provider through completionLive at display and at acceptance (ACMP-17): the correlation
 * (owner triple, generation, registration revision) is kept here, never taken from the answer.
 */
import {
  AUTOCOMPLETE_COMPLETE,
  utf8ByteLength,
  validateAutocompleteResult,
  type AutocompleteItem,
  type ResourceOwner,
} from "@octet/protocol";
import type { RequestTarget } from "../target.js";
import { stateOf } from "./frontend-service.js";

export const AUTOCOMPLETE_DEADLINE_MS = 500;

export interface CompleteOptions {
  /** The aggregate deadline over every chain; default 500 ms. */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** Called with a chain's refused answer or failure (a diagnostic, never shown as a menu). */
  onProblem?: (extension: string, problem: string) => void;
}

export interface DraftCompletion {
  extension: string;
  generation: number;
  /** The ui/autocomplete/register revision the request was sent under. */
  revision: number;
  /** The owner triple issued to the provider when it was asked (session, instance, generation). */
  owner: ResourceOwner | undefined;
  /** The exact request the answer was checked against. */
  text: string;
  cursor: number;
  prefix: string;
  items: AutocompleteItem[];
}

export async function completeDraft(
  ready: () => readonly RequestTarget[],
  text: string,
  cursor: number,
  options: CompleteOptions = {},
): Promise<DraftCompletion | null> {
  const until = Date.now() + (options.deadlineMs ?? AUTOCOMPLETE_DEADLINE_MS);
  if (utf8ByteLength(text) < cursor) return null;
  for (const t of ready()) {
    const state = stateOf(t);
    if (state?.autocomplete === null || state === undefined || !t.features.includes("autocomplete")) continue;
    const left = until - Date.now();
    if (left <= 0 || options.signal?.aborted) return null;
    const request = { text, cursor, revision: state.autocomplete };
    let raw: unknown;
    try {
      raw = await t.request(AUTOCOMPLETE_COMPLETE.method, request, { timeoutMs: left, signal: options.signal });
    } catch (err) {
      options.onProblem?.(t.name, err instanceof Error ? err.message : String(err));
      continue;
    }
    const checked = validateAutocompleteResult(raw, request, t.features.includes("autocomplete_edit_v1"));
    if (!checked.ok) {
      options.onProblem?.(t.name, `ui/autocomplete/complete answer refused: ${checked.problems.join("; ")}`);
      continue;
    }
    if (checked.value.items.length === 0) continue;
    const owner = t.context(true).resource_owner;
    const found = { extension: t.name, generation: t.number, revision: request.revision, owner, text, cursor };
    const completion: DraftCompletion = { ...found, ...checked.value };
    // ACMP-17: the provider must still be the same ready generation with the same registration.
    if (!completionLive(ready(), completion)) continue;
    return completion;
  }
  return null;
}

/**
 * Whether the provider that answered is still the one asked (ACMP-17): the same ready generation,
 * still registered under the same revision, with the same issued owner triple. A reloaded,
 * replaced, retired or exited provider, a re-registration or a changed session makes it false.
 */
export function completionLive(ready: readonly RequestTarget[], c: DraftCompletion): boolean {
  const now = ready.find((r) => r.name === c.extension && r.number === c.generation);
  if (now === undefined || !now.features.includes("autocomplete")) return false;
  if (stateOf(now)?.autocomplete !== c.revision) return false;
  const owner = now.context(true).resource_owner;
  return (
    owner?.session_id === c.owner?.session_id &&
    owner?.extension_instance_id === c.owner?.extension_instance_id &&
    owner?.process_generation === c.owner?.process_generation
  );
}
