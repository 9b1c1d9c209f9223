/**
 * The rpi frame catalog (docs/rpi-protocol.md) as types, and the strict reader of the frames an
 * extension sends. Host frames are built by the host and need no reader here.
 *
 * Contract: parseExtensionFrame accepts exactly the documented shapes; anything else (an unknown
 * type, a missing or mistyped member, an unknown kind) is a problem string that names the member,
 * which the caller treats as a protocol violation (RPI-37). Unknown extra members are ignored so
 * a newer extension's optional fields do not break an older host.
 */
import { isPlainObject } from "@octet/protocol";

export const PROTOCOL_VERSION = 1;
/** Every frame, both directions, at most this many UTF-8 bytes without the LF (RPI-35). */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
/**
 * Extension requests (UI, actions) one instance may have awaiting the host's answer. The host
 * refuses past it, and the QuickJS prelude holds back at the same bound, so a flood is refused
 * in the extension (once, with a warning) instead of by the host, request by request.
 */
export const MAX_EXTENSION_REQUESTS = 64;

export type ExtensionMode = "tui" | "rpc" | "json" | "print";

export interface InstanceId {
  extensionId: string;
  generation: number;
}

export interface InvocationContext {
  cwd: string;
  mode: ExtensionMode;
  projectTrusted: boolean;
  sessionName?: string | null;
  thinkingLevel?: string | null;
  model?: unknown;
  activeTools?: string[];
  allTools?: string[];
  commands?: { name: string; description?: string }[];
  /** The foreground session, when the host runs one (octet/session-mirror.ts); entries as a delta. */
  session?: SessionContext;
}

/**
 * The session an invocation sees (pi's ctx.sessionManager, isIdle, getContextUsage,
 * getSystemPrompt, model). `entries` is a delta: the extension keeps a mirror, cuts it to `from`
 * entries and appends `items` (from 0 starts over, as when the session id changes).
 */
export interface SessionContext {
  id: string;
  file: string;
  name: string | null;
  leafId: string | null;
  idle: boolean;
  pendingMessages: boolean;
  systemPrompt: string;
  contextUsage: { tokens: number; contextWindow: number; percent: number } | null;
  /** The thinking level in effect (pi's getThinkingLevel). */
  thinkingLevel?: string;
  entries: { from: number; items: Record<string, unknown>[] };
  /**
   * The host's model registry (pi's ctx.modelRegistry) as a delta like `entries`: `version`
   * changes when the list does (start over at from 0). Absent: nothing new since the last one.
   */
  models?: { version: number; from: number; items: { model: Record<string, unknown>; available: boolean }[] };
}

export type Invocation =
  | { kind: "tool"; name: string; callId: string; arguments: Record<string, unknown> }
  | { kind: "command"; name: string; arguments: string }
  | { kind: "hook"; event: { name: string; data: unknown } }
  | RenderInvocation
  | { kind: "shortcut"; key: string };

/**
 * octet's own invocation (pi has no such frame): the extension renders pi's renderers to text
 * lines `width` cells wide (QuickJS prelude/render.ts). A tool answers {call, result}: the lines
 * of renderCall(arguments) and of renderResult(result), each null where there is none; a
 * message answers {lines}, null when no renderer is registered for its customType.
 */
export type RenderInvocation =
  | {
      kind: "render";
      target: "tool";
      name: string;
      callId?: string;
      arguments: Record<string, unknown>;
      result?: { content: unknown[]; details?: unknown; isError: boolean };
      expanded?: boolean;
      width?: number;
    }
  | {
      kind: "render";
      target: "message";
      message: { customType: string; content: unknown; details?: unknown; display?: boolean };
      expanded?: boolean;
      width?: number;
    };

export type HostRequest =
  | { kind: "initialize" }
  | { kind: "invoke"; invocation: Invocation; context?: InvocationContext };

export type ProtocolResult =
  | { status: "success"; value: unknown }
  | { status: "error"; error: { message: string; code?: string } }
  | { status: "cancelled" };

export type HostFrame =
  | {
      type: "hello";
      protocolVersion: number;
      instance: InstanceId;
      cwd: string;
      mode: ExtensionMode;
      projectTrusted: boolean;
      /** The host's --pi-flag values (pi's registerFlag/getFlag), when it was given any. */
      flags?: Record<string, string | boolean>;
    }
  | { type: "request"; id: string; generation: number; request: HostRequest }
  | { type: "response"; id: string; result: ProtocolResult }
  | { type: "cancel"; id: string }
  | { type: "shutdown"; reason: string };

