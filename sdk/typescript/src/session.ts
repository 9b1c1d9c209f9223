/**
 * ctx.session and ext.session (W 2.21, feature session_entries): an extension's own entries in
 * the agent's session, its name and entry labels. Each call is parented to the running request:
 * a tool/call or command/execute handler, or a model_turn_start / model_turn_end hook while it is
 * awaited (the private append lane, W 1.4b TURN-08). The host answers only once the entry is
 * durable, with its real id.
 *
 * Everything is checked locally before anything is written, with the protocol's own validators
 * (WAVE1-29/30: entry_type 128 bytes, data 64 KiB of plain JSON, entry id 256 bytes, name and
 * label 4 KiB), and refused with a message that begins with bounds_exceeded or invalid_request.
 */
import {
  sessionEntriesRefusal,
  validateAppendEntryParams,
  validateAppendEntryResult,
  validateSetLabelParams,
  validateSetNameParams,
  type Checked,
} from "@octet/protocol";
import { send } from "./reverse-requests.js";
import { injectionApi } from "./message-injection.js";
import type { Link, RequestScope } from "./request-scope.js";
import type { SessionApi } from "./types.js";

export type { SessionApi } from "./types.js";

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];
/** Requests that run a model-turn hook: they parent session requests while they are active. */
const turnHookScopes = new WeakSet<RequestScope>();

/** Marks `scope` as running model_turn_start or model_turn_end (dispatch.ts). */
export function markTurnHook(scope: RequestScope): void {
  turnHookScopes.add(scope);
}

export function sessionApi(scope: () => RequestScope | undefined, link: () => Link | null): SessionApi {
  const call = async <P>(
    what: string,
    method: string,
    params: (parent: number) => Record<string, unknown>,
    validate: (v: unknown) => Checked<P>,
  ): Promise<unknown> => {
    const l = link();
    if (!l) throw new Error(`session.${what}() is available only after the host initialized the extension`);
    if (!l.features.has("session_entries"))
      throw new Error(
        `session.${what}() needs the session_entries feature, which the host did not offer (it binds no ` +
          "session writer: no agent session)",
      );
    const s = scope();
    if (!s) throw new Error(`session.${what}() must be called from a request handler (no request is running here)`);
    const parent = parentOf(s, what);
    const checked = validate(params(parent));
    if (!checked.ok)
      throw new RangeError(
        `${sessionEntriesRefusal(checked.problems)} session.${what}(): ${checked.problems.join("; ")}`,
      );
    return send(s, l, method, checked.value);
  };
  return {
    ...injectionApi(parentOf, scope, link),
    get available() {
      return link()?.features.has("session_entries") ?? false;
    },
    async appendEntry(entryType, data) {
      const answer = await call(
        "appendEntry",
        "session/append_entry",
        (parent) => ({ parent_request_id: parent, entry_type: entryType, data }),
        validateAppendEntryParams,
      );
      const checked = validateAppendEntryResult(answer);
      if (!checked.ok)
        throw new Error(`the host's session/append_entry answer is invalid: ${checked.problems.join("; ")}`);
      return checked.value.entry_id;
    },
    async setName(name) {
      await call(
        "setName",
        "session/set_name",
        (parent) => ({ parent_request_id: parent, name }),
        validateSetNameParams,
      );
    },
    async setLabel(entryId, label) {
      await call(
        "setLabel",
        "session/set_label",
        (parent) => ({ parent_request_id: parent, entry_id: entryId, label }),
        validateSetLabelParams,
      );
    },
  };
}

export function parentOf(scope: RequestScope, what: string): number {
  if (!PARENT_METHODS.includes(scope.method) && !turnHookScopes.has(scope))
    throw new Error(
      `session.${what}() is available in a tool/call or command/execute handler, or a model_turn_start / ` +
        `model_turn_end hook, not in ${scope.method}`,
    );
  if (!scope.active)
    throw new Error(
      `session.${what}() was called after request ${String(scope.id)} was answered; it needs an active parent`,
    );
  if (typeof scope.id !== "number")
    throw new Error(
      `session.${what}() needs a numeric parent request id, and the host sent ${JSON.stringify(scope.id)}`,
    );
  return scope.id;
}
