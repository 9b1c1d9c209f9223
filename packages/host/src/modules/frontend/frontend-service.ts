/**
 * One generation's composer, shortcuts and completion chain (W 2.19, W 2.20, W 2.24b).
 *
 * Composer (WAVE1-14..17): composer/get|set|insert act on the embedder's line editor, owner-scoped
 * like the session entries: parent_request_id must name a live tool/call or command/execute of
 * this generation (a live parent wins over resource_owner, WAVE1-10); with no live parent only the
 * exact issued owner triple is admitted (WAVE1-11); anything else is -32002 not_foreground_owner.
 * Without an interactive frontend (a pipe) every method is refused: nothing is faked (ACMP-01).
 *
 * Shortcuts (WAVE1-21..25): shortcut/register is admitted only while its parent, the initialize
 * request, is in flight (the generation names it as an active "initialize" parent), at most 64,
 * a duplicate id or key is refused. Registrations stay provisional until the initialize answer
 * selects `shortcuts`; then they are live until the generation ends. A trigger is sent only for a
 * live registration of a ready generation, so an unknown, refused or stale id fails closed.
 *
 * Registrations are kept by extension name and issued owner (instance id and generation): what
 * the embedder's view of a ready generation (its name, context(true).resource_owner) shares.
 */
import {
  ErrorCode,
  MAX_SHORTCUTS,
  SHORTCUT_TRIGGER,
  WireError,
  parseShortcutKey,
  sessionEntriesRefusal,
  validateAutocompleteRegisterParams,
  validateComposerGetParams,
  validateComposerTextParams,
  validateShortcutRegisterParams,
  type Checked,
  type ResourceOwner,
  type ShortcutKey,
} from "@octet/protocol";
import type { ChildRequestScope, GenerationService, ServiceGeneration } from "../module.js";
import type { RequestTarget } from "../target.js";

/** What the embedder binds as `services.frontend`: its line editor. */
export interface FrontendService {
  /** True while a person types at an interactive line editor; false over a pipe or while suspended. */
  interactive(): boolean;
  /** The composer: the editor's current line, replaced or inserted into at its cursor. */
  composer: {
    get(): string;
    set(text: string): void;
    insert(text: string): void;
  };
}

export interface LiveShortcut {
  extension: string;
  generation: number;
  id: string;
  key: ShortcutKey;
  description: string;
}

interface GenState {
  name: string;
  number: number;
  shortcuts: Map<string, LiveShortcut>;
  /** False until initialize selected `shortcuts`: until then a trigger is never sent. */
  shortcutsLive: boolean;
  /** The latest admitted ui/autocomplete/register revision; null when no chain is registered. */
  autocomplete: number | null;
  notify?: (method: string, params: Record<string, unknown>) => unknown;
}

/** Every live generation's state, by owner key; process-wide so the embedder's view can find it. */
const STATES = new Map<string, GenState>();

/** The host's instance id is shared by its extensions: the name and generation make the key unique. */
function stateKey(name: string, owner: ResourceOwner | undefined): string {
  return owner === undefined ? "" : `${name}\n${owner.extension_instance_id}#${owner.process_generation}`;
}

/** The state of a ready generation as the embedder sees it, or undefined. */
export function stateOf(t: RequestTarget): GenState | undefined {
  return STATES.get(stateKey(t.name, t.context(true).resource_owner));
}

const PARENTS: readonly string[] = ["tool/call", "command/execute"];

export class FrontendHub {
  readonly #service: FrontendService;

  constructor(service: FrontendService) {
    for (const m of ["get", "set", "insert"] as const)
      if (typeof service.composer?.[m] !== "function")
        throw new TypeError(`services.frontend.composer.${m} must be a function`);
    if (typeof service.interactive !== "function")
      throw new TypeError("services.frontend.interactive must be a function");
    this.#service = service;
  }

  static live(ready: readonly RequestTarget[]): LiveShortcut[] {
    const out: LiveShortcut[] = [];
    for (const t of ready) {
      const s = stateOf(t);
      if (s?.shortcutsLive && t.features.includes("shortcuts")) out.push(...s.shortcuts.values());
    }
    return out;
  }

  static trigger(ready: readonly RequestTarget[], shortcut: LiveShortcut): boolean {
    const t = ready.find((r) => r.name === shortcut.extension && r.number === shortcut.generation);
    const s = t === undefined ? undefined : stateOf(t);
    if (!t || !s || !s.shortcutsLive || !t.features.includes("shortcuts")) return false;
    if (s.shortcuts.get(shortcut.id) === undefined || s.notify === undefined) return false;
    s.notify(SHORTCUT_TRIGGER.method, { id: shortcut.id });
    return true;
  }