export interface ToolDescriptor {
  name: string;
  label?: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The tool has pi's renderCall or renderResult: the host may send it a render invocation. */
  renderer?: boolean;
  /** pi's one line for the system prompt's tool list, and its guidelines (octet's prompt metadata). */
  promptSnippet?: string;
  promptGuidelines?: string[];
}

export type Registration =
  | { kind: "tool"; tool: ToolDescriptor }
  | { kind: "command"; command: { name: string; description?: string } }
  | { kind: "hook"; hook: { event: string } }
  /** pi's registerShortcut, in pi's key syntax (the host maps it, octet/shortcuts.ts). */
  | { kind: "shortcut"; shortcut: { key: string; description?: string } }
  /** pi's registerFlag: the host warns about a --pi-flag no extension registered. */
  | { kind: "flag"; flag: { name: string } }
  /** pi's registerProvider, its data only (the prelude refuses streamSimple): a models.json provider. */
  | { kind: "provider"; provider: { name: string; config: Record<string, unknown> } };

export type RegistrationKind = Registration["kind"];

export interface HelloManifest {
  id: string;
  name: string;
  version: string;
  capabilities: string[];
  uiCapabilities: string[];
}

/** `parentId`: the host request (invocation) on whose behalf the extension asks, when it knows. */
export type ExtensionRequest =
  | { kind: "ui"; ui: { request: { type: string } & Record<string, unknown>; timeoutMs?: number }; parentId?: string }
  | { kind: "action"; action: { kind: string } & Record<string, unknown>; parentId?: string };

/** Severity of an extension's log frame. */
export type LogLevel = "info" | "warning" | "error";

export type ExtensionFrame =
  | { type: "hello"; protocolVersion: number; manifest: HelloManifest }
  | { type: "register"; registration: Registration }
  | { type: "unregister"; registration: { kind: "tool" | "command" | "hook"; name: string } }
  | { type: "response"; id: string; result: ProtocolResult }
  | { type: "update"; id: string; value: unknown }
  | { type: "request"; id: string; request: ExtensionRequest }
  | { type: "cancel"; id: string }
  | { type: "log"; level: LogLevel; message: string };

export type Parsed<T> = { ok: true; frame: T } | { ok: false; problem: string };

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });

function str(o: Record<string, unknown>, key: string, where: string): string | { problem: string } {
  const v = o[key];
  return typeof v === "string" && v.length > 0
    ? v
    : { problem: `${where}.${key} must be a non-empty string (got ${shown(v)})` };
}

