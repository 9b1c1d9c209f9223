/**
 * Prelude part 5 of 5: the host's frames. Handshake, initialize (the load), tool, command and
 * hook invocations with pi's hook reductions, cancel, shutdown, and the bridge object the
 * engine drives.
 *
 * Contracts:
 * - Every host request is answered exactly once, unless shutdown came first: a cancel answers
 *   `cancelled` at once (a later result is dropped), aborts the invocation's signal and withdraws
 *   its open UI/action requests. A result that cannot be sent (over the frame limit, not JSON) is
 *   answered with an error that says so.
 * - Hook handlers run in registration order; a throw is logged and the next handler runs, except
 *   for tool_call, where a throw blocks (fail closed). The reduced value, or null, is the answer:
 *   tool_call: the first {block: true} wins, else the last truthy result, plus `input` when a
 *     handler changed event.input in place (pi's way of editing arguments);
 *   tool_result: content/details/isError chained on one event, {content, details, isError} if any
 *     handler changed one;
 *   input: transform chained, "handled" stops, {action:"transform", text, images?} or null;
 *   before_agent_start: systemPrompt chained, messages collected: {messages?, systemPrompt?};
 *   context: messages chained: {messages}; before_provider_request: the payload chained;
 *   user_bash: the first truthy result; resources_discover: the path lists merged;
 *   session_before_*: the last truthy result, a {cancel: true} stops;
 *   any other event: the last value that is not undefined.
 * - Unknown top-level frame types are ignored; unknown request and invocation kinds get an error.
 */
