/**
 * The result rule the awaited session-operation hooks share (the model-turn hooks, TURN-10/11,
 * and the compaction hooks, WAVE1-40): the ordinary hook envelope narrowed to "go on", with a
 * veto only where the hook may cancel its operation (session_before_compact). Everything else an
 * ordinary hook may say is refused by name: a deny, another session_operation, a non-empty
 * context, a member an ordinary hook result does not have. One checker, so the two families
 * cannot drift apart in what they refuse or how they say it.
 */
import { member, isAbsent, readArray, readObject, readOneOf, refuse } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ExtensionNotification } from "./types.js";
import { checkNotifications } from "./validate-contributions.js";

const RESULT_MEMBERS = new Set(["disposition", "context", "notifications", "session_operation"]);

export interface OperationHookResult {
  notifications: ExtensionNotification[];
  /** The hook vetoed its operation (only when `cancellable`). */
  cancel: boolean;
}

/** `hook`'s result; `cancellable`: session_operation {action:"cancel"} vetoes the operation. */
export function checkOperationHookResult(
  value: unknown,
  hook: string,
  cancellable: boolean,
): Checked<OperationHookResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  for (const key of Object.keys(obj))
    if (!RESULT_MEMBERS.has(key)) p.add(key, `is not an effect ${hook} may have (an unrelated hook effect)`);
  const disposition = member(obj, "disposition");
  if (!isAbsent(disposition)) {
    const d = readObject(p, "disposition", disposition);
    const action = d === undefined ? undefined : member(d, "action");
    if (action === "deny")
      p.add(
        "disposition",
        cancellable
          ? `deny is refused in ${hook}: its veto is session_operation {"action":"cancel"}`
          : `deny is refused in ${hook}: it observes, it cannot veto`,
      );
    else if (d !== undefined) readOneOf(p, "disposition.action", action, ["continue"] as const);
  }
  const context = member(obj, "context");
  if (!isAbsent(context)) {
    const list = readArray(p, "context", context);
    if (list !== undefined && list.length > 0)
      p.add("context", `${list.length} contributions; ${hook} may contribute no prompt context`);
  }
  let cancel = false;
  const operation = member(obj, "session_operation");
  if (!isAbsent(operation)) {
    const op = readObject(p, "session_operation", operation);
    const action = op === undefined ? undefined : member(op, "action");
    const allowed = cancellable ? (["continue", "cancel"] as const) : (["continue"] as const);
    if ((action === "cancel" && !cancellable) || action === "replace_compaction")
      p.add(
        "session_operation",
        `action ${JSON.stringify(action)} is refused in ${hook}; only ${allowed.map((a) => `"${a}"`).join(" or ")} ` +
          "is allowed",
      );
    else if (op !== undefined) cancel = readOneOf(p, "session_operation.action", action, allowed) === "cancel";
  }
  const notifications = checkNotifications(p, "notifications", member(obj, "notifications"));
  if (!p.ok || notifications === undefined) return refuse(p);
  return { ok: true, value: { notifications, cancel } };
}
