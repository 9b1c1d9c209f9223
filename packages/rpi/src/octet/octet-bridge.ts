/**
 * The rpi extension as the octet host sees it: an in-process stand-in for a child process that
 * speaks octet's JSON-RPC on its "stdio" and drives one started RpiConnection. Through it the
 * host's generation machinery (catalog, routing, cancellation, progress, status, reload,
 * supervision, the stop ladder) serves rpi extensions unchanged.
 *
 * Mapping: initialize -> the registrations of the load phase; tool/call -> invoke{tool} (updates
 * become partial_result progress); command/execute -> invoke{command}; hook/run and lifecycle
 * events -> invoke{hook} (hook-mapping.ts); $/cancelRequest -> cancel; shutdown -> the rpi
 * shutdown frame. UI requests go to the embedder's rpi services when bound, else notify becomes
 * an octet notification, setStatus the status contribution, confirm a confirmation/request and
 * input/select/editor an input/request on behalf of the call they name. The stand-in "exits"
 * when the instance ends; destroying its stdin terminates the instance.
 */
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import {
  EnvelopeReader,
  ErrorCode,
  RpcPeer,
  WireError,
  REQUIRED_FEATURES,
  bounds,
  truncateUtf8,
  type RequestMessage,
  type ToolDefinition,
  type CommandDefinition,
  type ContentPart,
} from "@octet/protocol";
import type { InvocationContext, ProtocolResult } from "../protocol/frames.js";
import type { RpiConnection, RpiHostServices } from "../host/rpi-connection.js";
import type { RpiExit } from "../transport.js";
import {
  LIFECYCLE_TO_PI,
  lifecycleEventData,
  lifecycleSubscriptions,
  octetHookResult,
  piCallsFor,
} from "./hook-mapping.js";

export interface OctetBridge {
  /** The stand-in child; hand it to the host. */
  readonly child: EventEmitter & { pid: number | undefined; stdin: Writable; stdout: PassThrough; stderr: PassThrough };
  /** The services to give the RpiConnection: embedder first, else octet reverse requests. */
  readonly services: RpiHostServices;
  /** Binds the started connection: from here the host may initialize. */
  attach(connection: RpiConnection): void;
}

/** Status keys kept per instance; the oldest goes first. */
const MAX_STATUS_KEYS = 32;

/** Lifecycle hook invocations outstanding at once; more are dropped (a burst of tool events must not pile up). */
const MAX_LIFECYCLE_IN_FLIGHT = 16;

export interface OctetBridgeOptions {
  embedder?: RpiHostServices | undefined;
  extensionId: string;
  /** The generation's diagnostics: what the bridge drops or cannot map is said there. */
  diagnose?: (level: "info" | "warning" | "error", message: string) => void;
  /**
   * The host's catalog now (every ready extension's tools and commands), for the invocation
   * context's allTools, activeTools and commands. Without it, this extension's own.
   */
  catalog?: () => HostCatalog;
}

export interface HostCatalog {
  tools: readonly { name: string }[];
  commands: readonly { name: string; description?: string }[];
}