export const DISPATCH_JS = String.raw`
function newInvocation(id, what) {
  const inv = { id: id, what: what, controller: new AbortController(), answered: false };
  inflight.set(id, inv);
  return inv;
}
function sendResult(id, result, what) {
  const problem = trySend({ type: "response", id: id, result: result }, "the result of " + what);
  if (problem !== null && phase !== "closed") trySend({ type: "response", id: id, result: failure(problem) }, "an error response");
}
function answer(inv, result) {
  if (inv.answered) return;
  inv.answered = true;
  inflight.delete(inv.id);
  sendResult(inv.id, result, inv.what);
}

function onHello(frame) {
  if (session !== null) return;
  session = { instance: frame.instance, cwd: frame.cwd, mode: frame.mode, projectTrusted: frame.projectTrusted === true };
  trySend({
    type: "hello",
    protocolVersion: PROTOCOL_VERSION,
    manifest: { id: EXTENSION_ID, name: EXTENSION_ID, version: "0.0.0", capabilities: CAPABILITIES, uiCapabilities: UI_CAPABILITIES },
  }, "the hello frame");
}

async function runInitialize(id) {
  if (phase !== "new") {
    sendResult(id, failure(phase === "failed" ? "the extension failed to load" : "initialize was already requested"), "initialize");
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
    queued.clear();
    answer(inv, failure("the extension factory failed: " + describe(e)));
    return;
  }
  if (inv.answered) {
    if (phase !== "closed") phase = "failed";
    return;
  }
  for (const [key, registration] of queued) {
    const problem = trySend({ type: "register", registration: registration }, "the registration of " + describeRegistration(registration));
    if (problem !== null) {
      phase = "failed";
      answer(inv, failure(problem));
      return;
    }
    registered.add(key);
  }
  queued.clear();
  phase = "ready";
  answer(inv, success({}));
}

function toolResult(name, value) {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (isObject(value) && Array.isArray(value.content)) {
    const result = { content: value.content };
    if (value.details !== undefined) result.details = value.details;
    if (typeof value.isError === "boolean") result.isError = value.isError;
    return result;
  }
  throw new TypeError('tool "' + name + '" returned ' + (isObject(value) ? "an object without a content array" : kindOf(value)) +
    "; expected an AgentToolResult {content: [...], details?}");
}

async function runTool(inv, invocation, snap) {
  const tool = tools.get(invocation.name);
  if (tool === undefined) return answer(inv, failure('unknown tool "' + invocation.name + '"'));
  const onUpdate = (partial) => {
    if (inv.answered) return;
    const problem = trySend({ type: "update", id: inv.id, value: partial === undefined ? null : partial }, 'an update of tool "' + tool.name + '"');
    if (problem === null) return;
    answer(inv, failure(problem));
    abortSignal(inv.controller.signal, abortError(problem));
    throw fail(problem);
  };
  try {
    const args = isObject(invocation.arguments) ? invocation.arguments : {};
    const value = await tool.run.call(tool.definition, String(invocation.callId), args, inv.controller.signal, onUpdate, makeContext(inv, snap, false));
    answer(inv, success(toolResult(tool.name, value)));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

async function runCommand(inv, invocation, snap) {
  const command = commands.get(invocation.name);
  if (command === undefined) return answer(inv, failure('unknown command "' + invocation.name + '"'));
  try {
    const args = typeof invocation.arguments === "string" ? invocation.arguments : "";
    answer(inv, success(await command.handler.call(command.options, args, makeContext(inv, snap, true))));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

function eventOf(name, data, extra) {
  const event = isObject(data) ? Object.assign({}, data) : (data === undefined || data === null ? {} : { data: data });
  Object.assign(event, extra);
  event.type = name;
  return event;
}
function jsonOf(value) {
  try { return JSON.stringify(value); } catch (_) { return null; }
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
    for (const handler of handlers) {
      if (!live()) return null;
      let value;
      try {
        value = await handler.fn(event, ctx);
      } catch (e) {
        return { block: true, reason: 'a tool_call handler of extension "' + EXTENSION_ID + '" threw: ' + describe(e) };
      }
      if (value) {
        result = value;
        if (value.block) return value;
      }
    }
    return jsonOf(event.input) !== before ? Object.assign({}, result, { input: event.input }) : result;
  }
  if (name === "tool_result") {
    const event = eventOf(name, data, base);
    let changed = false;
    for (const handler of handlers) {
      if (!live()) return null;
      const got = await callHook(handler, event, ctx);
      if (got === null || !isObject(got.value)) continue;
      for (const key of ["content", "details", "isError"]) {
        if (got.value[key] !== undefined) {
          event[key] = got.value[key];
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
    for (const handler of handlers) {
      if (!live()) return null;
      const got = await callHook(handler, eventOf(name, data, { text: text, images: images }), ctx);
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
    for (const handler of handlers) {
      if (!live()) return null;
      const got = await callHook(handler, eventOf(name, data, { systemPrompt: systemPrompt }), ctx);
      const value = got === null ? undefined : got.value;
      if (!isObject(value)) continue;
      if (value.message) messages.push(value.message);
      if (value.systemPrompt !== undefined) {
        systemPrompt = value.systemPrompt;
        changed = true;
      }
    }
    if (messages.length === 0 && !changed) return null;
    return withOptional(messages.length > 0 ? { messages: messages } : {}, "systemPrompt", changed ? systemPrompt : undefined);
  }
  if (name === "context" || name === "before_provider_request") {
    const key = name === "context" ? "messages" : "payload";
    let current = input[key];
    let changed = false;
    for (const handler of handlers) {
      if (!live()) return null;
      const got = await callHook(handler, eventOf(name, data, { [key]: current }), ctx);
      if (got === null) continue;
      const next = key === "messages" ? (isObject(got.value) ? got.value.messages : undefined) : got.value;
      if (next !== undefined && next !== null) {
        current = next;
        changed = true;
      }
    }
    return !changed ? null : key === "messages" ? { messages: current } : current;
  }
  if (name === "resources_discover") {
    const merged = { skillPaths: [], promptPaths: [], themePaths: [] };
    let any = false;
    const event = eventOf(name, data, base);
    for (const handler of handlers) {
      if (!live()) return null;
      const got = await callHook(handler, event, ctx);
      if (got === null || !isObject(got.value)) continue;
      for (const key of Object.keys(merged)) {
        if (Array.isArray(got.value[key]) && got.value[key].length > 0) {
          merged[key].push(...got.value[key]);
          any = true;
        }
      }
    }
    return any ? merged : null;
  }
  const event = eventOf(name, data, base);
  const firstWins = name === "user_bash";
  const cancellable = name.startsWith("session_before_");
  let result = null;
  for (const handler of handlers) {
    if (!live()) return null;
    const got = await callHook(handler, event, ctx);
    if (got === null) continue;
    if (firstWins || cancellable) {
      if (!got.value) continue;
      result = got.value;
      if (firstWins || got.value.cancel) return result;
    } else if (got.value !== undefined) {
      result = got.value;
    }
  }
  return result;
}

async function runHook(inv, invocation, snap) {
  const event = isObject(invocation.event) ? invocation.event : {};
  const name = typeof event.name === "string" ? event.name : "";
  const resolved = !KNOWN.has(name) && hasOwn(EVENT_ALIASES, name) ? EVENT_ALIASES[name] : name;
  const handlers = (hooks.get(resolved) || []).slice();
  try {
    answer(inv, success(await reduceHook(resolved, event.data, handlers, makeContext(inv, snap, false), inv)));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}

function runInvoke(id, request) {
  if (inflight.has(id)) return;
  if (phase !== "ready") {
    const why = phase === "failed" ? "the extension failed to load" : "the extension is not initialized: invoke came before initialize was answered";
    sendResult(id, failure(why), "the invocation");
    return;
  }
  if (isObject(request.context)) snapshot = Object.assign({}, request.context);
  const snap = snapshot;
  const invocation = isObject(request.invocation) ? request.invocation : {};
  if (invocation.kind === "tool") runTool(newInvocation(id, 'tool "' + invocation.name + '"'), invocation, snap);
  else if (invocation.kind === "command") runCommand(newInvocation(id, 'command "' + invocation.name + '"'), invocation, snap);
  else if (invocation.kind === "hook") {
    const name = isObject(invocation.event) ? invocation.event.name : undefined;
    runHook(newInvocation(id, 'the "' + name + '" hook'), invocation, snap);
  } else {
    sendResult(id, failure("unknown invocation kind " + JSON.stringify(invocation.kind) + ' (expected "tool", "command" or "hook")'), "the invocation");
  }
}

function onRequest(frame) {
  if (typeof frame.id !== "string" || frame.id === "") return;
  const request = isObject(frame.request) ? frame.request : {};
  if (request.kind === "initialize") runInitialize(frame.id);
  else if (request.kind === "invoke") runInvoke(frame.id, request);
  else sendResult(frame.id, failure("unknown request kind " + JSON.stringify(request.kind) + ' (expected "initialize" or "invoke")'), "the request");
}

function onCancel(frame) {
  const inv = inflight.get(frame.id);
  if (inv === undefined || inv.answered) return;
  answer(inv, { status: "cancelled" });
  withdrawOwnedBy(inv.id);
  abortSignal(inv.controller.signal, abortError("the host cancelled the request"));
}

// Shutdown: nothing is sent any more; every signal aborts, every open request rejects.
function onShutdown() {
  if (phase === "closed") return;
  for (const id of timers.keys()) host.clearTimer(id);
  timers.clear();
  phase = "closed";
  const invocations = Array.from(inflight.values());
  inflight.clear();
  for (const inv of invocations) inv.answered = true;
  for (const entry of Array.from(pending.values())) entry.settle(failure("the extension is shutting down"));
  const reason = abortError("the extension is shutting down");
  for (const inv of invocations) abortSignal(inv.controller.signal, reason);
}

function receive(text) {
  if (phase === "closed") return;
  let frame;
  try {
    frame = JSON.parse(String(text));
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

return Object.freeze({
  receive(text) {
    try {
      receive(text);
    } catch (e) {
      log("error", "the prelude failed on a host frame: " + describe(e));
    }
  },
  setFactory(value) {
    if (phase === "new") factory = value;
  },
  fireTimer(id) {
    fireTimer(id);
  },
});
`;
