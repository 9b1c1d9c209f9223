/**
 * $/cancelRequest params (CANCEL-01, CANCEL-09, CANCEL-11), in both directions: the host cancels
 * one of its requests, an extension one of its own child requests. Owns the shape and the reason
 * bound; which ids may be cancelled, tombstones and the grace period are the RPC engine's and the
 * host's. The params are open (FRAME-15).
 */
import { MAX_CANCEL_REASON_BYTES } from "../bounds.js";
import { checkId, type JsonRpcId } from "../jsonrpc.js";
import { isAbsent, member, readObject, readString, refuse } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { CancelReason, CancelRequestParams } from "./types-v02.js";

/**
 * The reasons the host sends (CANCEL-11, GAP default). A receiver must accept any other short
 * string as well: the vocabulary is the host's, and a newer host may add to it.
 */
export const CANCEL_REASONS = [
  "user",
  "timeout",
  "parent_settled",
  "shutdown",
  "reload",
] as const satisfies readonly CancelReason[];

/** $/cancelRequest params: an id by the REV-02 rules and an optional reason of at most 256 bytes. */
export function validateCancelParams(value: unknown): Checked<CancelRequestParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const id = member(obj, "id");
  const idProblem = id === undefined ? "missing; expected an unsigned integer or a string" : checkId(id);
  if (idProblem !== null) p.add("id", idProblem);
  const raw = member(obj, "reason");
  const reason = isAbsent(raw) ? null : readString(p, "reason", raw, { maxBytes: MAX_CANCEL_REASON_BYTES });
  if (!p.ok || reason === undefined) return refuse(p);
  return { ok: true, value: { id: id as JsonRpcId, reason } };
}
