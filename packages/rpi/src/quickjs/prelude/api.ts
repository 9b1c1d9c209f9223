/**
 * Prelude part 4 of 5: the `pi` object the factory receives and the `ctx` every handler gets.
 *
 * Contracts:
 * - registerTool (pi's execute(toolCallId, params, signal, onUpdate, ctx), or `handler` with the
 *   same arguments), registerCommand and on need `tools`, `commands` and `event_hooks`; a missing
 *   capability or a malformed definition throws at the call. During the load every registration
 *   is queued and sent after the factory returns (a failed load sends none); afterwards each is
 *   sent at once. Registering a name again replaces it (pi's Map semantics); after the load the
 *   host sees `unregister` then `register`.
 * - pi.on accepts KNOWN_EVENTS and the EVENT_ALIASES (mapped, with one warning log per alias);
 *   anything else throws with the list. One hook registration per distinct event.
 * - The snapshot getters read the latest invocation context: no round trip (QJS-09).
 * - pi.events is this extension's own bus: each QuickJS extension has its own runtime, so it
 *   cannot reach another extension's bus (pi shares one between extensions).
 * - ctx.waitForIdle and ctx.reload are pi's command-context methods: from a tool or a hook they
 *   reject (a tool waiting for the agent to go idle would wait for itself).
 * - Parts of pi that cannot cross the protocol throw a clear Error (renderers, providers,
 *   components, exec); registerShortcut is ignored with a warning; registerFlag/getFlag keep the
 *   flag's default, since octet passes no extension flags.
 */
