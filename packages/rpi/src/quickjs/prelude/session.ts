/**
 * Prelude part 4 of 6: the session mirror and pi's read-only session API over it.
 * The host sends the foreground session in each invocation's context (frames.ts SessionContext,
 * built by octet/session-mirror.ts) with the entries as a delta: cut the mirror to `from`
 * entries, append `items`. ctx.sessionManager (pi's ReadonlySessionManager), ctx.isIdle(),
 * ctx.getContextUsage() and ctx.getSystemPrompt() read the mirror synchronously, as in pi; they
 * describe the session as of the invocation's start. Without a session layer (no agent) there is
 * no mirror: the readers answer what pi answers for a session that is not persisted.
 *
 * Same rules as every part (core.ts): captured built-ins only, arrays by index, append().
 */
export const SESSION_JS = String.raw`
let mirror = null;  // {id, file, name, leafId, idle, systemPrompt, contextUsage, entries, complete}
let models = null;  // {version, items: [{model, available}]}: the host's model registry, as deltas

// The registry's list in chunks (octet/session-mirror.ts): a new version starts over at from 0.
function applyModels(m) {
  if (!isObject(m) || typeof m.version !== "number" || typeof m.from !== "number" || !isArray(m.items)) return;
  const items = models !== null && models.version === m.version ? models.items : [];
  if (m.from > items.length) return;
  const next = [];
  for (let i = 0; i < m.from; i++) append(next, items[i]);
  for (let i = 0; i < m.items.length; i++) if (isObject(m.items[i]) && isObject(m.items[i].model))
    append(next, m.items[i]);
  models = { version: m.version, items: next };
}
function findModel(provider, id) {
  const list = models === null ? [] : models.items;
  for (let i = 0; i < list.length; i++)
    if (list[i].model.provider === provider && list[i].model.id === id) return list[i];
  return undefined;
}
const modelCopy = (item) => parse(stringify(item.model));
function modelsWhere(test) {
  const list = models === null ? [] : models.items;
  const out = [];
  for (let i = 0; i < list.length; i++) if (test(list[i])) append(out, modelCopy(list[i]));
  return out;
}
// pi's ModelRegistry over the mirror. Keys never cross: the agent makes the model requests, and
// an extension that could read a key could send it anywhere; asking for one is refused, saying so.
function makeModelRegistry() {
  const noKeys = (api) => () => promiseReject(fail("ctx.modelRegistry." + api + " is not available: octet never " +
    "gives API keys to extensions (the agent makes the model requests itself); hasConfiguredAuth(model) says " +
    "whether a model has one", "unsupported"));
  return {
    find(provider, id) {
      const item = findModel(String(provider), String(id));
      return item === undefined ? undefined : modelCopy(item);
    },
    getAll: () => modelsWhere(() => true),
    getAvailable: () => modelsWhere((item) => item.available === true),
    hasConfiguredAuth(model) {
      const item = isObject(model) ? findModel(model.provider, model.id) : undefined;
      return item !== undefined && item.available === true;
    },
    isUsingOAuth: () => false,
    getError: () => undefined,
    refresh() {},
    getApiKey: noKeys("getApiKey"),
    getApiKeyForProvider: noKeys("getApiKeyForProvider"),
    getApiKeyAndHeaders: noKeys("getApiKeyAndHeaders"),
  };
}

function applySession(s) {
  if (!isObject(s) || typeof s.id !== "string" || !isObject(s.entries)) return;
  applyModels(s.models);
  const from = s.entries.from;
  const items = s.entries.items;
  if (typeof from !== "number" || !isArray(items)) return;
  const same = mirror !== null && mirror.id === s.id;
  let entries = same ? mirror.entries : [];
  let complete = same ? mirror.complete : from === 0;
  if (from <= entries.length) {
    const cut = [];
    for (let i = 0; i < from; i++) append(cut, entries[i]);
    for (let i = 0; i < items.length; i++) append(cut, items[i]);
    entries = cut;
    if (from === 0) complete = true;
  } else {
    // A gap (a context that never arrived): what is here stays, and the mirror says it is partial.
    complete = false;
  }
  mirror = {
    id: s.id,
    file: typeof s.file === "string" ? s.file : undefined,
    name: typeof s.name === "string" && s.name !== "" ? s.name : undefined,
    leafId: typeof s.leafId === "string" ? s.leafId : null,
    idle: s.idle === true,
    pendingMessages: s.pendingMessages === true,
    systemPrompt: typeof s.systemPrompt === "string" ? s.systemPrompt : "",
    contextUsage: isObject(s.contextUsage) ? s.contextUsage : undefined,
    entries: entries,
    complete: complete,
  };
}

function mirroredEntries() {
  return mirror === null ? [] : mirror.entries;
}
function entryById(id) {
  const list = mirroredEntries();
  for (let i = 0; i < list.length; i++) if (isObject(list[i]) && list[i].id === id) return list[i];
  return undefined;
}
// Root-to-entry path of parentId links (pi's getBranch).
function branchTo(id) {
  const path = [];
  let at = id === undefined || id === null ? undefined : entryById(id);
  let guard = mirroredEntries().length + 1;
  while (at !== undefined && guard-- > 0) {
    append(path, at);
    at = typeof at.parentId === "string" ? entryById(at.parentId) : undefined;
  }
  const out = [];
  for (let i = path.length - 1; i >= 0; i--) append(out, path[i]);
  return out;
}
function labelOf(id) {
  let label;
  const list = mirroredEntries();
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (isObject(e) && e.type === "label" && e.targetId === id) label = e.label === "" ? undefined : e.label;
  }
  return label;
}
function treeOf() {
  const list = mirroredEntries();
  const nodes = new Map();
  const roots = [];
  for (let i = 0; i < list.length; i++) {
    if (!isObject(list[i]) || list[i].type === "label") continue;
    mapSet(nodes, list[i].id, { entry: list[i], children: [], label: labelOf(list[i].id) });
  }
  for (let i = 0; i < list.length; i++) {
    const node = isObject(list[i]) ? mapGet(nodes, list[i].id) : undefined;
    if (node === undefined) continue;
    const parent = typeof list[i].parentId === "string" ? mapGet(nodes, list[i].parentId) : undefined;
    append(parent === undefined ? roots : parent.children, node);
  }
  return roots;
}
function sessionDir(file) {
  if (typeof file !== "string") return "";
  let cut = -1;
  for (let i = 0; i < file.length; i++) if (file[i] === "/") cut = i;
  return cut <= 0 ? "/" : stringSlice(file, 0, cut);
}

// pi's ReadonlySessionManager over the mirror (copies of the lists: an edit cannot change it).
function makeSessionManager(cwd) {
  return {
    getCwd: () => cwd,
    getSessionDir: () => sessionDir(mirror === null ? undefined : mirror.file),
    getSessionId: () => (mirror === null ? "" : mirror.id),
    getSessionFile: () => (mirror === null ? undefined : mirror.file),
    getSessionName: () => (mirror === null ? undefined : mirror.name),
    getLeafId: () => (mirror === null ? null : mirror.leafId),
    getLeafEntry: () => (mirror === null || mirror.leafId === null ? undefined : entryById(mirror.leafId)),
    getEntry: (id) => entryById(id),
    getLabel: (id) => labelOf(id),
    getBranch: (fromId) => branchTo(fromId === undefined ? (mirror === null ? null : mirror.leafId) : fromId),
    getHeader: () => (mirror === null ? null
      : { type: "session", version: 3, id: mirror.id, timestamp: "", cwd: cwd }),
    getEntries: () => copy(mirroredEntries()),
    getTree: () => treeOf(),
  };
}

// pi's SessionManager as ctx.newSession's setup callback gets it: its writes are recorded (pi's
// SessionEntry shapes, ids counted from 1 in the empty new session) and travel with the request;
// the host writes them into the new session before it starts. Reads see what was written so far.
function makeSetupRecorder(cwd) {
  const entries = [];
  let leaf = null;
  const add = (entry) => {
    const id = stringSlice("00000000000" + (entries.length + 1), -12);
    append(entries, objectAssign({ id: id, parentId: leaf, timestamp: "" }, entry));
    leaf = id;
    return id;
  };
  const unsupported = (api) => () => { throw fail(api + " has no octet session entry", "unsupported"); };
  return {
    entries: entries,
    manager: {
      getCwd: () => cwd,
      getLeafId: () => leaf,
      getEntries: () => copy(entries),
      appendMessage: (message) => add({ type: "message", message: message }),
      appendCustomEntry: (customType, data) => add({ type: "custom", customType: String(customType), data: data }),
      appendCustomMessageEntry: (customType, content, display, details) => add(withOptional({ type:
        "custom_message", customType: String(customType), content: content, display: display !== false }, "details",
        details)),
      appendSessionInfo: (name) => add({ type: "session_info", name: String(name) }),
      appendLabelChange: (targetId, label) => add({ type: "label", targetId: String(targetId),
        label: label === undefined ? "" : String(label) }),
      appendModelChange: (provider, modelId) => add({ type: "model_change", provider: String(provider),
        modelId: String(modelId) }),
      appendThinkingLevelChange: unsupported("sessionManager.appendThinkingLevelChange"),
      appendCompaction: unsupported("sessionManager.appendCompaction"),
      branchWithSummary: unsupported("sessionManager.branchWithSummary"),
    },
  };
}

// ctx.newSession, ctx.fork and ctx.navigateTree: the host's session layer does the work. The answer
// carries the session now (the mirror takes it, so every ctx reads the new session); withSession
// runs after the replacement with a fresh ctx (this instance is not reloaded, unlike pi).
async function replaceSession(api, body, options, owner, fresh) {
  const opts = isObject(options) ? options : {};
  if (api === "ctx.newSession" && typeof opts.setup === "function") {
    const recorder = makeSetupRecorder(fresh().cwd);
    await opts.setup(recorder.manager);
    put(body, "entries", recorder.entries);
  }
  const value = await action(api, body, owner);
  const result = isObject(value) ? value : {};
  if (isObject(result.session)) applySession(result.session);
  if (result.cancelled === true) return { cancelled: true };
  if (typeof opts.withSession === "function") await opts.withSession(fresh());
  const out = { cancelled: false };
  if (typeof result.selectedText === "string") put(out, "selectedText", result.selectedText);
  if (typeof result.editorText === "string") put(out, "editorText", result.editorText);
  return out;
}
`;
