/**
 * Prelude part: the ctx every handler gets (makeContext), shaped like pi's (a plain object whose
 * members are its own). Its data members are set per invocation; the members made from the
 * invocation (its methods, ui, modelRegistry, sessionManager) are own accessors shared by every
 * ctx and made on first read, because creating some twenty closures per invocation was about a
 * sixth of a QuickJS call; the invocation's state sits behind a private field, out of the
 * extension's reach. Runs after api.ts (makeUi, action, withOptional, treeOptions) and session.ts.
 */
export const CTX_JS = String.raw`
// A lazily built ctx member becomes a data property holding the value (a frozen ctx keeps its accessor).
function settle(object, key, value) {
  try {
    put(object, key, value);
  } catch (_) {
    // Not extensible or not configurable any more: the value is still the answer to this read.
  }
  return value;
}

// The snapshot's value for key, else the host hello's.
function pickOf(snap, key) {
  return snap[key] !== undefined && snap[key] !== null ? snap[key] : (session !== null ? session[key] : undefined);
}
function commandOnly(state, api, body) {
  return state.isCommand ? action(api, body, state.owner)
    : promiseReject(fail(api + " is only available to command handlers (pi's ExtensionCommandContext)", "unsupported"));
}
// pi's ReplacedSessionContext for withSession: a command ctx with async sendMessage/sendUserMessage.
// Asked under this command (its live request), not the owner issued for the replaced session.
function freshContext(state) {
  const owner = state.owner;
  return objectAssign(makeContext(state.inv, state.snap, true), {
    sendMessage: (message, options) => action("pi.sendMessage", withOptional({ kind: "send_message",
      message: message }, "options", options), owner),
    sendUserMessage: (content, options) => action("pi.sendUserMessage", withOptional({ kind: "send_user_message",
      content: content }, "options", options), owner),
  });
}
function replacing(state, api, body, options) {
  return state.isCommand ? replaceSession(api, body, options, state.owner, () => freshContext(state))
    : commandOnly(state, api, body);
}
function ctxCompact(owner, options) {
  const instructions = typeof options === "string" ? options
    : isObject(options) && typeof options.customInstructions === "string" ? options.customInstructions : undefined;
  const done = action("ctx.compact", withOptional({ kind: "compact" }, "customInstructions", instructions), owner);
  if (isObject(options) && (typeof options.onComplete === "function" || typeof options.onError === "function")) {
    promiseThen(done,
      (value) => { if (typeof options.onComplete === "function") options.onComplete(value); },
      (error) => { if (typeof options.onError === "function") options.onError(error); });
  }
  return done;
}
// The session the host's session layer mirrors (session.ts); without one these say so. They read
// no invocation, so every ctx holds the same four functions.
const CTX_SHARED = {
  __proto__: null,
  isIdle: () => {
    if (mirror === null) throw fail("ctx.isIdle needs a session: this host runs none", "unsupported");
    return mirror.idle;
  },
  hasPendingMessages: () => mirror !== null && mirror.pendingMessages,
  getContextUsage: () => (mirror === null ? undefined : mirror.contextUsage),
  getSystemPrompt: () => {
    if (mirror === null) throw fail("ctx.getSystemPrompt needs a session: this host runs none", "unsupported");
    return mirror.systemPrompt;
  },
};
// The members made from the invocation on first read. A ctx has them as its own accessors, one
// shared pair per member (not a closure per member per call: some twenty closures were about a
// sixth of a QuickJS call's CPU); the first read, or an assignment, leaves a plain data property
// in the member's place, as if a literal had held the value. ui, modelRegistry and sessionManager
// are some sixty closures a call, and most handlers read none of them.
const CTX_STATE = Symbol("octet ctx");
const CTX_LAZY = {
  __proto__: null,
  ui: (state) => makeUi(state.owner),
  modelRegistry: () => makeModelRegistry(),
  isProjectTrusted: (state) => () => state.trusted,
  abort: (state) => () => action("ctx.abort", { kind: "abort" }, state.owner),
  shutdown: (state) => () => action("ctx.shutdown", { kind: "shutdown" }, state.owner),
  compact: (state) => (options) => ctxCompact(state.owner, options),
  waitForIdle: (state) => () => commandOnly(state, "ctx.waitForIdle", { kind: "wait_for_idle" }),
  reload: (state) => () => commandOnly(state, "ctx.reload", { kind: "reload" }),
  // pi's session replacement (ExtensionCommandContext): session/switch on the wire, answered
  // {cancelled} by the bridge; withSession runs here as for newSession (session.ts replaceSession).
  switchSession: (state) => (sessionPath, options) => replacing(state, "ctx.switchSession",
    { kind: "switch_session", sessionPath: String(sessionPath) }, options),
  // newSession, fork, navigateTree: the session layer's (session.ts replaceSession); options carry
  // only data here (the setup and withSession callbacks run in this instance).
  newSession: (state) => (options) => replacing(state, "ctx.newSession", withOptional({ kind: "new_session" },
    "parentSession", isObject(options) && typeof options.parentSession === "string" ? options.parentSession
      : undefined), options),
  fork: (state) => (entryId, options) => replacing(state, "ctx.fork", { kind: "fork", entryId: String(entryId),
    position: isObject(options) && options.position === "at" ? "at" : "before" }, options),
  navigateTree: (state) => (targetId, options) => replacing(state, "ctx.navigateTree",
    objectAssign({ kind: "navigate_tree", targetId: String(targetId) }, treeOptions(options)), options),
  sessionManager: (state) => makeSessionManager(pickOf(state.snap, "cwd")),
};
// An invocation's state behind a frozen holder whose only field is private: the slot a ctx (or a
// copy of its descriptors) carries gives extension code nothing to read, freeze or change.
let ctxStateOf = null;
class CtxState {
  #state;
  constructor(state) {
    this.#state = state;
    freeze(this);
  }
  static {
    ctxStateOf = (holder) => (holder !== null && typeof holder === "object" && #state in holder ? holder.#state
      : undefined);
  }
}
function stateOfCtx(ctx, key) {
  const state = ctx === null || typeof ctx !== "object" ? undefined : ctxStateOf(ctx[CTX_STATE]);
  if (state === undefined) {
    throw new TypeError("ctx." + key + " was read from an object that is not a handler's ctx (copy a ctx with " +
      "its symbol members, as Object.getOwnPropertyDescriptors does)");
  }
  return state;
}
// A member made once per ctx: reads stay the same value even where the ctx cannot take it as a
// data property (sealed or frozen); a made function is named after its member, as in a literal.
function madeMember(state, key) {
  if (hasOwnProperty(state.made, key)) return state.made[key];
  const value = CTX_LAZY[key](state);
  if (typeof value === "function") {
    defineProperty(value, "name", { __proto__: null, value: key, configurable: true });
  }
  state.made[key] = value;
  return value;
}
const CTX_ACCESSORS = {
  __proto__: null,
  model: {
    __proto__: null,
    enumerable: true,
    configurable: true,
    get() {
      const snap = stateOfCtx(this, "model").snap;
      if (snap.model === null || snap.model === undefined) return undefined;
      const full = isObject(snap.model) ? findModel(snap.model.provider, snap.model.id) : undefined;
      return full === undefined ? snap.model : modelCopy(full);
    },
  },
};
{
  const names = objectKeys(CTX_LAZY);
  for (let i = 0; i < names.length; i++) {
    const key = names[i];
    put(CTX_ACCESSORS, key, {
      __proto__: null,
      enumerable: true,
      configurable: true,
      get() {
        return settle(this, key, madeMember(stateOfCtx(this, key), key));
      },
      // An assignment is kept where the ctx can hold it, else in the invocation's state (a sealed
      // ctx still takes it); a frozen ctx refuses it, as its data property would have.
      set(value) {
        const state = stateOfCtx(this, key);
        if (isFrozen(this)) throw new TypeError("ctx." + key + " is read-only: the ctx is frozen");
        state.made[key] = value;
        settle(this, key, value);
      },
    });
  }
}

// The ctx of one invocation: its snapshot (falling back to the host hello), its signal, its UI.
function makeContext(inv, snap, isCommand) {
  const mode = pickOf(snap, "mode");
  const state = new CtxState({ inv: inv, snap: snap, isCommand: isCommand, owner: inv.id,
    trusted: pickOf(snap, "projectTrusted") === true, made: { __proto__: null } });
  const ctx = {
    hasUI: mode === "tui" || mode === "rpc",
    cwd: pickOf(snap, "cwd"),
    mode: mode,
    signal: inv.controller.signal,
    isIdle: CTX_SHARED.isIdle,
    hasPendingMessages: CTX_SHARED.hasPendingMessages,
    getContextUsage: CTX_SHARED.getContextUsage,
    getSystemPrompt: CTX_SHARED.getSystemPrompt,
  };
  defineProperty(ctx, CTX_STATE, { __proto__: null, value: state });
  return defineProperties(ctx, CTX_ACCESSORS);
}
`;