  open(g: ServiceGeneration): GenerationService {
    const key = stateKey(g.name, g.owner());
    const state: GenState = {
      name: g.name,
      number: g.number,
      shortcuts: new Map(),
      shortcutsLive: false,
      autocomplete: null,
      ...(g.notify ? { notify: g.notify } : {}),
    };
    STATES.set(key, state);
    const frontend = this.#service;
    const interactive = (method: string): void => {
      if (!frontend.interactive())
        throw new WireError(
          ErrorCode.Unavailable,
          `unavailable ${method} refused: there is no interactive frontend (input is not a terminal)`,
        );
    };
    const composer =
      <P extends { parent_request_id: number; resource_owner?: ResourceOwner }>(
        validate: (v: unknown) => Checked<P>,
        run: (p: P) => unknown,
      ) =>
      async (scope: ChildRequestScope): Promise<unknown> => {
        const p = checked(scope.method, validate(scope.params));
        const parent = g.activeRequest(p.parent_request_id);
        if (!(parent !== undefined && PARENTS.includes(parent.method))) {
          if (p.resource_owner === undefined || !sameOwner(p.resource_owner, g.owner()))
            throw notOwner(
              scope.method,
              p.resource_owner === undefined
                ? `parent_request_id ${p.parent_request_id} is not an active tool/call or command/execute`
                : "resource_owner is not the owner issued to this extension's process",
            );
        }
        interactive(scope.method);
        return run(p);
      };
    return {
      features: ["composer", "shortcuts", "autocomplete", ...(g.api === "0.4" ? ["autocomplete_edit_v1"] : [])],
      requests: {
        "composer/get": composer(validateComposerGetParams, () => ({ text: frontend.composer.get() })),
        "composer/set": composer(validateComposerTextParams, (p) => {
          frontend.composer.set(p.text);
          return {};
        }),
        "composer/insert": composer(validateComposerTextParams, (p) => {
          frontend.composer.insert(p.text);
          return {};
        }),
        "shortcut/register": async (scope) => {
          const p = checked(scope.method, validateShortcutRegisterParams(scope.params));
          if (g.activeRequest(p.parent_request_id)?.method !== "initialize")
            throw notOwner(scope.method, "shortcuts are registered only inside the initialize request (WAVE1-24)");
          if (state.shortcuts.size >= MAX_SHORTCUTS)
            throw refused("bounds_exceeded", `${scope.method}: ${MAX_SHORTCUTS} shortcuts, the limit, are registered`);
          if (state.shortcuts.has(p.id))
            throw refused("invalid_request", `${scope.method}: id "${p.id}" is a duplicate`);
          const key = (parseShortcutKey(p.key) as { key: ShortcutKey }).key;
          for (const s of state.shortcuts.values())
            if (s.key.canonical === key.canonical)
              throw refused("invalid_request", `${scope.method}: key ${key.canonical} is already registered`);
          state.shortcuts.set(p.id, {
            extension: g.name,
            generation: g.number,
            id: p.id,
            key,
            description: p.description,
          });
          return {};
        },
        "ui/autocomplete/register": async (scope) => {
          const p = checked(scope.method, validateAutocompleteRegisterParams(scope.params));
          interactive(scope.method);
          state.autocomplete = p.revision;
          return { accepted: true };
        },
      },
      negotiated: (features) => {
        state.shortcutsLive = features.includes("shortcuts");
        if (!state.shortcutsLive) state.shortcuts.clear();
        if (!features.includes("autocomplete")) state.autocomplete = null;
      },
      dispose: () => {
        state.shortcuts.clear();
        state.shortcutsLive = false;
        state.autocomplete = null;
        STATES.delete(key);
      },
    };
  }
}

function sameOwner(a: ResourceOwner, b: ResourceOwner): boolean {
  return (
    a.session_id === b.session_id &&
    a.extension_instance_id === b.extension_instance_id &&
    a.process_generation === b.process_generation
  );
}

function checked<P>(method: string, c: Checked<P>): P {
  if (c.ok) return c.value;
  throw refused(sessionEntriesRefusal(c.problems), `${method}: ${c.problems.join("; ")}`);
}

function refused(token: "bounds_exceeded" | "invalid_request", message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `${token} ${message}`);
}

function notOwner(method: string, why: string): WireError {
  return new WireError(ErrorCode.Unavailable, `not_foreground_owner ${method} refused: ${why}`);
}
