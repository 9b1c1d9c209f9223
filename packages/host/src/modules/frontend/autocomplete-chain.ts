/**
 * The host side of Tab (W 2.24b, ACMP-02..08, ACMP-16, ACMP-17): the registered chains of the
 * ready generations are asked in discovery order, one at a time, under one aggregate deadline
 * (500 ms by default). An answer is validated against the exact request it answers; an empty or
 * invalid one, a failure or a timeout passes to the next chain. The first non-empty answer wins,
 * and only if its generation is still the same ready one when it arrives (a reloaded or retired
 * provider's answer is dropped). The caller rechecks its own draft before applying anything.
 */
import {
  AUTOCOMPLETE_COMPLETE,
  utf8ByteLength,
  validateAutocompleteResult,
  type AutocompleteItem,
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
    // ACMP-17: the provider must still be the same ready generation with the same registration.
    const now = ready().find((r) => r.name === t.name && r.number === t.number);
    if (now === undefined || stateOf(now)?.autocomplete !== request.revision) continue;
    return { extension: t.name, generation: t.number, text, cursor, ...checked.value };
  }
  return null;
}