/** A received value for a message: JSON, at most 80 characters. */
function shown(v: unknown): string {
  const text = v === undefined ? "nothing" : (JSON.stringify(v) ?? String(v));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function strings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

function parseResult(v: unknown): ProtocolResult | string {
  if (!isPlainObject(v)) return `response.result must be an object (got ${shown(v)})`;
  switch (v["status"]) {
    case "success":
      return { status: "success", value: v["value"] ?? null };
    case "error": {
      const e = v["error"];
      if (!isPlainObject(e) || typeof e["message"] !== "string")
        return `response.result.error must be an object with a string message (got ${shown(e)})`;
      return {
        status: "error",
        error: typeof e["code"] === "string" ? { message: e["message"], code: e["code"] } : { message: e["message"] },
      };
    }
    case "cancelled":
      return { status: "cancelled" };
    default:
      return `response.result.status must be "success", "error" or "cancelled" (got ${JSON.stringify(v["status"])})`;
  }
}

function parseRegistration(v: unknown): Registration | string {
  if (!isPlainObject(v)) return `register.registration must be an object (got ${shown(v)})`;
  const kind = v["kind"] === "event_hook" ? "hook" : v["kind"];
  if (kind === "tool") {
    const t = v["tool"];
    if (!isPlainObject(t)) return `registration.tool must be an object (got ${shown(t)})`;
    for (const k of ["name", "description"])
      if (typeof t[k] !== "string" || (k === "name" && t[k] === ""))
        return `registration.tool.${k} must be a ${k === "name" ? "non-empty " : ""}string (got ${shown(t[k])})`;
    if (t["label"] !== undefined && typeof t["label"] !== "string")
      return `registration.tool.label must be a string (got ${shown(t["label"])})`;
    const parameters = t["parameters"] ?? { type: "object", properties: {} };
    if (!isPlainObject(parameters))
      return `registration.tool.parameters must be a JSON Schema object (got ${shown(parameters)})`;
    const tool: ToolDescriptor = { name: t["name"] as string, description: t["description"] as string, parameters };
    if (typeof t["label"] === "string") tool.label = t["label"];
    if (t["renderer"] !== undefined && typeof t["renderer"] !== "boolean")
      return `registration.tool.renderer must be a boolean (got ${shown(t["renderer"])})`;
    if (t["renderer"] === true) tool.renderer = true;
    if (t["promptSnippet"] !== undefined && typeof t["promptSnippet"] !== "string")
      return `registration.tool.promptSnippet must be a string (got ${shown(t["promptSnippet"])})`;
    if (typeof t["promptSnippet"] === "string") tool.promptSnippet = t["promptSnippet"];
    const guidelines = t["promptGuidelines"];
    if (guidelines !== undefined && (!Array.isArray(guidelines) || !guidelines.every((g) => typeof g === "string")))
      return `registration.tool.promptGuidelines must be an array of strings (got ${shown(guidelines)})`;
    if (Array.isArray(guidelines)) tool.promptGuidelines = guidelines as string[];
    return { kind: "tool", tool };
  }
  if (kind === "command") {
    const c = v["command"];
    if (!isPlainObject(c) || typeof c["name"] !== "string" || c["name"] === "")
      return `registration.command.name must be a non-empty string (got ${shown(isPlainObject(c) ? c["name"] : c)})`;
    if (c["description"] !== undefined && typeof c["description"] !== "string")
      return `registration.command.description must be a string (got ${shown(c["description"])})`;
    return {
      kind: "command",
      command:
        typeof c["description"] === "string" ? { name: c["name"], description: c["description"] } : { name: c["name"] },
    };
  }
  if (kind === "hook") {
    const h = v["hook"];
    if (!isPlainObject(h) || typeof h["event"] !== "string" || h["event"] === "")
      return `registration.hook.event must be a non-empty string (got ${shown(isPlainObject(h) ? h["event"] : h)})`;
    return { kind: "hook", hook: { event: h["event"] } };
  }
  if (kind === "shortcut" || kind === "flag") return parseKeyOrFlag(kind, v[kind]);
  if (kind === "provider") {
    const p = v["provider"];
    if (!isPlainObject(p) || typeof p["name"] !== "string" || p["name"] === "" || !isPlainObject(p["config"]))
      return `registration.provider must be {name: a non-empty string, config: an object} (got ${shown(p)})`;
    return { kind, provider: { name: p["name"], config: p["config"] } };
  }
  return (
    `registration.kind must be "tool", "command", "hook", "shortcut", "flag" or "provider" ` +
    `(got ${JSON.stringify(v["kind"])})`
  );
}

function parseKeyOrFlag(kind: "shortcut" | "flag", v: unknown): Registration | string {
  const member = kind === "shortcut" ? "key" : "name";
  const value = isPlainObject(v) ? v[member] : v;
  if (typeof value !== "string" || value === "")
    return `registration.${kind}.${member} must be a non-empty string (got ${shown(value)})`;
  if (kind === "flag") return { kind, flag: { name: value } };
  const description = (v as Record<string, unknown>)["description"];
  if (description !== undefined && typeof description !== "string")
    return `registration.shortcut.description must be a string (got ${shown(description)})`;
  return { kind, shortcut: typeof description === "string" ? { key: value, description } : { key: value } };
}

function parseRequest(v: unknown): ExtensionRequest | string {
  if (!isPlainObject(v)) return `request.request must be an object (got ${shown(v)})`;
  const parentId = v["parentId"];
  if (parentId !== undefined && (typeof parentId !== "string" || parentId === ""))
    return `request.request.parentId must be a non-empty string (got ${JSON.stringify(parentId)})`;
  const parent = typeof parentId === "string" ? { parentId } : {};
  if (v["kind"] === "ui") {
    const ui = v["ui"];
    if (!isPlainObject(ui) || !isPlainObject(ui["request"]) || typeof ui["request"]["type"] !== "string")
      return (
        `request.request.ui.request must be an object with a string type (got ` +
        `${shown(isPlainObject(ui) ? ui["request"] : ui)})`
      );
    const timeoutMs = ui["timeoutMs"];
    if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0))
      return `request.request.ui.timeoutMs must be a positive number (got ${shown(timeoutMs)})`;
    return {
      kind: "ui",
      ui: { request: ui["request"] as { type: string }, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
      ...parent,
    };
  }
  if (v["kind"] === "action") {
    const a = v["action"];
    if (!isPlainObject(a) || typeof a["kind"] !== "string")
      return "request.request.action must be an object with a string kind";
    return { kind: "action", action: a as { kind: string }, ...parent };
  }
  return `request.request.kind must be "ui" or "action" (got ${JSON.stringify(v["kind"])})`;
}

