/**
 * The interactive frontend from an extension (W 2.19, W 2.20, W 1.11, W 2.24b):
 *
 * - ctx.composer.get/set/insert: the host's prompt line, parented to the running tool/call or
 *   command/execute. Text is checked locally first (256 KiB, no controls but LF/TAB, no lone
 *   surrogate) and refused with bounds_exceeded / invalid_request before anything is written.
 * - ext.shortcut(key, handler, description): registered before run(); the SDK sends
 *   shortcut/register inside the initialize request (its id as parent_request_id, WAVE1-24), one
 *   per shortcut, with the canonical key as a stable id. A shortcut the host refuses stays
 *   unavailable; a shortcut/trigger for an id with no live registration runs nothing (WAVE1-03).
 * - ext.autocomplete(handler): with autocomplete negotiated the SDK sends ui/autocomplete/register
 *   once initialize is answered and answers ui/autocomplete/complete with the handler's items,
 *   checked against the exact request before they are sent (ACMP-03..12).
 */
import {
  AUTOCOMPLETE_REGISTER,
  ErrorCode,
  MAX_SHORTCUTS,
  SHORTCUT_REGISTER,
  WireError,
  parseShortcutKey,
  sessionEntriesRefusal,
  validateAutocompleteCompleteParams,
  validateAutocompleteResult,
  validateComposerGetParams,
  validateComposerGetResult,
  validateComposerTextParams,
  validateShortcutRegisterParams,
  validateShortcutTriggerParams,
  type Checked,
} from "@octet/protocol";
import { send } from "./reverse-requests.js";
import type { Link, RequestScope } from "./request-scope.js";
import type { ComposerApi } from "./types.js";

export type { ComposerApi } from "./types.js";

export type ShortcutHandler = () => void | Promise<void>;

export interface AutocompleteQuery {
  text: string;
  /** UTF-8 byte offset of the cursor in text. */
  cursor: number;
  revision: number;
}
export interface AutocompleteChoice {
  value: string;
  label: string;
  description?: string | null;
  /** autocomplete_edit_v1 (API 0.4): bytes after the cursor that the value replaces too. */
  replaceAfterBytes?: number;
  /** autocomplete_edit_v1: where the cursor lands, in bytes within value. */
  cursorOffsetBytes?: number;
}
/** The suffix of text before the cursor that the choices replace, and the choices; null = no claim. */
export type AutocompleteAnswer = { prefix: string; items: AutocompleteChoice[] } | null;
export type AutocompleteHandler = (q: AutocompleteQuery) => AutocompleteAnswer | Promise<AutocompleteAnswer>;

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];
const REGISTER_RETRIES = 20;

export function composerApi(scope: () => RequestScope | undefined, link: () => Link | null): ComposerApi {
  const call = async <P>(
    what: string,
    method: string,
    params: Record<string, unknown>,
    v: (x: unknown) => Checked<P>,
  ) => {
    const l = link();
    if (!l) throw new Error(`composer.${what}() is available only after the host initialized the extension`);
    if (!l.features.has("composer"))
      throw new Error(`composer.${what}() needs the composer feature, which the host did not offer (no line editor)`);
    const s = scope();
    if (!s || !PARENT_METHODS.includes(s.method) || !s.active || typeof s.id !== "number")
      throw new Error(`composer.${what}() must be called from an active tool/call or command/execute handler`);
    const checked = v({ parent_request_id: s.id, ...params });
    if (!checked.ok)
      throw new WireError(
        ErrorCode.InvalidParams,
        `${sessionEntriesRefusal(checked.problems)} composer.${what}(): ${checked.problems.join("; ")}`,
      );
    return send(s, l, method, checked.value);
  };
  return {
    get available() {
      return link()?.features.has("composer") ?? false;
    },
    async get() {
      const answer = validateComposerGetResult(await call("get", "composer/get", {}, validateComposerGetParams));
      if (!answer.ok) throw new Error(`the host's composer/get answer is invalid: ${answer.problems.join("; ")}`);
      return answer.value.text;
    },
    async set(text) {
      await call("set", "composer/set", { text }, validateComposerTextParams);
    },
    async insert(text) {
      await call("insert", "composer/insert", { text }, validateComposerTextParams);
    },
  };
}

interface Shortcut {
  id: string;
  key: string;
  description: string;
  handler: ShortcutHandler;
  /**
   * "sent" until the host answers, then "live" or "refused". A trigger may arrive in the same read
   * as the answer (before its callback runs): only a host that admitted the id sends one, so
   * "sent" is triggerable; "refused" and never-sent shortcuts are not (WAVE1-23).
   */
  state: "unsent" | "sent" | "live" | "refused";
}

/** ext.shortcut and ext.autocomplete: what was registered, and the wire side of both. */
export class FrontendRegistry {
  readonly #shortcuts = new Map<string, Shortcut>();
  #autocomplete: AutocompleteHandler | null = null;
  #started = false;

  get wantsShortcuts(): boolean {
    return this.#shortcuts.size > 0;
  }
  get wantsAutocomplete(): boolean {
    return this.#autocomplete !== null;
  }