export function createOctetBridge(options: OctetBridgeOptions): OctetBridge {
  const diagnose = (level: "info" | "warning" | "error", message: string): void => {
    try {
      options.diagnose?.(level, message);
    } catch {
      // Nowhere else to say it.
    }
  };
  let lifecycleInFlight = 0;
  let connection: RpiConnection | null = null;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const child = new EventEmitter() as OctetBridge["child"];
  const active: number[] = [];
  const controllers = new Map<number, AbortController>();
  let progress = false;
  let sequence = 0;
  let terminated = false;
  const statuses = new Map<string, string>();
  /** The session as the host last described it (initialize, then each request's context). */
  let hostState: Record<string, unknown> = {};

  /** The last context and what it was built from: while neither changes, the same object is reused. */
  let built: { catalog: HostCatalog; session: Session; context: Partial<InvocationContext> } | null = null;

  /**
   * The invocation context of the rpi protocol (QJS-08, QJS-09) from what octet knows: the
   * session name, model and reasoning of the host state (null until octet has a session), and
   * the catalog as every tool and command (octet has no per-session active tool set yet, so the
   * active tools are all of them). Built once per catalog epoch: the host does not signal a
   * change to a foreign runtime, so the catalog it returns is compared with the last one (names
   * and descriptions, no encoding), and the same object goes to the connection, which encodes it
   * once (RpiConnection: the context is cached by identity).
   */
  const contextOf = (params: Record<string, unknown>): Partial<InvocationContext> => {
    const host = (params["context"] as { host?: unknown } | undefined)?.host;
    if (host !== null && typeof host === "object") hostState = host as Record<string, unknown>;
    const c = connection;
    const catalog: HostCatalog = options.catalog?.() ?? { tools: c?.tools() ?? [], commands: c?.commands() ?? [] };
    const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
    const session: Session = [str(hostState["session_name"]), str(hostState["reasoning"]), str(hostState["model"])];
    const same = built !== null && sameSession(built.session, session) && sameCatalog(built.catalog, catalog);
    if (same) return built!.context;
    const [sessionName, thinkingLevel, model] = session;
    const tools = catalog.tools.map((t) => t.name);
    const context: Partial<InvocationContext> = {
      sessionName,
      thinkingLevel,
      // octet names a model by one string; pi's Model is an object, whose id it is.
      model: model === null ? null : { id: model },
      activeTools: tools,
      allTools: [...tools],
      commands: catalog.commands.map((x) =>
        x.description ? { name: x.name, description: x.description } : { name: x.name },
      ),
    };
    built = { catalog, session, context };
    return context;
  };

  const peer = new RpcPeer({
    transport: {
      send(frame) {
        if (!stdout.destroyed) stdout.write(frame);
        return { withdraw: () => false };
      },
    },
    onRequest: (request) => handle(request),
    onNotification: (n) => {
      if (n.method === "$/cancelRequest") {
        const id = (n.params as { id?: unknown } | undefined)?.id;
        if (typeof id === "number") controllers.get(id)?.abort();
        return;
      }
      // A lifecycle event is a pi hook invocation nobody waits for; its hook timeout bounds it,
      // and at most MAX_LIFECYCLE_IN_FLIGHT run at once.
      const event = LIFECYCLE_TO_PI[n.method];
      if (event !== undefined && connection?.hooks().includes(event)) {
        if (lifecycleInFlight >= MAX_LIFECYCLE_IN_FLIGHT)
          return diagnose(
            "warning",
            `dropped ${n.method} for the ${event} hook: ${MAX_LIFECYCLE_IN_FLIGHT} lifecycle hooks are still running`,
          );
        lifecycleInFlight++;
        void connection
          .invoke(
            {
              kind: "hook",
              event: { name: event, data: lifecycleEventData(n.method, (n.params ?? {}) as Record<string, unknown>) },
            },
            { context: contextOf({}) },
          )
          .then((r) => {
            lifecycleInFlight--;
            if (r.status === "error") diagnose("warning", `the ${event} hook failed: ${r.error.message}`);
          });
      }
    },
  });
  const reader = new EnvelopeReader();
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const event of reader.push(chunk)) if (event.kind === "envelope") peer.receive(event.envelope);
      done();
    },
    destroy(_err, done) {
      void connection?.terminate("the host closed the extension's channel");
      done(null);
    },
  });
  Object.assign(child, { pid: undefined, stdin, stdout, stderr });

  /**
   * The octet request a dialog is asked on behalf of: the invocation the extension named, or the
   * only call running. With several running and none named the host cannot tell: refused.
   */
  const onBehalf = (named: unknown): number => {
    if (typeof named === "number" && active.includes(named)) return named;
    if (active.length === 1) return active[0]!;
    if (active.length === 0) throw new Error("no tool call or command is running to ask on behalf of");
    throw new Error(
      `${active.length} calls are running and the request did not say which one it belongs to (parentId)`,
    );
  };

  /** A reverse request withdrawn when the extension cancels it or its timeout passes. */
  const ask = async (
    method: string,
    params: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs?: number },
  ): Promise<unknown> => {
    const outgoing = peer.request(method, params);
    const giveUp = (why: string): void => {
      if (peer.abandon(outgoing.id, "cancelled", new Error(why)) !== null) {
        try {
          peer.notify("$/cancelRequest", { id: outgoing.id });
        } catch {
          // Closed: nothing is waiting any more.
        }
      }
    };
    const onAbort = (): void => giveUp("the extension withdrew the request");
    o.signal.addEventListener("abort", onAbort, { once: true });
    const timer =
      o.timeoutMs !== undefined
        ? setTimeout(() => giveUp(`no answer within ${o.timeoutMs} ms`), o.timeoutMs)
        : undefined;
    try {
      return await outgoing.result;
    } finally {
      o.signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
    }
  };

  const services: RpiHostServices = {
    async ui(request, o) {
      // The embedder's answer wins; undefined leaves the request to the mapping below.
      if (options.embedder?.ui) {
        const answer = await options.embedder.ui(request, o);
        if (answer !== undefined) return answer;
      }
      const text = (k: string): string => (typeof request[k] === "string" ? (request[k] as string) : "");
      switch (request.type) {
        case "notify": {
          const level = ["info", "warning", "error"].includes(text("level")) ? text("level") : "info";
          peer.notify("notification", { level, title: options.extensionId, message: text("message") });
          return {};
        }
        case "status": {
          // pi keeps one status text per key; octet one status line per extension: the keys are joined.
          const key = text("key");
          if (!key) throw new Error("a status request needs a non-empty key");
          if (text("text")) statuses.set(key, text("text"));
          else statuses.delete(key);
          if (statuses.size > MAX_STATUS_KEYS) statuses.delete(statuses.keys().next().value as string);
          const line = [...statuses].map(([k, v]) => `${k}: ${v}`).join(" · ");
          peer.notify("status/contribution", {
            surface: "status",
            text: truncateUtf8(line, bounds.MAX_STATUS_TEXT_BYTES),
            style_role: null,
            priority: 0,
          });
          return {};
        }
        case "confirm": {
          const r = (await ask(
            "confirmation/request",
            {
              parent_request_id: onBehalf(o.parent),
              prompt: text("title") || "Confirm",
              detail: text("message"),
              destructive: false,
              default: false,
            },
            o,
          )) as { confirmed?: boolean };
          return { confirmed: r.confirmed === true };
        }
        case "input":
        case "editor":
        case "select": {
          const choices = Array.isArray(request["options"])
            ? ` (${(request["options"] as unknown[]).map(String).join(" | ")})`
            : "";
          const r = (await ask(
            "input/request",
            { parent_request_id: onBehalf(o.parent), prompt: `${text("title")}${choices}`, secret: false },
            o,
          )) as { value?: string | null };
          const value = typeof r.value === "string" ? r.value : null;
          if (
            request.type === "select" &&
            value !== null &&
            Array.isArray(request["options"]) &&
            !(request["options"] as unknown[]).includes(value)
          )
            return { value: null };
          return { value };
        }
        default:
          throw new Error(
            `the host cannot process the UI request "${request.type}": bind an rpi UI service to show it`,
          );
      }
    },
    async action(action, o) {
      if (options.embedder?.action) return options.embedder.action(action, o);
      throw new Error(`the host cannot process the action "${action.kind}": no session service is bound`);
    },
  };

  async function handle(request: RequestMessage): Promise<unknown> {
    const c = connection;
    if (!c) throw new WireError(ErrorCode.InternalError, "the rpi extension is not attached");
    const params = (request.params ?? {}) as Record<string, unknown>;
    switch (request.method) {
      case "initialize":
        contextOf({ context: { host: params["host"] } });
        return initializeResult(c, params, (on) => (progress = on));
      case "tool/call":
      case "command/execute": {
        const id = request.id as number;
        const controller = new AbortController();
        controllers.set(id, controller);
        active.push(id);
        try {
          const name = String(params["name"]);
          if (request.method === "tool/call") {
            const args = (params["arguments"] ?? {}) as Record<string, unknown>;
            let dropped = false;
            const onUpdate = progress
              ? (value: unknown): void => {
                  try {
                    peer.notify("$/progress", {
                      request_id: id,
                      sequence: ++sequence,
                      event: { type: "partial_result", result: toOctetResult(value, false) },
                    });
                  } catch (err) {
                    // An update just under the rpi frame bound can be over octet's once wrapped:
                    // progress is best effort, the result still comes.
                    if (!dropped)
                      diagnose(
                        "warning",
                        `dropped progress of tool "${name}": ${err instanceof Error ? err.message : String(err)}`,
                      );
                    dropped = true;
                  }
                }
              : undefined;
            return toolOutcome(
              await c.invoke(
                { kind: "tool", name, callId: `call-${id}`, arguments: args },
                { tag: id, signal: controller.signal, context: contextOf(params), ...(onUpdate ? { onUpdate } : {}) },
              ),
            );
          }
          const args = Array.isArray(params["arguments"])
            ? (params["arguments"] as unknown[]).map(String).join(" ")
            : "";
          return commandOutcome(
            await c.invoke(
              { kind: "command", name, arguments: args },
              { tag: id, signal: controller.signal, context: contextOf(params) },
            ),
          );
        } finally {
          controllers.delete(id);
          active.splice(active.indexOf(id), 1);
        }
      }
      case "hook/run": {
        const id = request.id as number;
        const controller = new AbortController();
        controllers.set(id, controller);
        try {
          const answers: { event: string; value: unknown; data: Record<string, unknown> }[] = [];
          for (const call of piCallsFor(
            String(params["hook"]),
            (params["payload"] ?? {}) as Record<string, unknown>,
            c.hooks(),
          )) {
            const r = await c.invoke(
              { kind: "hook", event: { name: call.event, data: call.data } },
              { tag: id, signal: controller.signal, context: contextOf(params) },
            );
            // A hook that fails or times out is reported to the host, which counts it as continue (HOOK-10).
            if (r.status === "error")
              throw new WireError(ErrorCode.InternalError, `the ${call.event} hook failed: ${r.error.message}`);
            if (r.status === "cancelled")
              throw new WireError(ErrorCode.RequestCancelled, `the ${call.event} hook was cancelled`);
            answers.push({ event: call.event, value: r.value, data: call.data });
          }
          const { result, unapplied } = octetHookResult(answers);
          for (const note of unapplied) diagnose("warning", note);
          return result;
        } finally {
          controllers.delete(id);
        }
      }
      case "shutdown":
        // Acknowledge first: the host then waits for the exit, which the rpi shutdown brings.
        setImmediate(() => void c.shutdown("session ended"));
        return {};
      default:
        throw new WireError(ErrorCode.MethodNotFound, `method ${request.method} is not offered by rpi extensions`);
    }
  }

  return {
    child,
    services,
    attach(c) {
      connection = c;
      void c.closed.then((exit: RpiExit) => {
        if (terminated) return;
        terminated = true;
        peer.close(new Error(exit.reason));
        if (exit.code !== "exited" && exit.code !== "terminated") stderr.write(`[rpi] ${exit.reason}\n`);
        else if (c.lastError && exit.code === "exited") stderr.write(`[rpi] ${exit.reason}\n`);
        stdout.end();
        stderr.end();
        const code = exit.exitCode ?? (exit.code === "exited" || exit.code === "terminated" ? 0 : 1);
        child.emit("exit", exit.signal ? null : code, exit.signal ?? null);
      });
    },
  };
}