/** Reads one decoded frame from an extension; see the module contract. */
export function parseExtensionFrame(v: unknown): Parsed<ExtensionFrame> {
  if (!isPlainObject(v)) return fail("a frame must be a JSON object");
  const type = v["type"];
  switch (type) {
    case "hello": {
      if (v["protocolVersion"] !== PROTOCOL_VERSION)
        return fail(`hello.protocolVersion must be ${PROTOCOL_VERSION} (got ${JSON.stringify(v["protocolVersion"])})`);
      const m = v["manifest"];
      if (!isPlainObject(m)) return fail("hello.manifest must be an object");
      for (const k of ["id", "name", "version"]) {
        const s = str(m, k, "hello.manifest");
        if (typeof s !== "string") return fail(s.problem);
      }
      const capabilities = m["capabilities"] ?? [];
      const uiCapabilities = m["uiCapabilities"] ?? [];
      if (!strings(capabilities)) return fail("hello.manifest.capabilities must be an array of strings");
      if (!strings(uiCapabilities)) return fail("hello.manifest.uiCapabilities must be an array of strings");
      return {
        ok: true,
        frame: {
          type,
          protocolVersion: PROTOCOL_VERSION,
          manifest: {
            id: m["id"] as string,
            name: m["name"] as string,
            version: m["version"] as string,
            capabilities,
            uiCapabilities,
          },
        },
      };
    }
    case "register": {
      const r = parseRegistration(v["registration"]);
      return typeof r === "string" ? fail(r) : { ok: true, frame: { type, registration: r } };
    }
    case "unregister": {
      const r = v["registration"];
      const kind = isPlainObject(r) ? (r["kind"] === "event_hook" ? "hook" : r["kind"]) : undefined;
      if (
        !isPlainObject(r) ||
        (kind !== "tool" && kind !== "command" && kind !== "hook") ||
        typeof r["name"] !== "string"
      ) {
        return fail('unregister.registration must be {kind: "tool"|"command"|"hook", name}');
      }
      return { ok: true, frame: { type, registration: { kind, name: r["name"] } } };
    }
    case "response": {
      const id = str(v, "id", "response");
      if (typeof id !== "string") return fail(id.problem);
      const result = parseResult(v["result"]);
      return typeof result === "string" ? fail(result) : { ok: true, frame: { type, id, result } };
    }
    case "update": {
      const id = str(v, "id", "update");
      if (typeof id !== "string") return fail(id.problem);
      return { ok: true, frame: { type, id, value: v["value"] ?? null } };
    }
    case "request": {
      const id = str(v, "id", "request");
      if (typeof id !== "string") return fail(id.problem);
      const request = parseRequest(v["request"]);
      return typeof request === "string" ? fail(request) : { ok: true, frame: { type, id, request } };
    }
    case "cancel": {
      const id = str(v, "id", "cancel");
      return typeof id === "string" ? { ok: true, frame: { type, id } } : fail(id.problem);
    }
    case "log": {
      const level = v["level"];
      if (level !== "info" && level !== "warning" && level !== "error")
        return fail(`log.level must be "info", "warning" or "error" (got ${JSON.stringify(level)})`);
      if (typeof v["message"] !== "string") return fail("log.message must be a string");
      return { ok: true, frame: { type, level, message: v["message"] } };
    }
    default:
      return fail(
        `unknown frame type ${JSON.stringify(type)} (expected hello, register, unregister, response, update, ` +
          `request, cancel or log)`,
      );
  }
}