export const API_JS = String.raw`
function describeRegistration(registration) {
  if (registration.kind === "tool") return 'tool "' + registration.tool.name + '"';
  if (registration.kind === "command") return 'command "' + registration.command.name + '"';
  return 'the "' + registration.hook.event + '" hook';
}
function forget(key) {
  const at = key.indexOf(":");
  if (key.slice(0, at) === "tool") tools.delete(key.slice(at + 1));
  else if (key.slice(0, at) === "command") commands.delete(key.slice(at + 1));
}
function register(key, registration) {
  if (phase === "new" || phase === "loading") {
    queued.set(key, registration);
    return;
  }
  if (phase !== "ready") throw fail("cannot register: the extension " + (phase === "closed" ? "has shut down" : "failed to load"));
  if (registered.has(key)) {
    const name = registration.kind === "hook" ? registration.hook.event : registration[registration.kind].name;
    trySend({ type: "unregister", registration: { kind: registration.kind, name: name } }, "an unregister frame");
    registered.delete(key);
    const problem = trySend({ type: "register", registration: registration }, "the registration of " + describeRegistration(registration));
    if (problem !== null) {
      forget(key);
      throw fail(problem);
    }
  } else {
    const problem = trySend({ type: "register", registration: registration }, "the registration of " + describeRegistration(registration));
    if (problem !== null) throw fail(problem);
  }
  registered.add(key);
}

function registerTool(definition) {
  need("tools", "pi.registerTool");
  if (!isObject(definition)) throw new TypeError("pi.registerTool takes a tool definition {name, label, description, parameters, execute}");
  const name = definition.name;
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerTool: name must be a non-empty string");
  const where = 'pi.registerTool("' + name + '"): ';
  const run = typeof definition.execute === "function" ? definition.execute : definition.handler;
  if (typeof run !== "function") throw new TypeError(where + "execute (or handler) must be a function");
  const description = definition.description === undefined ? "" : definition.description;
  if (typeof description !== "string") throw new TypeError(where + "description must be a string");
  if (definition.label !== undefined && typeof definition.label !== "string") throw new TypeError(where + "label must be a string");
  let parameters = definition.parameters === undefined ? { type: "object", properties: {} } : definition.parameters;
  if (!isObject(parameters)) throw new TypeError(where + "parameters must be a JSON Schema object");
  try {
    parameters = JSON.parse(JSON.stringify(parameters));
  } catch (e) {
    throw new TypeError(where + "parameters cannot be encoded as JSON: " + describe(e));
  }
  const tool = { name: name };
  if (definition.label !== undefined) tool.label = definition.label;
  tool.description = description;
  tool.parameters = parameters;
  register("tool:" + name, { kind: "tool", tool: tool });
  tools.set(name, { name: name, run: run, definition: definition });
}

function registerCommand(name, options) {
  need("commands", "pi.registerCommand");
  if (isObject(name) && options === undefined) {
    options = name;
    name = name.name;
  }
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerCommand: the name must be a non-empty string");
  if (!isObject(options) || typeof options.handler !== "function") {
    throw new TypeError('pi.registerCommand("' + name + '"): options.handler must be a function');
  }
  if (options.description !== undefined && typeof options.description !== "string") {
    throw new TypeError('pi.registerCommand("' + name + '"): description must be a string');
  }
  const command = withOptional({ name: name }, "description", options.description);
  register("command:" + name, { kind: "command", command: command });
  commands.set(name, { name: name, handler: options.handler, options: options });
}

function on(event, handler) {
  need("event_hooks", "pi.on");
  if (typeof event !== "string") throw new TypeError("pi.on: the event name must be a string");
  if (typeof handler !== "function") throw new TypeError('pi.on("' + event + '"): the handler must be a function');
  let target = event;
  if (!KNOWN.has(event)) {
    if (!hasOwn(EVENT_ALIASES, event)) {
      throw fail('pi.on: unknown event "' + event + '"; the known events are ' + KNOWN_EVENTS.join(", "));
    }
    target = EVENT_ALIASES[event];
    warnOnce("alias:" + event, 'pi.on("' + event + '") uses an older event name; the handler receives "' + target + '" events instead');
  }
  let list = hooks.get(target);
  if (list === undefined) {
    register("hook:" + target, { kind: "hook", hook: { event: target } });
    list = [];
    hooks.set(target, list);
  }
  list.push({ fn: handler, registeredAs: event });
}

const bus = new Map();   // channel -> [{handler}]
const events = Object.freeze({
  on(channel, handler) {
    if (typeof handler !== "function") throw new TypeError("pi.events.on: the handler must be a function");
    const key = String(channel);
    const entry = { handler: handler };
    if (!bus.has(key)) bus.set(key, []);
    bus.get(key).push(entry);
    return () => {
      const list = bus.get(key);
      const i = list === undefined ? -1 : list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
      if (list !== undefined && list.length === 0) bus.delete(key);
    };
  },
  emit(channel, data) {
    const key = String(channel);
    const list = bus.get(key);
    if (list === undefined) return;
    const report = (e) => log("error", 'a pi.events handler of "' + key + '" threw: ' + describe(e));
    for (const entry of list.slice()) {
      try {
        const result = entry.handler(data);
        if (result !== null && typeof result === "object" && typeof result.then === "function") result.then(undefined, report);
      } catch (e) {
        report(e);
      }
    }
  },
});

const flags = new Map();
function cannotCross(api, what) {
  return () => { throw fail(api + " is not available to QuickJS extensions: " + what + " cannot cross the extension protocol", "unsupported"); };
}
const copyList = (v) => Array.isArray(v) ? v.slice() : [];
const pi = {
  registerTool: registerTool,
  registerCommand: registerCommand,
  on: on,
  events: events,
  getSessionName: () => typeof snapshot.sessionName === "string" ? snapshot.sessionName : undefined,
  getThinkingLevel: () => typeof snapshot.thinkingLevel === "string" ? snapshot.thinkingLevel : undefined,
  getActiveTools: () => copyList(snapshot.activeTools),
  getAllTools: () => copyList(snapshot.allTools).map((t) => typeof t === "string" ? { name: t, description: "" } : Object.assign({}, t)),
  getCommands: () => copyList(snapshot.commands).map((c) => Object.assign({}, c)),
  sendMessage: (message, options) => action("pi.sendMessage", withOptional({ kind: "send_message", message: message }, "options", options)),
  sendUserMessage: (content, options) => action("pi.sendUserMessage", withOptional({ kind: "send_user_message", content: content }, "options", options)),
  appendEntry: (customType, data) => action("pi.appendEntry", withOptional({ kind: "append_entry", customType: String(customType) }, "data", data)),
  async setSessionName(name) {
    const value = await action("pi.setSessionName", { kind: "set_session_name", name: String(name) });
    snapshot.sessionName = String(name);
    return value;
  },
  setLabel: (entryId, label) => action("pi.setLabel", withOptional({ kind: "set_label", entryId: String(entryId) }, "label", label)),
  async setActiveTools(toolNames) {
    const names = Array.from(toolNames, String);
    const value = await action("pi.setActiveTools", { kind: "set_active_tools", toolNames: names });
    snapshot.activeTools = names;
    return value;
  },
  setModel: (model) => action("pi.setModel", { kind: "set_model", model: model }),
  async setThinkingLevel(level) {
    const value = await action("pi.setThinkingLevel", { kind: "set_thinking_level", level: level });
    snapshot.thinkingLevel = level;
    return value;
  },
  registerFlag(name, options) { flags.set(String(name), isObject(options) ? options.default : undefined); },
  getFlag: (name) => flags.get(String(name)),
  registerShortcut() { warnOnce("shortcut", "pi.registerShortcut is ignored: octet has no keyboard shortcuts for extensions"); },
  registerMessageRenderer: cannotCross("pi.registerMessageRenderer", "renderers"),
  registerEntryRenderer: cannotCross("pi.registerEntryRenderer", "renderers"),
  registerProvider: cannotCross("pi.registerProvider", "providers"),
  unregisterProvider: cannotCross("pi.unregisterProvider", "providers"),
  exec: async () => { throw fail("pi.exec is not available: QuickJS extensions have no process access", "unsupported"); },
};

// The ctx of one invocation: its snapshot (falling back to the host hello), its signal, its UI.
function makeContext(inv, snap, isCommand) {
  const pick = (key) => snap[key] !== undefined && snap[key] !== null ? snap[key] : (session !== null ? session[key] : undefined);
  const mode = pick("mode");
  const trusted = pick("projectTrusted") === true;
  const owner = inv.id;
  const commandOnly = (api, body) => isCommand ? action(api, body, owner)
    : Promise.reject(fail(api + " is only available to command handlers (pi's ExtensionCommandContext)", "unsupported"));
  const unavailable = (api) => () => { throw fail(api + " is not available to QuickJS extensions", "unsupported"); };
  return {
    ui: makeUi(owner),
    hasUI: mode === "tui" || mode === "rpc",
    cwd: pick("cwd"),
    mode: mode,
    signal: inv.controller.signal,
    get model() { return snap.model === null ? undefined : snap.model; },
    isProjectTrusted: () => trusted,
    abort: () => action("ctx.abort", { kind: "abort" }, owner),
    shutdown: () => action("ctx.shutdown", { kind: "shutdown" }, owner),
    compact(options) {
      const instructions = typeof options === "string" ? options
        : isObject(options) && typeof options.customInstructions === "string" ? options.customInstructions : undefined;
      const done = action("ctx.compact", withOptional({ kind: "compact" }, "customInstructions", instructions), owner);
      if (isObject(options) && (typeof options.onComplete === "function" || typeof options.onError === "function")) {
        done.then(
          (value) => { if (typeof options.onComplete === "function") options.onComplete(value); },
          (error) => { if (typeof options.onError === "function") options.onError(error); });
      }
      return done;
    },
    waitForIdle: () => commandOnly("ctx.waitForIdle", { kind: "wait_for_idle" }),
    reload: () => commandOnly("ctx.reload", { kind: "reload" }),
    isIdle: unavailable("ctx.isIdle"),
    hasPendingMessages: unavailable("ctx.hasPendingMessages"),
    getContextUsage: unavailable("ctx.getContextUsage"),
    getSystemPrompt: unavailable("ctx.getSystemPrompt"),
  };
}
`;
