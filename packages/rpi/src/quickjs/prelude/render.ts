/**
 * Prelude part: pi's renderers as text. A tool's renderCall/renderResult, a message renderer
 * (pi.registerMessageRenderer) and a setFooter/setHeader factory return pi-tui Components; here
 * they are rendered to lines (`component.render(width)`), which the host shows as text.
 *
 * Contracts:
 * - The render invocation (frames.ts RenderInvocation) answers {call, result} for a tool (each a
 *   list of lines, or null where the tool has no such renderer or it returned nothing) and
 *   {lines} for a message (null when no renderer is registered for its customType). An unknown
 *   tool or a renderer that throws answers an error, and the host falls back to plain text.
 * - renderCall gets (args, theme, context) and renderResult (result, {expanded, isPartial},
 *   theme, context) as in pi; the context (ToolRenderContext) is shared by the two calls of one
 *   render, with `state` fresh each time (there is no persistent tool row to keep it in).
 * - The theme of a tool render marks theme.fg(color, text) with its color (ROLE_THEME), which the
 *   host makes style roles; messages and header/footer get the plain theme (host-calls.ts).
 * - Lines: a Component's render(width) result (or a string, split at newlines), each trimmed at
 *   the end, at most MAX_RENDER_LINES (the rest counted in one last line).
 * - setHeader/setFooter (showSurface): the factory's component as lines on octet's header and
 *   footer status surfaces; pi's footerData answers no branch, no statuses and no providers.
 * - registerMessageRenderer needs the `ui` capability or `message_renderers` (QuickJS manifests
 *   cannot grant that one, RPI-12: its renderers produce only text here, like setWidget's lines).
 *   It may be called at any time (no catalog changes); a second renderer for a type replaces it.
 */
