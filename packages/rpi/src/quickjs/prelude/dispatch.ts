/**
 * Prelude part 6 of 6: the host's frames. Handshake, initialize (the load), tool, command and
 * hook invocations with pi's hook reductions, cancel, shutdown, and the bridge object the
 * engine drives.
 *
 * Contracts:
 * - Every host request is answered exactly once, unless shutdown came first: a cancel answers
 *   `cancelled` at once (a later result is dropped), aborts the invocation's signal and withdraws
 *   its open UI/action requests. A result that cannot be sent (over the frame limit or the
 *   outbound rate, not JSON) is answered with an error that says so; when that error cannot be
 *   sent either (the outbound rate is spent), the result and then the error are tried again after
 *   the rate's one-second window, at most RESEND_TRIES times.
 * - Hook handlers run in registration order; a throw is logged and the next handler runs, except
 *   for tool_call, where a throw blocks (fail closed). The reduced value, or null, is the answer:
 *   tool_call: the first {block: true} wins, else the last truthy result, plus `input` when a
 *     handler changed event.input in place (pi's way of editing arguments);
 *   tool_result: content/details/isError chained on one event, {content, details, isError} if any
 *     handler changed one;
 *   input: transform chained, "handled" stops, {action:"transform", text, images?} or null;
 *   before_agent_start: systemPrompt chained, messages collected: {messages?, systemPrompt?};
 *   context: messages chained: {messages}; before_provider_request: the payload chained;
 *   user_bash: the first truthy result, its `operations` run here (user-bash.ts);
 *   resources_discover: the path lists merged; message_end: the message chained, a replacement
 *     of another role skipped with a warning: {message} or null;
 *   session_before_*: the last truthy result, a {cancel: true} stops;
 *   any other event: the last value that is not undefined.
 * - Unknown top-level frame types are ignored; unknown request and invocation kinds get an error.
 */
