/**
 * Prelude part: the `pi` object the factory receives (the `ctx` every handler gets is ctx.ts).
 *
 * Contracts:
 * - registerTool (pi's execute(toolCallId, params, signal, onUpdate, ctx), or `handler` with the
 *   same arguments), registerCommand and on need `tools`, `commands` and `event_hooks`; a missing
 *   capability or a malformed definition throws at the call. During the load every registration
 *   is queued and sent after the factory returns (a failed load sends none); registering a name
 *   again replaces it (pi's Map semantics). After the load a registerTool is sent at once: the
 *   host publishes it on octet's dynamic catalog (pi's dynamic-tools example registers from
 *   session_start and from a command). A later pi.on joins its event's handlers (an event hooked at
 *   load) or is sent as a hook registration, which the host takes for the events its session layer
 *   delivers and otherwise refuses with a warning. A later registerCommand or registerShortcut
 *   changes nothing and logs a warning: octet's dynamic catalog (tools/register) has no commands.
 * - pi.on accepts KNOWN_EVENTS and the EVENT_ALIASES (mapped, with one warning log per alias);
 *   anything else throws with the list. One hook registration per distinct event.
 * - The snapshot getters read the latest invocation context: no round trip (QJS-09).
 * - pi.events is this extension's own bus: each QuickJS extension has its own runtime, so it
 *   cannot reach another extension's bus (pi shares one between extensions).
 * - ctx.waitForIdle and ctx.reload are pi's command-context methods: from a tool or a hook they
 *   reject (a tool waiting for the agent to go idle would wait for itself).
 * - Parts of pi that cannot cross the protocol throw a clear Error (entry renderers, components,
 *   exec); tool and message renderers run here as text (render.ts). registerShortcut (needs
 *   `commands`) is a registration the host maps to an octet key; its handler runs on a `shortcut`
 *   invocation with a ctx. registerFlag sends the flag's name (the host warns about a --pi-flag
 *   nobody registered); getFlag follows pi: undefined for a flag this extension did not register,
 *   true for a given boolean flag, the given string, else the default. The values are the host
 *   hello's `flags`.
 */