export const RENDER_JS = String.raw`
const MAX_RENDER_LINES = 400;
const DEFAULT_RENDER_WIDTH = 100;
const stringSplit = uncurry(String.prototype.split);
const stringTrimEnd = uncurry(String.prototype.trimEnd);
const messageRenderers = new Map();   // customType -> renderer

// The theme of tool renders: theme.fg(color, text) marks the text with its color as an OSC
// sequence (zero cells wide for pi-tui's width functions), which the host turns into segments with
// that style role (octet/render-mapping.ts); everything else is the plain theme's.
const ROLE_MARK = "\u001b]7373;";
const ROLE_END = "\u0007";
const ROLE_THEME = freeze(objectAssign({}, PLAIN_THEME, {
  fg: (color, text) => ROLE_MARK + String(color) + ROLE_END + String(text) + ROLE_MARK + ROLE_END,
}));
function renderWidth(value) {
  const n = Number(value);
  return numberIsFinite(n) && n >= 20 ? mathMin(mathFloor(n), 400) : DEFAULT_RENDER_WIDTH;
}
// The lines of what a renderer or factory returned; null for nothing.
function componentLines(component, width, what) {
  if (component === undefined || component === null) return null;
  let raw;
  if (typeof component === "string") raw = stringSplit(component, "\n");
  else if (isArray(component)) raw = component;
  else if (typeof component === "object" && typeof component.render === "function") raw = component.render(width);
  if (!isArray(raw)) {
    throw new TypeError(what + " returned " + kindOf(component) + " that is not a component (render(width) must " +
      "return an array of strings)");
  }
  const out = [];
  const n = mathMin(raw.length, MAX_RENDER_LINES);
  for (let i = 0; i < n; i++) append(out, stringTrimEnd(String(raw[i])));
  if (raw.length > n) append(out, "... " + (raw.length - n) + " more lines");
  return out;
}

function registerMessageRenderer(customType, renderer) {
  if (!hasCapability("ui") && !hasCapability("message_renderers")) {
    throw capabilityError("pi.registerMessageRenderer", "ui");
  }
  if (typeof customType !== "string" || customType === "") {
    throw new TypeError("pi.registerMessageRenderer: the customType must be a non-empty string");
  }
  if (typeof renderer !== "function") {
    throw new TypeError('pi.registerMessageRenderer("' + customType + '"): the renderer must be a function');
  }
  mapSet(messageRenderers, customType, renderer);
}

// A custom message sent with display:true is rendered once, when it is sent, by its type's renderer
// (collapsed, plain theme): octet's wire has no request to render a message later, so the lines
// travel with the entry (octet/session-actions.ts) for a frontend to show. Synchronously, as pi's
// MessageRenderer returns a component: the action is sent in the same turn as without a renderer.
// No renderer, a promise, or a renderer that throws (logged): undefined, and a frontend shows the
// content.
function renderForDisplay(message) {
  if (!isObject(message) || message.display !== true || typeof message.customType !== "string") return undefined;
  const renderer = mapGet(messageRenderers, message.customType);
  if (renderer === undefined) return undefined;
  try {
    const shown = objectAssign({ role: "custom" }, message);
    const component = renderer(shown, { expanded: false }, PLAIN_THEME);
    if (isObject(component) && typeof component.then === "function") return undefined;
    const lines = componentLines(component, DEFAULT_RENDER_WIDTH, 'the message renderer of "' + message.customType +
        '"');
    return lines === null ? undefined : lines;
  } catch (e) {
    log("error", 'the message renderer of "' + message.customType + '" failed: ' + describe(e));
    return undefined;
  }
}

// setHeader/setFooter: one component per surface, rendered at DEFAULT_RENDER_WIDTH and sent as a
// "surface" request {surface, lines}; tui.requestRender() sends it again (once per turn of the
// event loop), a new factory or undefined disposes the old component (undefined sends no lines).
const surfaces = new Map();   // surface -> {component, dispose}
const FOOTER_DATA = freeze({
  getGitBranch: () => null,
  getExtensionStatuses: () => new Map(),
  getAvailableProviderCount: () => 0,
  onBranchChange: () => () => undefined,
});
function showSurface(method, surface, factory, tell) {
  if (factory !== undefined && factory !== null && typeof factory !== "function" && !isArray(factory)) {
    throw new TypeError("ctx.ui." + method + " takes a component factory (tui, theme) => Component, or undefined");
  }
  const send = (lines) => tell(method, "status", withOptional({ type: "surface", surface: surface }, "lines", lines));
  const before = mapGet(surfaces, surface);
  if (before !== undefined) {
    mapDelete(surfaces, surface);
    try {
      before.dispose();
    } catch (e) {
      log("error", "the old " + surface + " component's dispose threw: " + describe(e));
    }
  }
  if (factory === undefined || factory === null) return send(undefined);
  const entry = { component: undefined, pending: false, dispose: () => {
    const c = entry.component;
    if (c !== null && typeof c === "object" && typeof c.dispose === "function") c.dispose();
  } };
  const draw = () => {
    entry.pending = false;
    if (mapGet(surfaces, surface) !== entry) return undefined;
    return send(componentLines(entry.component, DEFAULT_RENDER_WIDTH, "the ctx.ui." + method + " component") || []);
  };
  const tui = freeze({
    requestRender() {
      if (entry.pending || mapGet(surfaces, surface) !== entry) return;
      entry.pending = true;
      arm(() => {
        try {
          const sent = draw();
          if (sent !== undefined) promiseThen(sent, undefined, () => undefined);
        } catch (e) {
          log("error", "ctx.ui." + method + ": the component failed to render: " + describe(e));
        }
      }, 0, [], false);
    },
    terminal: freeze({ columns: DEFAULT_RENDER_WIDTH, rows: 24 }),
  });
  mapSet(surfaces, surface, entry);
  entry.component = isArray(factory) ? factory : factory(tui, PLAIN_THEME, FOOTER_DATA);
  return draw();
}

async function runRender(inv, invocation, snap) {
  try {
    const width = renderWidth(invocation.width);
    const expanded = invocation.expanded === true;
    if (invocation.target === "message") {
      const message = isObject(invocation.message) ? objectAssign({ role: "custom" }, invocation.message) : {};
      const type = String(message.customType);
      const renderer = mapGet(messageRenderers, type);
      if (renderer === undefined) return answer(inv, success({ lines: null }));
      const component = await renderer(message, { expanded: expanded }, PLAIN_THEME);
      return answer(inv, success({ lines: componentLines(component, width,
          'the message renderer of "' + type + '"') }));
    }
    const tool = mapGet(tools, String(invocation.name));
    if (tool === undefined) return answer(inv, failure('unknown tool "' + invocation.name + '"'));
    const def = tool.definition;
    const args = isObject(invocation.arguments) ? invocation.arguments : {};
    const result = isObject(invocation.result) ? invocation.result : null;
    const context = {
      args: args,
      toolCallId: typeof invocation.callId === "string" ? invocation.callId : "",
      invalidate() {},
      lastComponent: undefined,
      state: {},
      cwd: typeof snap.cwd === "string" ? snap.cwd : session !== null ? session.cwd : undefined,
      executionStarted: true,
      argsComplete: true,
      isPartial: false,
      expanded: expanded,
      showImages: false,
      isError: result !== null && result.isError === true,
    };
    const where = 'tool "' + tool.name + '"';
    const call = typeof def.renderCall === "function" ? componentLines(await apply(def.renderCall, def,
        [args, ROLE_THEME, context]), width, "the renderCall of " + where) : null;
    let lines = null;
    if (result !== null && typeof def.renderResult === "function") {
      const component = await apply(def.renderResult, def, [result, { expanded: expanded, isPartial: false },
          ROLE_THEME, context]);
      lines = componentLines(component, width, "the renderResult of " + where);
    }
    answer(inv, success({ call: call, result: lines }));
  } catch (e) {
    answer(inv, failure(describe(e)));
  }
}
`;
