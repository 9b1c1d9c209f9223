/**
 * FRAME-01 as the conformance kit (`octet check`) and the conformance transcripts' runner both
 * read an extension's stdout: each frame a JSON-RPC 2.0 envelope, and each response answering one
 * request the host sent, once. One rule, so the two cannot come to disagree about a frame.
 */
type Frame = Record<string, unknown>;

/**
 * Why `f` breaks the envelope, or null. A response is matched against `sent` and recorded in
 * `answered`; a request or notification is passed on to `request` (the runner's correlation
 * rules) when it is well formed.
 */
export function envelopeProblem(
  f: Frame,
  sent: ReadonlySet<number | string>,
  answered: Set<number | string>,
  request?: (f: Frame) => string | null,
): string | null {
  if (f["jsonrpc"] !== "2.0") return `a frame without "jsonrpc":"2.0"`;
  const id = f["id"];
  const idOk = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if ("method" in f) {
    if (typeof f["method"] !== "string") return "a frame whose method is not a string";
    if ("result" in f || "error" in f) return "a request or notification that also carries result or error";
    if ("id" in f && !idOk) return "a request whose id is neither a string nor an integer";
    if ("params" in f && (typeof f["params"] !== "object" || f["params"] === null))
      return "a frame whose params is neither an object nor an array";
    return request?.(f) ?? null;
  }
  if (!("id" in f)) return "a frame with neither method nor id";
  if ("result" in f === "error" in f) return "a response that does not carry exactly one of result and error";
  if ("error" in f) {
    const e = f["error"] as Frame | null;
    if (typeof e !== "object" || e === null || !Number.isInteger(e["code"]) || typeof e["message"] !== "string")
      return "an error response whose error is not {code: integer, message: string}";
  }
  if (id === null) return "error" in f ? null : "a result response with id null";
  if (!idOk) return "a response whose id is neither a string nor an integer";
  const key = id as number | string;
  if (!sent.has(key)) return `a response to id ${JSON.stringify(id)}, which names no request the host sent`;
  if (answered.has(key)) return `a second response to request ${JSON.stringify(id)}`;
  answered.add(key);
  return null;
}
