/**
 * input/request (INPUT-01..07, API 0.2+): the extension asks the person for a line of text inside
 * an active tool/call or command/execute. Bound always: without the embedder's input service the
 * answer is null (cancelled), never guessed (INPUT-06). A secret answer is never logged: it goes
 * only on the private reply.
 */
import { ErrorCode, INPUT_REQUEST, WireError, bounds, utf8ByteLength, validateInputParams } from "@octet/protocol";
import { defineModule, type ChildRequestScope, type ServiceGeneration } from "../module.js";
import { requireParent } from "../parent.js";
import { settleBy } from "../signals.js";

/**
 * The embedder's text input for input/request (API 0.2+). Resolve null when the person cancels
 * or nobody can answer; `signal` aborts when the answer is no longer needed. A secret answer must
 * never be logged: the host passes it only on the private reply.
 */
export type InputService = (request: {
  extension: string;
  prompt: string;
  secret: boolean;
  signal: AbortSignal;
}) => Promise<string | null>;

declare module "../options.js" {
  interface HostServiceOptions {
    /** Answers input/request (API 0.2+); absent means headless, which cancels (INPUT-06). */
    input?: InputService | undefined;
  }
}

const METHOD = INPUT_REQUEST.method;

export const inputModule = defineModule<{ input: InputService | undefined }>({
  feature: "input",
  bind: (o) => ({ input: o.input }),
  // The method table carries input/request on API 0.2+ only; the inbox refuses it on 0.1.
  offer: () => [],
  open: (g, b) => ({ features: [], requests: { [METHOD]: (scope) => input(g, b.input, scope) } }),
  childRequests: [INPUT_REQUEST],
  childNotifications: [],
});

async function input(
  g: ServiceGeneration,
  service: InputService | undefined,
  scope: ChildRequestScope,
): Promise<unknown> {
  requireParent(METHOD, scope.params);
  const checked = validateInputParams(scope.params);
  if (!checked.ok) throw new WireError(ErrorCode.InvalidParams, `invalid ${METHOD}: ${checked.problems.join("; ")}`);
  const p = checked.value;
  const { signal } = scope.parent(p.parent_request_id);
  // Headless or unavailable: cancelled, never guessed (INPUT-06).
  if (!service) return { value: null };
  let value: string | null;
  try {
    const answer = service({ extension: g.name, prompt: p.prompt, secret: p.secret, signal });
    value = (await settleBy(answer, signal)) ?? null;
  } catch {
    value = null;
  }
  if (signal.aborted) {
    throw new WireError(ErrorCode.RequestCancelled, `${METHOD} cancelled: its parent settled or it was cancelled`);
  }
  if (value !== null && utf8ByteLength(value) > bounds.MAX_INPUT_VALUE_BYTES) {
    // The value itself is never put in a diagnostic: it may be secret (INPUT-05).
    const limit = `over the ${bounds.MAX_INPUT_VALUE_BYTES}-byte limit`;
    g.diagnose("warning", `${METHOD} answer dropped: ${utf8ByteLength(value)} bytes, ${limit}`);
    value = null;
  }
  return { value };
}
