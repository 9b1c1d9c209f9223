/**
 * A missing parent_request_id is refused like an inactive one, -32002 (REV-08), before the params
 * are validated; a present but malformed one is an invalid param (-32602).
 */
import { ErrorCode, WireError } from "@octet/protocol";

export function requireParent(method: string, params: unknown): void {
  const object = typeof params === "object" && params !== null && !Array.isArray(params);
  const parent = object ? (params as Record<string, unknown>)["parent_request_id"] : undefined;
  if (parent === undefined || parent === null) {
    const why = "parent_request_id is missing; it must name an active tool/call or command/execute";
    throw new WireError(ErrorCode.Unavailable, `${method} refused: ${why}`);
  }
}