/** Session name, thinking level and model id of the host state. */
type Session = readonly [string | null, string | null, string | null];

function sameSession(a: Session, b: Session): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** The same tools and commands in the same order: the context built from `a` holds for `b`. */
function sameCatalog(a: HostCatalog, b: HostCatalog): boolean {
  if (a === b) return true;
  if (a.tools.length !== b.tools.length || a.commands.length !== b.commands.length) return false;
  for (let i = 0; i < a.tools.length; i++) if (a.tools[i]!.name !== b.tools[i]!.name) return false;
  for (let i = 0; i < a.commands.length; i++) {
    const x = a.commands[i]!;
    const y = b.commands[i]!;
    if (x.name !== y.name || x.description !== y.description) return false;
  }
  return true;
}

function initializeResult(
  c: RpiConnection,
  params: Record<string, unknown>,
  setProgress: (on: boolean) => void,
): unknown {
  const api = params["api_version"];
  const tools: ToolDefinition[] = c
    .tools()
    .map((t) => ({ name: t.name, description: t.description || t.label || t.name, parameters: t.parameters }));
  // pi's registerCommand makes the description optional; octet requires one: fall back to the
  // name, as tools fall back to their label or name, rather than failing the whole load.
  const commands: CommandDefinition[] = c.commands().map((x) => ({
    name: x.name,
    description: x.description?.trim() || `/${x.name}`,
    usage: `/${x.name} [arguments]`,
  }));
  const protocol = params["protocol"] as
    | { version?: string; optional_features?: string[]; limits?: { max_concurrent_requests?: number } }
    | undefined;
  if (!protocol) return { api_version: api, tools, commands };
  const offered = new Set(protocol.optional_features ?? []);
  const features: string[] = [...REQUIRED_FEATURES];
  if (offered.has("request_progress")) features.push("request_progress");
  const lifecycle = offered.has("lifecycle_events") ? lifecycleSubscriptions(c.hooks()) : [];
  if (lifecycle.length > 0) features.push("lifecycle_events");
  setProgress(offered.has("request_progress") && api === "0.4");
  const selection: Record<string, unknown> = {
    version: protocol.version,
    features,
    limits: { max_concurrent_requests: protocol.limits?.max_concurrent_requests ?? 16 },
  };
  if (lifecycle.length > 0) selection["lifecycle_events"] = lifecycle;
  return { api_version: api, tools, commands, protocol: selection };
}