  /** Checks locally (key syntax, bounds, 64 at most, a handler) and returns the stable id. */
  addShortcut(key: string, handler: ShortcutHandler, description = ""): string {
    if (this.#started)
      throw new Error("shortcut() must be called before run(): shortcuts are registered in initialize");
    if (typeof handler !== "function") throw new TypeError(`shortcut("${key}") needs a handler function (WAVE1-25)`);
    const parsed = parseShortcutKey(key);
    if (!parsed.ok) throw new TypeError(`invalid_request shortcut(): ${parsed.problem}`);
    const id = `key:${parsed.key.canonical}`;
    if (this.#shortcuts.has(id))
      throw new TypeError(`invalid_request shortcut(): ${parsed.key.canonical} is registered twice`);
    if (this.#shortcuts.size >= MAX_SHORTCUTS)
      throw new RangeError(`bounds_exceeded shortcut(): ${MAX_SHORTCUTS} shortcuts is the limit`);
    const checked = validateShortcutRegisterParams({ parent_request_id: 0, id, key, description });
    if (!checked.ok)
      throw new RangeError(`${sessionEntriesRefusal(checked.problems)} shortcut(): ${checked.problems.join("; ")}`);
    this.#shortcuts.set(id, { id, key: parsed.key.canonical, description, handler, state: "unsent" });
    return id;
  }

  setAutocomplete(handler: AutocompleteHandler): void {
    if (this.#started) throw new Error("autocomplete() must be called before run()");
    if (typeof handler !== "function") throw new TypeError("autocomplete() needs a handler function");
    this.#autocomplete = handler;
  }

  /** Inside initialize (before its answer is written): one shortcut/register per shortcut. */
  registerShortcuts(link: Link, initializeId: unknown): void {
    this.#started = true;
    if (!link.features.has("shortcuts") || typeof initializeId !== "number") return;
    for (const s of this.#shortcuts.values()) {
      const params = { parent_request_id: initializeId, id: s.id, key: s.key, description: s.description };
      s.state = "sent";
      link.peer.request(SHORTCUT_REGISTER.method, params).result.then(
        () => (s.state = "live"),
        (err: unknown) => {
          s.state = "refused";
          warn(`shortcut ${s.key} was refused by the host and is unavailable: ${message(err)}`);
        },
      );
    }
  }

  /** After the initialize answer: ui/autocomplete/register, retried while the host is still starting. */
  registerAutocomplete(link: Link): void {
    this.#started = true;
    if (this.#autocomplete === null || !link.features.has("autocomplete")) return;
    const attempt = (left: number): void => {
      link.peer.request(AUTOCOMPLETE_REGISTER.method, { revision: 0 }).result.catch((err: unknown) => {
        // The answer to initialize and this request can reach the host together: "not ready" is retried.
        if (left > 0 && /not ready/.test(message(err))) setTimeout(() => attempt(left - 1), 25);
        else warn(`ui/autocomplete/register was refused: ${message(err)}`);
      });
    };
    setImmediate(() => attempt(REGISTER_RETRIES));
  }

  /** shortcut/trigger {id}: the handler of a live registration, else nothing (fail closed). */
  trigger(params: unknown): void {
    const checked = validateShortcutTriggerParams(params);
    const s = checked.ok ? this.#shortcuts.get(checked.value.id) : undefined;
    if (s === undefined || (s.state !== "sent" && s.state !== "live")) return;
    Promise.resolve()
      .then(() => s.handler())
      .catch((err: unknown) => warn(`shortcut ${s.key} handler failed: ${message(err)}`));
  }

  /** ui/autocomplete/complete: the handler's answer, validated against this exact request. */
  async complete(params: unknown, link: Link | null): Promise<unknown> {
    if (!link?.features.has("autocomplete") || this.#autocomplete === null)
      throw new WireError(ErrorCode.MethodNotFound, "ui/autocomplete/complete: no autocomplete handler is registered");
    const q = validateAutocompleteCompleteParams(params);
    if (!q.ok) throw new WireError(ErrorCode.InvalidParams, `ui/autocomplete/complete: ${q.problems.join("; ")}`);
    const answer = await this.#autocomplete(q.value);
    const wire = {
      prefix: answer?.prefix ?? "",
      items: (answer?.items ?? []).map((i) => ({
        value: i.value,
        label: i.label,
        description: i.description ?? null,
        ...(i.replaceAfterBytes !== undefined ? { replace_after_bytes: i.replaceAfterBytes } : {}),
        ...(i.cursorOffsetBytes !== undefined ? { cursor_offset_bytes: i.cursorOffsetBytes } : {}),
      })),
    };
    const checked = validateAutocompleteResult(wire, q.value, link.features.has("autocomplete_edit_v1"));
    if (!checked.ok)
      throw new WireError(
        ErrorCode.InternalError,
        `${sessionEntriesRefusal(checked.problems)} autocomplete handler answer: ${checked.problems.join("; ")}`,
      );
    return checked.value;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function warn(text: string): void {
  process.stderr.write(`octet-extension: ${text.slice(0, 1024)}\n`);
}
