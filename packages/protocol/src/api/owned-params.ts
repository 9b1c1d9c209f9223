/**
 * The owner members every parented Wave-1 request carries (W 2 "Optional Wave-1 resource_owner",
 * WAVE1-09): parent_request_id and an optional resource_owner triple. Shared by the validators of
 * session entries, message injection and the frontend requests, so the three read it one way.
 */
import { isAbsent, member, readInteger, readObject, readString } from "../validate/fields.js";
import type { Problems } from "../validate/kit.js";
import type { ResourceOwner } from "./types.js";

export interface Owned {
  parent_request_id: number;
  resource_owner?: ResourceOwner;
}

/** Reads the owner members of `value` (an object), adding problems to `p`; undefined when unusable. */
export function readOwned(p: Problems, value: unknown): Owned | undefined {
  const obj = readObject(p, "", value);
  if (obj === undefined) return undefined;
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const rawOwner = member(obj, "resource_owner");
  let owner: ResourceOwner | undefined;
  if (!isAbsent(rawOwner)) {
    const o = readObject(p, "resource_owner", rawOwner);
    if (o !== undefined) {
      const session = readString(p, "resource_owner.session_id", member(o, "session_id"));
      const instance = readString(p, "resource_owner.extension_instance_id", member(o, "extension_instance_id"));
      const gen = readInteger(p, "resource_owner.process_generation", member(o, "process_generation"), 0);
      if (session !== undefined && instance !== undefined && gen !== undefined)
        owner = { session_id: session, extension_instance_id: instance, process_generation: gen };
    }
  }
  if (parent === undefined) return undefined;
  return owner === undefined ? { parent_request_id: parent } : { parent_request_id: parent, resource_owner: owner };
}
