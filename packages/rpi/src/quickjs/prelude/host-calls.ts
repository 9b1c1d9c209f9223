/**
 * Prelude part 3 of 6: the extension's own requests to the host, i.e. ctx.ui (QJS-11, QJS-12)
 * and the session actions (QJS-10, RPI-38, RPI-39), and the host's answers to them.
 *
 * Contracts:
 * - A request is `{type:"request", id:"e<N>", request}`; the host answers with a `response` of the
 *   same id. `request.parentId` is the `owner` when there is one. An `owner` (the host request id of
 *   the invocation whose ctx made the call) lets a host `cancel` of that invocation withdraw its open
 *   requests: a `cancel` frame for each, and the request settles as cancelled. A dialog's
 *   `opts.signal` withdraws it the same way.
 * - Grants are checked here, before anything is sent: the `ui` capability plus the method's
 *   uiCapability (none for the query and theme methods). pi's synchronous methods (notify,
 *   setStatus, setWidget, setTitle, setEditorText) throw; the others reject.
 * - At most MAX_PENDING_REQUESTS requests await an answer; past it one is refused without a frame
 *   (thrown or rejected like any refusal).
 * - Actions need `session_actions` and the end of the load phase; refused ones reject without a
 *   frame. An error answer rejects with an Error carrying the host's message (and `code`).
 * - Cancelled dialogs resolve as pi's dismissed ones: select/input/editor undefined, confirm
 *   false; cancelled queries resolve to their empty value; a cancelled action rejects.
 */
import { MAX_EXTENSION_REQUESTS } from "../../protocol/frames.js";

