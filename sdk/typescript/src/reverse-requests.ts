/**
 * Operation-scoped reverse requests (W 2.2, 2.7): confirmation/request and input/request (and,
 * through parentOf and send, artifact/publish in artifacts.ts), sent
 * on behalf of the running host request. On API 0.2+ each carries that request's numeric id as
 * parent_request_id (REV-07), so it is refused here, before anything is sent, unless it comes
 * from an active tool/call or command/execute handler (the parent kinds the host accepts).
 *
 * A pending request is given up when its parent is cancelled: the helper rejects with the
 * cancellation, so a handler never waits on an answer nobody will give, and the host's late
 * answer is dropped by the peer (diagnosed by id only, never by value).
 */
import { ErrorCode, WireError, bounds, isPlainObject, utf8ByteLength } from "@octet/protocol";
import type { Link, RequestScope } from "./request-scope.js";
import type { ConfirmOptions, InputOptions } from "./types.js";

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

/** confirmation/request: true only for {confirmed: true}; a refusal by the host is a denial. */
export async function confirm(scope: RequestScope, link: Link, options: ConfirmOptions): Promise<boolean> {
  const params: Record<string, unknown> = {
    prompt: options.prompt,
    destructive: options.destructive ?? false,
    default: options.default ?? false,
  };
  if (options.detail !== undefined) params["detail"] = options.detail;
  // Frozen API 0.1 has no parent correlation: the request goes out as it always did.
  if (link.api !== "0.1") params["parent_request_id"] = parentOf(scope, "confirm");
  try {
    const answer = await send(scope, link, "confirmation/request", params);
    return isPlainObject(answer) && answer["confirmed"] === true;
  } catch (err) {
    if (err instanceof WireError) return false;
    throw err;
  }
}

/**
 * input/request (API 0.2+): the answer, or null when the frontend cancelled, cannot answer, or
 * the host refused the request for lack of one (INPUT-02, INPUT-06). A -32602 refusal means this
 * request itself was invalid, which is the author's to fix: it throws instead of reading as null.
 */
export async function input(scope: RequestScope, link: Link, options: InputOptions): Promise<string | null> {
  if (link.api === "0.1") throw new Error("input() needs API 0.2 or later (input/request is not part of API 0.1)");
  const prompt = options.prompt;
  if (typeof prompt !== "string" || prompt.trim() === "")
    throw new TypeError("input() needs a prompt with non-whitespace text");
  if (utf8ByteLength(prompt) > bounds.MAX_INPUT_PROMPT_BYTES) {
    throw new RangeError(
      `input() prompt is ${utf8ByteLength(prompt)} bytes, over the ${bounds.MAX_INPUT_PROMPT_BYTES}-byte limit`,
    );
  }
  if (options.secret !== undefined && typeof options.secret !== "boolean")
    throw new TypeError("input() secret must be a boolean");
  const params = { parent_request_id: parentOf(scope, "input"), prompt, secret: options.secret ?? false };
  try {
    const answer = await send(scope, link, "input/request", params);
    const value = isPlainObject(answer) ? answer["value"] : undefined;
    return typeof value === "string" ? value : null;
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    if (err.code === ErrorCode.InvalidParams) throw new Error(`the host refused input/request: ${err.message}`);
    return null;
  }
}

/** The numeric id of the active parent request (REV-07), or a local error saying what is wrong. */
export function parentOf(scope: RequestScope, what: string): number {
  if (!PARENT_METHODS.includes(scope.method)) {
    throw new Error(
      `${what}() is available only in a tool/call or command/execute handler on API 0.2+, not in ${scope.method}`,
    );
  }
  if (!scope.active)
    throw new Error(
      `${what}() was called after request ${String(scope.id)} was answered; it needs an active parent request`,
    );
  if (typeof scope.id !== "number")
    throw new Error(`${what}() needs a numeric parent request id, and the host sent ${JSON.stringify(scope.id)}`);
  return scope.id;
}

/** Sends the request and waits for the answer, giving it up if the parent is cancelled first. */
export async function send(scope: RequestScope, link: Link, method: string, params: unknown): Promise<unknown> {
  const signal = scope.signal;
  signal.throwIfAborted();
  const outgoing = link.peer.request(method, params);
  const onAbort = (): void => {
    link.peer.abandon(
      outgoing.id,
      "cancelled",
      signal.reason instanceof Error ? signal.reason : new Error("cancelled"),
    );
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await outgoing.result;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