export const DISPATCH_JS = String.raw`
function newInvocation(id, what) {
  const inv = { id: id, what: what, controller: newController(), answered: false };
  mapSet(inflight, id, inv);
  return inv;
}
const RESEND_TRIES = 5;
const RESEND_AFTER_MS = 1000;
function sendResult(id, result, what) {
  const frame = { type: "response", id: id, result: result };
  const problem = trySend(frame, "the result of " + what);
  if (problem === null || phase === "closed") return;
  const fallback = { type: "response", id: id, result: failure(problem) };
  let tries = 0;
  // Later tries send the result itself if it fits by then (it was only over the rate).
  const resend = () => {
    if (phase === "closed" || (tries > 0 && trySend(frame, "the result") === null)) return;
    if (trySend(fallback, "an error response") === null || ++tries > RESEND_TRIES) return;
    try {
      arm(resend, RESEND_AFTER_MS, [], false);
    } catch (_) {
      // No timer left (the extension holds them all): the host's timeout answers instead.
    }
  };
  resend();
}
function answer(inv, result) {
  if (inv.answered) return;
  inv.answered = true;
  mapDelete(inflight, inv.id);
  sendResult(inv.id, result, inv.what);
}

function onHello(frame) {
  if (session !== null) return;
  session = { instance: frame.instance, cwd: frame.cwd, mode: frame.mode,
      projectTrusted: frame.projectTrusted === true, flags: isObject(frame.flags) ? frame.flags : {} };
  trySend({
    type: "hello",
    protocolVersion: PROTOCOL_VERSION,
    manifest: { id: EXTENSION_ID, name: EXTENSION_ID, version: "0.0.0", capabilities: CAPABILITIES,
        uiCapabilities: UI_CAPABILITIES },
  }, "the hello frame");
}

async function runInitialize(id) {
  if (phase !== "new") {
    const why = phase === "failed" ? "the extension failed to load" : "initialize was already requested";
    sendResult(id, failure(why), "initialize");
    return;
  }
  phase = "loading";
  const inv = newInvocation(id, "initialize");
  if (typeof factory !== "function") {
    phase = "failed";
    answer(inv, failure("the entry must default-export a function (pi) => void; got " + kindOf(factory)));
    return;
  }
  try {
    await factory(pi);
  } catch (e) {
    phase = "failed";
    mapClear(queued);
    answer(inv, failure("the extension factory failed: " + describe(e)));
    return;
  }
  if (inv.answered) {
    if (phase !== "closed") phase = "failed";
    return;
  }
  const registrations = valuesOf(queued);
  mapClear(queued);
  for (let i = 0; i < registrations.length; i++) {
    const registration = registrations[i];
    const problem = trySend({ type: "register", registration: registration },
      "the registration of " + describeRegistration(registration));
    if (problem !== null) {
      phase = "failed";
      answer(inv, failure(problem));
      return;
    }
  }
  phase = "ready";
  answer(inv, success({}));
}

function toolResult(name, value) {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (isObject(value) && isArray(value.content)) {
    const result = withOptional({ content: value.content }, "details", value.details);
    return typeof value.isError === "boolean" ? put(result, "isError", value.isError) : result;
  }
  throw fail('tool "' + name + '" returned ' + (isObject(value) ? "an object without a content array" : kindOf(value)) +
    "; expected an AgentToolResult {content: [...], details?}");
}

async function runTool(inv, invocation, snap) {
  const tool = mapGet(tools, invocation.name);
  if (tool === undefined) return answer(inv, failure('unknown tool "' + invocation.name + '"'));
  const onUpdate = (partial) => {
    if (inv.answered) return;
    const problem = trySend({ type: "update", id: inv.id, value: partial === undefined ? null : partial },
        'an update of tool "' + tool.name + '"');
    if (problem === null) return;
    answer(inv, failure(problem));
    abortSignal(inv.controller.signal, abortError(problem));
    throw fail(problem);
  };
  try {
    const args = isObject(invocation.arguments) ? invocation.arguments : {};
    const value = await apply(tool.run, tool.definition, [String(invocation.callId), args, inv.controller.signal,
        onUpdate, makeContext(inv, snap, false)]);
    answer(inv, success(toolResult(tool.name, value)));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

async function runCommand(inv, invocation, snap) {
  const command = mapGet(commands, invocation.name);
  if (command === undefined) return answer(inv, failure('unknown command "' + invocation.name + '"'));
  try {
    const args = typeof invocation.arguments === "string" ? invocation.arguments : "";
    answer(inv, success(await apply(command.handler, command.options, [args, makeContext(inv, snap, true)])));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

function eventOf(name, data, extra) {
  const event = isObject(data) ? objectAssign({}, data) : (data === undefined || data === null ? {} : { data: data });
  objectAssign(event, extra);
  return put(event, "type", name);
}
function jsonOf(value) {
  try { return stringify(value); } catch (_) { return null; }
}
// One handler call: {value}, or null after logging a throw.
async function callHook(handler, event, ctx) {
  try {
    return { value: await handler.fn(event, ctx) };
  } catch (e) {
    log("error", 'a "' + event.type + '" handler threw: ' + describe(e));
    return null;
  }
}

async function reduceHook(name, data, handlers, ctx, inv) {
  const base = name === "session_before_compact" || name === "session_before_tree" ? { signal: ctx.signal } : {};
  const input = isObject(data) ? data : {};
  const live = () => !inv.answered;
  if (name === "tool_call") {
    const event = eventOf(name, data, base);
    const before = jsonOf(event.input);
    let result = null;
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      // Fail closed: a throw from the handler, or from reading its answer, blocks the call.
      try {
        const value = await handlers[i].fn(event, ctx);
        if (value) {
          result = value;
          if (value.block) return value;
        }
      } catch (e) {
        return { block: true, reason: 'a tool_call handler of extension "' + EXTENSION_ID + '" threw: ' + describe(e) };
      }
    }
    return jsonOf(event.input) !== before ? put(objectAssign({}, result), "input", event.input) : result;
  }
  if (name === "tool_result") {
    const event = eventOf(name, data, base);
    let changed = false;
    const keys = ["content", "details", "isError"];
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], event, ctx);
      if (got === null || !isObject(got.value)) continue;
      for (let k = 0; k < keys.length; k++) {
        if (got.value[keys[k]] !== undefined) {
          put(event, keys[k], got.value[keys[k]]);
          changed = true;
        }
      }
    }
    return changed ? { content: event.content, details: event.details, isError: event.isError } : null;
  }
  if (name === "input") {
    let text = input.text;
    let images = input.images;
    let changed = false;
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], eventOf(name, data, { text: text, images: images }), ctx);
      const value = got === null ? undefined : got.value;
      if (!isObject(value)) continue;
      if (value.action === "handled") return value;
      if (value.action === "transform" && typeof value.text === "string") {
        text = value.text;
        if (value.images !== undefined && value.images !== null) images = value.images;
        changed = true;
      }
    }
    return changed ? withOptional({ action: "transform", text: text }, "images", images) : null;
  }
  if (name === "before_agent_start") {
    let systemPrompt = input.systemPrompt;
    let changed = false;
    const messages = [];
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], eventOf(name, data, { systemPrompt: systemPrompt }), ctx);
      const value = got === null ? undefined : got.value;
      if (!isObject(value)) continue;
      if (value.message) append(messages, value.message);
      if (value.systemPrompt !== undefined) {
        systemPrompt = value.systemPrompt;
        changed = true;
      }
    }
    if (messages.length === 0 && !changed) return null;
    return withOptional(messages.length > 0 ? { messages: messages } : {}, "systemPrompt",
        changed ? systemPrompt : undefined);
  }
  if (name === "context" || name === "before_provider_request") {
    const key = name === "context" ? "messages" : "payload";
    let current = input[key];
    let changed = false;
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], eventOf(name, data, put({}, key, current)), ctx);
      if (got === null) continue;
      const next = key === "messages" ? (isObject(got.value) ? got.value.messages : undefined) : got.value;
      if (next !== undefined && next !== null) {
        current = next;
        changed = true;
      }
    }
    return !changed ? null : key === "messages" ? { messages: current } : current;
  }
  if (name === "message_end" && isObject(input.message)) {
    // pi's runner: each handler sees the message the one before it returned; another role is refused.
    let message = input.message;
    let changed = false;
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], eventOf(name, data, { message: message }), ctx);
      const next = got === null || !isObject(got.value) ? undefined : got.value.message;
      if (!isObject(next)) continue;
      if (next.role !== message.role) {
        log("warning", 'a message_end handler returned a message of role "' + String(next.role) + '" for a "' +
          String(message.role) + '" message, which is kept: message_end handlers must return the same role');
        continue;
      }
      message = next;
      changed = true;
    }
    return changed ? { message: message } : null;
  }
  if (name === "resources_discover") {
    const merged = { skillPaths: [], promptPaths: [], themePaths: [] };
    const keys = objectKeys(merged);
    let any = false;
    const event = eventOf(name, data, base);
    for (let i = 0; i < handlers.length; i++) {
      if (!live()) return null;
      const got = await callHook(handlers[i], event, ctx);
      if (got === null || !isObject(got.value)) continue;
      for (let k = 0; k < keys.length; k++) {
        const paths = got.value[keys[k]];
        if (!isArray(paths) || paths.length === 0) continue;
        for (let p = 0; p < paths.length; p++) append(merged[keys[k]], paths[p]);
        any = true;
      }
    }
    return any ? merged : null;
  }
  const event = eventOf(name, data, base);
  const firstWins = name === "user_bash";
  const cancellable = stringStartsWith(name, "session_before_");
  let result = null;
  for (let i = 0; i < handlers.length; i++) {
    if (!live()) return null;
    const got = await callHook(handlers[i], event, ctx);
    if (got === null) continue;
    if (firstWins || cancellable) {
      if (!got.value) continue;
      result = got.value;
      // user_bash operations are code: they run here (user-bash.ts), the answer is their result.
      if (firstWins) return settleUserBash(result, input, inv);
      if (got.value.cancel) return result;
    } else if (got.value !== undefined) {
      result = got.value;
    }
  }
  return result;
}

// Older names pi folded into session_start with a reason: such a handler runs only for its reasons
// (a session_switch handler is about a new or resumed session, never the start-up).
const ALIAS_REASONS = { __proto__: null, session_switch: ["new", "resume"], session_fork: ["fork"],
  session_branch: ["fork"] };
function forReason(list, data) {
  const reason = isObject(data) ? data.reason : undefined;
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const reasons = ALIAS_REASONS[list[i].registeredAs];
    if (reasons === undefined || arrayIncludes(reasons, reason)) append(out, list[i]);
  }
  return out;
}

async function runHook(inv, invocation, snap) {
  const event = isObject(invocation.event) ? invocation.event : {};
  const name = typeof event.name === "string" ? event.name : "";
  const resolved = !setHas(KNOWN, name) && hasOwn(EVENT_ALIASES, name) ? EVENT_ALIASES[name] : name;
  const list = mapGet(hooks, resolved);
  const handlers = list === undefined ? [] : resolved === "session_start" ? forReason(list, event.data) : copy(list);
  try {
    answer(inv, success(await reduceHook(resolved, event.data, handlers, makeContext(inv, snap, false), inv)));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

function runInvoke(id, request) {
  if (mapHas(inflight, id)) return;
  if (phase !== "ready") {
    const why = phase === "failed" ? "the extension failed to load" : "the extension is not initialized: invoke came " +
      "before initialize was answered";
    sendResult(id, failure(why), "the invocation");
    return;
  }
  if (isObject(request.context)) {
    applySession(request.context.session);
    snapshot = objectAssign({}, request.context);
  }
  const snap = snapshot;
  const invocation = isObject(request.invocation) ? request.invocation : {};
  if (invocation.kind === "tool") runTool(newInvocation(id, 'tool "' + invocation.name + '"'), invocation, snap);
  else if (invocation.kind === "command") runCommand(newInvocation(id, 'command "' + invocation.name + '"'),
      invocation, snap);
  else if (invocation.kind === "render") runRender(newInvocation(id, "a render"), invocation, snap);
  else if (invocation.kind === "hook") {
    const name = isObject(invocation.event) ? invocation.event.name : undefined;
    runHook(newInvocation(id, 'the "' + name + '" hook'), invocation, snap);
  } else if (invocation.kind === "shortcut") {
    runShortcut(newInvocation(id, 'shortcut "' + invocation.key + '"'), invocation, snap);
  } else {
    sendResult(id, failure("unknown invocation kind " + stringify(invocation.kind) + ' (expected "tool", "command" ' +
      'or "hook")'), "the invocation");
  }
}

function onRequest(frame) {
  if (typeof frame.id !== "string" || frame.id === "") return;
  const request = isObject(frame.request) ? frame.request : {};
  if (request.kind === "initialize") runInitialize(frame.id);
  else if (request.kind === "invoke") runInvoke(frame.id, request);
  else sendResult(frame.id, failure("unknown request kind " + stringify(request.kind) + ' (expected "initialize" or ' +
    '"invoke")'), "the request");
}

function onCancel(frame) {
  const inv = mapGet(inflight, frame.id);
  if (inv === undefined || inv.answered) return;
  answer(inv, { status: "cancelled" });
  withdrawOwnedBy(inv.id);
  abortSignal(inv.controller.signal, abortError("the host cancelled the request"));
}

// Shutdown: nothing is sent any more; every signal aborts, every open request rejects.
function onShutdown() {
  if (phase === "closed") return;
  const armed = keysOf(timers);
  for (let i = 0; i < armed.length; i++) host.clearTimer(armed[i]);
  mapClear(timers);
  phase = "closed";
  const invocations = valuesOf(inflight);
  mapClear(inflight);
  for (let i = 0; i < invocations.length; i++) invocations[i].answered = true;
  const open = valuesOf(pending);
  for (let i = 0; i < open.length; i++) open[i].settle(failure("the extension is shutting down"));
  const reason = abortError("the extension is shutting down");
  for (let i = 0; i < invocations.length; i++) abortSignal(invocations[i].controller.signal, reason);
}

function receive(text) {
  if (phase === "closed") return;
  let frame;
  try {
    frame = parse(String(text));
  } catch (_) {
    return;
  }
  if (!isObject(frame)) return;
  if (frame.type === "hello") onHello(frame);
  else if (frame.type === "request") onRequest(frame);
  else if (frame.type === "response") onResponse(frame);
  else if (frame.type === "cancel") onCancel(frame);
  else if (frame.type === "shutdown") onShutdown();
}

return freeze({
  receive(text) {
    try {
      receive(text);
    } catch (e) {
      log("error", "the prelude failed on a host frame: " + describe(e));
    }
  },
  setFactory(value) {
    dropConsoleGlobal();
    if (phase === "new") factory = value;
  },
  fireTimer(id) {
    fireTimer(id);
  },
});
`;