/** An AgentToolResult ({content, details, isError}) as an octet tool result. */
export function toOctetResult(
  value: unknown,
  isError: boolean,
): { content: ContentPart[]; is_error: boolean; metadata?: unknown } {
  const v = (value ?? {}) as { content?: unknown; details?: unknown; isError?: unknown };
  const content: ContentPart[] = [];
  for (const part of Array.isArray(v.content) ? v.content : []) {
    const p = (part ?? {}) as Record<string, unknown>;
    if (p["type"] === "text" && typeof p["text"] === "string") content.push({ type: "text", text: p["text"] });
    // Images travel in octet as verified artifacts; an rpi image has no artifact, so it is named, not lost silently.
    else if (p["type"] === "image")
      content.push({
        type: "text",
        text:
          `[image ${String(p["mimeType"] ?? "")}, ` +
          `${typeof p["data"] === "string" ? Math.floor((p["data"].length * 3) / 4) : 0} bytes: not shown]`,
      });
  }
  const out: { content: ContentPart[]; is_error: boolean; metadata?: unknown } = {
    content,
    is_error: isError || v.isError === true,
  };
  // pi's details are for renderers, not the model: octet's metadata is the same (no schema to meet).
  if (v.details !== undefined && v.details !== null) out.metadata = { details: v.details };
  return out;
}

function toolOutcome(result: ProtocolResult): unknown {
  if (result.status === "success") return toOctetResult(result.value, false);
  if (result.status === "cancelled") throw new WireError(ErrorCode.RequestCancelled, "the tool call was cancelled");
  // A tool's failure is a result the model reads, not a transport error (pi: a throw is an error result).
  return { content: [{ type: "text", text: result.error.message }], is_error: true };
}

function commandOutcome(result: ProtocolResult): unknown {
  if (result.status === "cancelled") throw new WireError(ErrorCode.RequestCancelled, "the command was cancelled");
  if (result.status === "error") throw new WireError(ErrorCode.InternalError, result.error.message);
  const v = result.value;
  return {
    text: typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v),
    notifications: [],
    context: [],
  };
}