export const HOST_CALLS_JS = String.raw`
// Sends a request and resolves with the host's result object (never rejects). A frame that cannot
// be sent resolves as an error result, or throws when "throws" is set (pi's synchronous methods).
// Requests awaiting the host's answer at once. Answers arrive only between the extension's runs,
// so a synchronous loop of ctx.ui.notify would otherwise hold one pending entry per call until
// the VM's heap is full (issue 13a); past this bound a request is refused at once.
const MAX_PENDING_REQUESTS = ${MAX_EXTENSION_REQUESTS};
function hostCall(request, what, owner, signal, throws) {
  const id = "e" + nextRequest++;
  // Name the invocation this is asked for, so the host puts a dialog under the right call.
  if (typeof owner === "string") put(request, "parentId", owner);
  let problem = phase === "closed" ? "the extension has shut down" : null;
  if (problem === null && mapSize(pending) >= MAX_PENDING_REQUESTS) {
    problem = what + " was not sent: " + MAX_PENDING_REQUESTS + " requests are already awaiting the host's answer " +
      "(the most one extension may have outstanding); the host answers between runs, so let the loop yield (await) " +
        "now and then";
    warnOnce("pending", problem);
  }
  if (problem === null) problem = trySend({ type: "request", id: id, request: request }, what);
  if (problem !== null) {
    if (throws) throw fail(problem);
    return promiseResolve(failure(problem));
  }
  return new Promise((resolve) => {
    const watch = signal !== undefined && signal !== null && typeof signal.addEventListener === "function";
    const onAbort = () => withdraw(id);
    const entry = {
      owner: owner,
      settle: (result) => {
        if (mapGet(pending, id) !== entry) return;
        mapDelete(pending, id);
        if (watch) signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
    };
    mapSet(pending, id, entry);
    if (watch) {
      if (signal.aborted) withdraw(id);
      else signal.addEventListener("abort", onAbort);
    }
  });
}
function withdraw(id) {
  const entry = mapGet(pending, id);
  if (entry === undefined) return;
  trySend({ type: "cancel", id: id }, "a cancel frame");
  entry.settle({ status: "cancelled" });
}
function withdrawOwnedBy(owner) {
  const ids = [];
  mapForEach(pending, (entry, id) => { if (entry.owner === owner) append(ids, id); });
  for (let i = 0; i < ids.length; i++) withdraw(ids[i]);
}
function onResponse(frame) {
  const entry = mapGet(pending, frame.id);
  if (entry !== undefined) entry.settle(isObject(frame.result) ? frame.result : failure("the host sent a malformed " +
    "result"));
}
// The success value (null reads as undefined), or throws the host's error.
function unwrap(result) {
  if (result.status === "success") return result.value === null ? undefined : result.value;
  if (result.status === "cancelled") throw fail("the request was cancelled", "cancelled");
  const error = isObject(result.error) ? result.error : {};
  throw fail(typeof error.message === "string" ? error.message : "the host refused the request",
    typeof error.code === "string" ? error.code : undefined);
}

const hasCapability = (name) => arrayIncludes(CAPABILITIES, name);
function capabilityError(api, capability) {
  // QuickJS may never have provider_metadata (RPI-12): the node runtime is where it is granted.
  if (capability === "provider_metadata" && RUNTIME === "QuickJS")
    return fail(api + ' needs the "provider_metadata" capability, which QuickJS extensions cannot have; run ' +
      'the extension in the node runtime ("runtime": "node", or octet --pi-runtime node)', "denied");
  return fail(api + ' needs the "' + capability + '" capability; add it to "capabilities" in ' +
    'pi-extension.json', "denied");
}
function need(capability, api) {
  if (!hasCapability(capability)) throw capabilityError(api, capability);
}

// Session actions: the promise of the host's answer value.
async function action(api, body, owner) {
  if (!hasCapability("session_actions")) throw capabilityError(api, "session_actions");
  if (phase === "new" || phase === "loading") {
    throw fail(api + " is unavailable while the extension loads (actions are refused in the registration-only load " +
      "phase); call it from a handler", "denied");
  }
  if (phase !== "ready") {
    throw fail(api + " is unavailable: the extension " + (phase === "closed" ? "has shut down" : "failed to load"));
  }
  return unwrap(await hostCall({ kind: "action", action: body }, api + "'s request", owner));
}
function withOptional(body, key, value) {
  return value === undefined ? body : put(body, key, value);
}

const PLAIN_THEME = freeze({
  name: "plain",
  fg: (_color, text) => String(text),
  bg: (_color, text) => String(text),
  bold: (text) => String(text),
  italic: (text) => String(text),
  underline: (text) => String(text),
  strikethrough: (text) => String(text),
  inverse: (text) => String(text),
});
const NOTIFY_LEVELS = ["info", "warning", "error"];
// A select option: pi's string, or {value, label} (label shown, value answered).
function choiceOf(option) {
  if (isObject(option) && (option.value !== undefined || option.label !== undefined)) {
    const value = option.value !== undefined ? option.value : option.label;
    return { value: value, label: String(option.label !== undefined ? option.label : value) };
  }
  return { value: String(option), label: String(option) };
}

function uiDenied(method, grant) {
  if (!hasCapability("ui")) return capabilityError("ctx.ui." + method, "ui");
  if (grant !== null && !arrayIncludes(UI_CAPABILITIES, grant)) {
    return fail("ctx.ui." + method + ' needs the "' + grant + '" uiCapability; add it to "uiCapabilities" in ' +
      'pi-extension.json', "denied");
  }
  return null;
}

// The host's theme list as pi's [{name, path?}].
function themesOf(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (isObject(t)) append(out, { name: String(t.name), path: typeof t.path === "string" ? t.path : undefined });
  }
  return out;
}

function makeUi(owner) {
  // A dialog or query: resolves with map(answer value), map(undefined) when cancelled.
  async function ask(method, grant, request, opts, map) {
    const denied = uiDenied(method, grant);
    if (denied !== null) throw denied;
    const ui = { request: request };
    const timeout = isObject(opts) ? Number(opts.timeout) : NaN;
    if (timeout > 0 && numberIsFinite(timeout)) put(ui, "timeoutMs", mathMax(1, mathFloor(timeout)));
    const result = await hostCall({ kind: "ui", ui: ui }, "ctx.ui." + method + "'s request", owner,
        isObject(opts) ? opts.signal : undefined);
    return map(result.status === "cancelled" ? undefined : unwrap(result));
  }
  // pi's synchronous methods: throw when refused or unsendable; the promise is the host's answer.
  function tell(method, grant, request) {
    const denied = uiDenied(method, grant);
    if (denied !== null) throw denied;
    return promiseThen(hostCall({ kind: "ui", ui: { request: request } }, "ctx.ui." + method + "'s request", owner,
        undefined, true),
      (result) => { if (result.status !== "cancelled") unwrap(result); });
  }
  const text = (v) => isObject(v) && typeof v.value === "string" ? v.value : undefined;
  const unsupported = (method) => () => {
    throw fail("ctx.ui." + method + " is not available to " + RUNTIME + " extensions: components cannot cross the " +
      "extension protocol", "unsupported");
  };
  return {
    async select(title, options, opts) {
      // pi's options are strings; {value, label} options show the label and answer the value.
      const choices = arrayFrom(options === undefined || options === null ? [] : options, choiceOf);
      const labels = [];
      for (let i = 0; i < choices.length; i++) append(labels, choices[i].label);
      const picked = await ask("select", "select", { type: "select", title: String(title), options: labels }, opts,
          text);
      for (let i = 0; i < choices.length; i++) if (choices[i].label === picked) return choices[i].value;
      return picked;
    },
    confirm: async (title, message, opts) => ask("confirm", "confirm",
      { type: "confirm", title: String(title), message: String(message) }, opts,
          (v) => isObject(v) && v.confirmed === true),
    input: async (title, placeholder, opts) => ask("input", "input",
      withOptional({ type: "input", title: String(title) }, "placeholder",
          placeholder === undefined ? undefined : String(placeholder)), opts, text),
    editor: async (title, prefill, opts) => ask("editor", "editor",
      withOptional({ type: "editor", title: String(title) }, "prefill",
          prefill === undefined ? undefined : String(prefill)), opts, text),
    notify: (message, level) => tell("notify", "notify",
      { type: "notify", message: String(message), level: arrayIncludes(NOTIFY_LEVELS, level) ? level : "info" }),
    setStatus: (key, value) => tell("setStatus", "status",
      withOptional({ type: "status", key: String(key) }, "text",
          value === undefined || value === null ? undefined : String(value))),
    setWidget(key, content) {
      const denied = uiDenied("setWidget", "widget");
      if (denied !== null) throw denied;
      if (content !== undefined && content !== null && !(isArray(content) && arrayEvery(content,
          (line) => typeof line === "string"))) {
        throw new TypeError("ctx.ui.setWidget takes an array of strings (component factories cannot cross the " +
          "extension protocol)");
      }
      return tell("setWidget", "widget", withOptional({ type: "widget", key: String(key) }, "lines",
          content === null ? undefined : content));
    },
    setTitle: (title) => tell("setTitle", "title", { type: "title", title: String(title) }),
    setEditorText: (value) => tell("setEditorText", "set_editor_text", { type: "set_editor_text",
        text: String(value) }),
    getEditorText: () => ask("getEditorText", null, { type: "get_editor_text" }, undefined,
        (v) => text(v) === undefined ? "" : v.value),
    getAllThemes: () => ask("getAllThemes", null, { type: "get_all_themes" }, undefined, (v) =>
      isObject(v) && isArray(v.themes) ? themesOf(v.themes) : []),
    getTheme: async (name) => ask("getTheme", null, { type: "get_theme", name: String(name) }, undefined, (v) =>
      isObject(v) && v.theme !== null && v.theme !== undefined ? v.theme : undefined),
    async setTheme(theme) {
      const name =
        typeof theme === "string" ? theme : isObject(theme) && typeof theme.name === "string" ? theme.name : undefined;
      if (name === undefined) return { success: false, error: "ctx.ui.setTheme takes a theme name" };
      return ask("setTheme", null, { type: "set_theme", name: name }, undefined, (v) =>
        withOptional({ success: isObject(v) && v.success === true }, "error",
            isObject(v) && typeof v.error === "string" ? v.error : (isObject(v) ? undefined : "cancelled")));
    },
    getToolsExpanded: () => ask("getToolsExpanded", null, { type: "get_tools_expanded" }, undefined,
        (v) => isObject(v) && v.expanded === true),
    get theme() { return PLAIN_THEME; },
    // pi's terminal chrome, accepted and changing nothing: octet's shell draws its own progress line
    // while the agent works, with no slot for an extension's text (setWorkingMessage: a status line
    // would stay after the work ends), visibility (setWorkingVisible) or animation frames
    // (setWorkingIndicator), and it does not fold thinking behind a label (setHiddenThinkingLabel).
    setWorkingMessage() {},
    setWorkingVisible() {},
    setWorkingIndicator() {},
    setHiddenThinkingLabel() {},
    custom: unsupported("custom"),
    setFooter: (factory) => showSurface("setFooter", "footer", factory, tell),
    setHeader: (factory) => showSurface("setHeader", "header", factory, tell),
    setEditorComponent: unsupported("setEditorComponent"),
    onTerminalInput: unsupported("onTerminalInput"),
    pasteToEditor: unsupported("pasteToEditor"),
    setToolsExpanded: unsupported("setToolsExpanded"),
  };
}
`;