export const API_JS = String.raw`
function describeRegistration(registration) {
  if (registration.kind === "tool") return 'tool "' + registration.tool.name + '"';
  if (registration.kind === "command") return 'command "' + registration.command.name + '"';
  if (registration.kind === "shortcut") return 'shortcut "' + registration.shortcut.key + '"';
  if (registration.kind === "flag") return 'flag "' + registration.flag.name + '"';
  if (registration.kind === "provider") return 'provider "' + registration.provider.name + '"';
  return 'the "' + registration.hook.event + '" hook';
}
const loading = () => phase === "new" || phase === "loading";
// The host fixes the catalog when the load ends (a reload is how it changes): say so, change nothing.
function ignoredLate(what) {
  log("warning", what + " after the load is ignored: octet fixes an extension's commands and shortcuts when it " +
    "loads (its dynamic catalog, tools/register, carries tools only), so register them in the extension's factory");
}
// Queues a registration made during the load and returns true. After the load a tool is sent at
// once (the host publishes it as a dynamic tool, as pi's registerTool from a handler works) and
// true returned; anything else changes nothing and returns false.
function register(key, registration) {
  if (!loading()) {
    if (registration.kind === "tool" && phase === "ready") {
      const problem = trySend({ type: "register", registration: registration }, "the registration of " +
          describeRegistration(registration));
      if (problem !== null) throw fail(problem);
      return true;
    }
    if (registration.kind === "flag") return false;
    ignoredLate("the registration of " + describeRegistration(registration));
    return false;
  }
  mapSet(queued, key, registration);
  return true;
}

function registerTool(definition) {
  need("tools", "pi.registerTool");
  if (!isObject(definition)) throw new TypeError("pi.registerTool takes a tool definition {name, label, description, " +
    "parameters, execute}");
  const name = definition.name;
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerTool: name must be a non-empty string");
  const where = 'pi.registerTool("' + name + '"): ';
  const run = typeof definition.execute === "function" ? definition.execute : definition.handler;
  if (typeof run !== "function") throw new TypeError(where + "execute (or handler) must be a function");
  const description = definition.description === undefined ? "" : definition.description;
  if (typeof description !== "string") throw new TypeError(where + "description must be a string");
  if (definition.label !== undefined && typeof definition.label !== "string") {
    throw new TypeError(where + "label must be a string");
  }
  let parameters = definition.parameters === undefined ? { type: "object", properties: {} } : definition.parameters;
  if (!isObject(parameters)) throw new TypeError(where + "parameters must be a JSON Schema object");
  try {
    parameters = parse(stringify(parameters));
  } catch (e) {
    throw new TypeError(where + "parameters cannot be encoded as JSON: " + describe(e));
  }
  const tool = withOptional({ name: name }, "label", definition.label);
  put(tool, "description", description);
  put(tool, "parameters", parameters);
  // pi's prompt snippet and guidelines (the model's system prompt): the host maps them (TDEF-09).
  if (typeof definition.promptSnippet === "string") put(tool, "promptSnippet", definition.promptSnippet);
  if (isArray(definition.promptGuidelines)) {
    const guidelines = [];
    for (let i = 0; i < definition.promptGuidelines.length; i++)
      if (typeof definition.promptGuidelines[i] === "string") append(guidelines, definition.promptGuidelines[i]);
    put(tool, "promptGuidelines", guidelines);
  }
  // pi's renderers run here, as text (render.ts): the host then asks for them (tool/render).
  if (typeof definition.renderCall === "function" || typeof definition.renderResult === "function") {
    put(tool, "renderer", true);
  }
  if (register("tool:" + name, { kind: "tool", tool: tool })) mapSet(tools, name, { name: name, run: run,
      definition: definition });
}

function registerCommand(name, options) {
  need("commands", "pi.registerCommand");
  if (isObject(name) && options === undefined) {
    options = name;
    name = name.name;
  }
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerCommand: the name must be a non-empty " +
    "string");
  if (!isObject(options) || typeof options.handler !== "function") {
    throw new TypeError('pi.registerCommand("' + name + '"): options.handler must be a function');
  }
  if (options.description !== undefined && typeof options.description !== "string") {
    throw new TypeError('pi.registerCommand("' + name + '"): description must be a string');
  }
  const command = withOptional({ name: name }, "description", options.description);
  if (register("command:" + name, { kind: "command", command: command })) mapSet(commands, name, { name: name,
      handler: options.handler, options: options });
}

function on(event, handler) {
  need("event_hooks", "pi.on");
  if (typeof event !== "string") throw new TypeError("pi.on: the event name must be a string");
  if (typeof handler !== "function") throw new TypeError('pi.on("' + event + '"): the handler must be a function');
  const known = setHas(KNOWN, event);
  if (!known && !hasOwn(EVENT_ALIASES, event)) {
    throw fail('pi.on: unknown event "' + event + '"; the known events are ' + arrayJoin(KNOWN_EVENTS, ", "));
  }
  const target = known ? event : EVENT_ALIASES[event];
  if (!loading() && phase !== "ready") return ignoredLate('a pi.on("' + event + '") handler');
  if (!known) warnOnce("alias:" + event, 'pi.on("' + event + '") uses an older event name; the handler receives ' +
    '"' + target + '" events instead' + (event === "session_switch" ? ' whose reason is "new" or "resume"'
      : event === "session_fork" || event === "session_branch" ? ' whose reason is "fork"' : ""));
  let list = mapGet(hooks, target);
  if (list === undefined) {
    // After the load the hook is sent at once: the host takes it where it can (the events its
    // session layer delivers) and says why where it cannot; a handler for a hooked event just joins.
    if (!loading()) {
      const problem = trySend({ type: "register", registration: { kind: "hook", hook: { event: target } } },
          'the late pi.on("' + event + '")');
      if (problem !== null) throw fail(problem);
    } else register("hook:" + target, { kind: "hook", hook: { event: target } });
    list = [];
    mapSet(hooks, target, list);
  }
  append(list, { fn: handler, registeredAs: event });
}

const bus = new Map();   // channel -> [{handler}]
const events = freeze({
  on(channel, handler) {
    if (typeof handler !== "function") throw new TypeError("pi.events.on: the handler must be a function");
    const key = String(channel);
    const entry = { handler: handler };
    if (!mapHas(bus, key)) mapSet(bus, key, []);
    append(mapGet(bus, key), entry);
    return () => {
      const list = mapGet(bus, key);
      const i = list === undefined ? -1 : arrayIndexOf(list, entry);
      if (i < 0) return;
      if (list.length === 1) mapDelete(bus, key);
      else mapSet(bus, key, without(list, i));
    };
  },
  emit(channel, data) {
    const key = String(channel);
    const list = mapGet(bus, key);
    if (list === undefined) return;
    const report = (e) => log("error", 'a pi.events handler of "' + key + '" threw: ' + describe(e));
    for (let i = 0; i < list.length; i++) {
      const entry = list[i];
      try {
        const result = entry.handler(data);
        if (result !== null && typeof result === "object" && typeof result.then === "function") {
          result.then(undefined, report);
        }
      } catch (e) {
        report(e);
      }
    }
  },
});

const flags = new Map();       // name -> {default, type}
const shortcuts = new Map();   // pi key -> {handler, options}
function registerFlag(name, options) {
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerFlag: the name must be a non-empty " +
    "string");
  const o = isObject(options) ? options : {};
  mapSet(flags, name, { default: o.default, type: o.type });
  register("flag:" + name, { kind: "flag", flag: { name: name } });
}
// pi's rule: a flag this extension registered; a boolean one is true when given, a string one its value.
function getFlag(name) {
  const flag = mapGet(flags, String(name));
  if (flag === undefined) return undefined;
  const given = session !== null && isObject(session.flags) && hasOwn(session.flags, name) ? session.flags[name]
    : undefined;
  if (given === undefined) return flag.default;
  if (flag.type === "boolean") return true;
  return typeof given === "string" ? given : flag.default;
}
// Sent with the load's registrations; the host maps pi's key to its own (or refuses it, naming the key).
function registerShortcut(key, options) {
  need("commands", "pi.registerShortcut");
  if (typeof key !== "string" || key === "") throw new TypeError("pi.registerShortcut: the key must be a non-empty " +
    "string");
  if (!isObject(options) || typeof options.handler !== "function") {
    throw new TypeError('pi.registerShortcut("' + key + '"): options.handler must be a function');
  }
  const shortcut = withOptional({ key: key }, "description", typeof options.description === "string" ?
      options.description : undefined);
  if (register("shortcut:" + key, { kind: "shortcut", shortcut: shortcut })) mapSet(shortcuts, key, {
      handler: options.handler, options: options });
}
// pi's provider config as data: a function (streamSimple, oauth's login) cannot cross the protocol.
const PROVIDER_DATA = ["name", "baseUrl", "api", "apiKey", "headers", "authHeader", "compat", "models"];
function registerProvider(name, config) {
  need("provider_metadata", "pi.registerProvider");
  if (typeof name !== "string" || name === "") throw new TypeError("pi.registerProvider: the name must be a " +
    "non-empty string");
  const where = 'pi.registerProvider("' + name + '"): ';
  if (!isObject(config)) throw new TypeError(where + "config must be an object");
  if (config.streamSimple !== undefined) {
    throw fail(where + "streamSimple is code and cannot cross the extension protocol; only data can (baseUrl, api, " +
      "apiKey, headers, authHeader, models): name an api pi-ai streams", "unsupported");
  }
  if (config.oauth !== undefined) log("warning", where + "oauth (login callbacks) cannot cross the extension " +
    "protocol and is left out; the provider uses apiKey");
  let data = {};
  for (let i = 0; i < PROVIDER_DATA.length; i++) {
    if (config[PROVIDER_DATA[i]] !== undefined) put(data, PROVIDER_DATA[i], config[PROVIDER_DATA[i]]);
  }
  try {
    data = parse(stringify(data));
  } catch (e) {
    throw new TypeError(where + "config cannot be encoded as JSON: " + describe(e));
  }
  register("provider:" + name, { kind: "provider", provider: { name: name, config: data } });
}
function unregisterProvider(name) {
  need("provider_metadata", "pi.unregisterProvider");
  if (loading()) mapDelete(queued, "provider:" + String(name));
  else ignoredLate("pi.unregisterProvider(\"" + String(name) + "\")");
}
async function runShortcut(inv, invocation, snap) {
  const shortcut = mapGet(shortcuts, invocation.key);
  if (shortcut === undefined) return answer(inv, failure('unknown shortcut "' + invocation.key + '"'));
  try {
    answer(inv, success(await apply(shortcut.handler, shortcut.options, [makeContext(inv, snap, false)])));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}
function cannotCross(api, what) {
  return () => { throw fail(api + " is not available to " + RUNTIME + " extensions: " + what + " cannot cross the " +
    "extension protocol", "unsupported"); };
}
const copyList = (v) => isArray(v) ? copy(v) : [];
const shallow = (v) => objectAssign({}, v);
const pi = {
  registerTool: registerTool,
  registerCommand: registerCommand,
  on: on,
  events: events,
  getSessionName: () => typeof snapshot.sessionName === "string" ? snapshot.sessionName : undefined,
  getThinkingLevel: () => typeof snapshot.thinkingLevel === "string" ? snapshot.thinkingLevel : undefined,
  getActiveTools: () => copyList(snapshot.activeTools),
  getAllTools() {
    const list = copyList(snapshot.allTools);
    for (let i = 0; i < list.length; i++) list[i] = typeof list[i] === "string" ? { name: list[i],
        description: "" } : shallow(list[i]);
    return list;
  },
  getCommands() {
    const list = copyList(snapshot.commands);
    for (let i = 0; i < list.length; i++) list[i] = shallow(list[i]);
    return list;
  },
  sendMessage: (message, options) => action("pi.sendMessage", withOptional(withOptional({ kind: "send_message",
      message: message }, "options", options), "rendered", renderForDisplay(message))),
  sendUserMessage: (content, options) => action("pi.sendUserMessage", withOptional({ kind: "send_user_message",
      content: content }, "options", options)),
  appendEntry: (customType, data) => action("pi.appendEntry", withOptional({ kind: "append_entry",
      customType: String(customType) }, "data", data)),
  async setSessionName(name) {
    const value = await action("pi.setSessionName", { kind: "set_session_name", name: String(name) });
    snapshot.sessionName = String(name);
    return value;
  },
  setLabel: (entryId, label) => action("pi.setLabel", withOptional({ kind: "set_label", entryId: String(entryId) },
      "label", label)),
  async setActiveTools(toolNames) {
    const names = arrayFrom(toolNames, String);
    const value = await action("pi.setActiveTools", { kind: "set_active_tools", toolNames: names });
    snapshot.activeTools = names;
    return value;
  },
  // Only the model's name crosses: the host switches to its own registry's model of that name.
  async setModel(model) {
    if (!hasCapability("session_actions")) throw capabilityError("pi.setModel", "session_actions");
    if (!isObject(model) || typeof model.provider !== "string" || typeof model.id !== "string")
      throw new TypeError("pi.setModel takes a model {provider, id} (ctx.modelRegistry.find gives one)");
    return (await action("pi.setModel", { kind: "set_model", model: { provider: model.provider, id: model.id } }))
      === true;
  },
  async setThinkingLevel(level) {
    const value = await action("pi.setThinkingLevel", { kind: "set_thinking_level", level: level });
    // The host answers the level in effect (clamped to the model, as pi clamps it).
    snapshot.thinkingLevel = typeof value === "string" ? value : level;
  },
  registerFlag: registerFlag,
  getFlag: getFlag,
  registerShortcut: registerShortcut,
  registerMessageRenderer: registerMessageRenderer,
  registerEntryRenderer: cannotCross("pi.registerEntryRenderer", "renderers"),
  registerProvider: registerProvider,
  unregisterProvider: unregisterProvider,
  // An engine that can run processes (the Node runner) passes host.exec; pi's default cwd is the session's.
  exec: typeof host.exec === "function" ? (command, args, options) => host.exec(command, args, options,
      typeof snapshot.cwd === "string" ? snapshot.cwd : session !== null ? session.cwd : undefined) : async () => {
    throw fail("pi.exec is not available: QuickJS extensions have no process access", "unsupported");
  },
};

// navigateTree's options as data (pi's summarize, customInstructions, replaceInstructions, label).
function treeOptions(options) {
  const out = {};
  if (!isObject(options)) return out;
  if (typeof options.summarize === "boolean") put(out, "summarize", options.summarize);
  if (typeof options.customInstructions === "string") put(out, "customInstructions", options.customInstructions);
  if (typeof options.replaceInstructions === "boolean") put(out, "replaceInstructions", options.replaceInstructions);
  if (typeof options.label === "string") put(out, "label", options.label);
  return out;
}
`;
