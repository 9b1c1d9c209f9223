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
 * input/select/editor an input/request on behalf of the call they name (bridge-services.ts). The stand-in "exits"
 * when the instance ends; destroying its stdin terminates the instance.
 */
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import {
  EnvelopeReader,
  ErrorCode,
  IdTable,
  RpcPeer,
  WireError,
  standInChannel,
  type RequestMessage,
} from "@octet/protocol";
import type {
  ForeignMessages,
  ForeignSessionControl,
  ForeignSessionDialogs,
  ForeignSessionEvents,
  ForeignSessionState,
  ResourceOwner,
} from "@octet/protocol";
import { bridgeServices, SESSION_LAYER_INVOCATION } from "./bridge-services.js";
import type { ModelLayer } from "./model-actions.js";
import { MessageUpdates } from "./message-updates.js";
import type { InvokeOptions, RpiConnection, RpiHostServices } from "../host/rpi-connection.js";
import type { RpiExit } from "../transport.js";
import { ContextCache, type HostCatalog } from "./context-cache.js";
import { LIFECYCLE_TO_PI, lifecycleEventData, octetHookResult, piCallsFor } from "./hook-mapping.js";
import { commandOutcome, initializeResult, toOctetResult, toolOutcome } from "./octet-results.js";
import { RenderDetails, toolRenderInvocation, toolRenderOutcome } from "./render-mapping.js";
import { LateTools, toolDefinition } from "./late-tools.js";
import { initializeShortcuts, triggerPiShortcut } from "./shortcuts.js";
import { Cancellation } from "./cancellation.js";

export type { HostCatalog } from "./context-cache.js";
export { toOctetResult } from "./octet-results.js";

export interface OctetBridge {
  /** The stand-in child; hand it to the host. */
  readonly child: EventEmitter & {
    pid: number | undefined;
    stdin: Writable;
    stdout: PassThrough;
    stderr: PassThrough;
    /** The same messages as objects, for a host that takes them so (ForeignMessages): no frames at all. */
    messages: ForeignMessages;
  };
  /** The services to give the RpiConnection: embedder first, else octet reverse requests. */
  readonly services: RpiHostServices;
  /** Binds the started connection: from here the host may initialize. */
  attach(connection: RpiConnection): void;
  /**
   * The pi events the extension hooked that reach it through octet's hooks and lifecycle events:
   * every one, less those the embedder's session layer delivers itself (sessionEvents).
   */
  wireEvents(): string[];
  /** The pi events the session layer delivers, as invocations of the extension's handlers. */
  readonly sessionEvents: ForeignSessionEvents;
  /** Give it to the RpiConnection (lateTools): tools registered after the load become dynamic tools. */
  readonly lateTools: { changed(): void };
  /** Give it to the RpiConnection (lateHooks): a late pi.on for a session-layer event takes effect. */
  readonly lateHooks: { accepts(event: string): boolean };
}

/** Lifecycle hook invocations outstanding at once; more are dropped (a burst of tool events must not pile up). */
const MAX_LIFECYCLE_IN_FLIGHT = 16;
/** A user_bash answer may be a command run in the extension: the bash tool's longest timeout and a margin. */
const USER_BASH_TIMEOUT_MS = 610_000;

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
  /** The pi events the embedder's session layer delivers itself (ForeignLaunchContext.sessionLayer). */
  sessionLayer?: readonly string[];
  /** The instance's frame limit: the session mirror's deltas are bounded by it. */
  maxFrameBytes?: number;
  /** The manifest grants session_actions: pi's session actions become octet's Wave-1 requests. */
  sessionActions?: boolean;
  /** The session layer's foreground session, for the invocation context (ForeignSessionLayer.state). */
  sessionState?: () => ForeignSessionState | null;
  /** The manifest grants ui: pi's setEditorText/getEditorText become composer/set and composer/get. */
  composer?: boolean;
  /** The session layer's control: pi's ctx.newSession, ctx.fork, ctx.navigateTree (ForeignSessionLayer.control). */
  sessionControl?: ForeignSessionControl | undefined;
  /** The session layer's pi.setModel / pi.setThinkingLevel (ForeignSessionLayer). */
  models?: ModelLayer;
  /** The embedder's dialogs for handlers the session layer invoked (ForeignSessionLayer.dialogs). */
  sessionDialogs?: ForeignSessionDialogs | undefined;
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
  // Entry writes (appendEntry, setLabel, setSessionName) the extension issued and octet has not
  // settled: pi makes them synchronously, so a call is answered only once those issued before its
  // result are written, and what runs next (a /unbookmark after a /bookmark) reads them in its
  // session (published() waits for them). Not by parent: a setter from a handler may act under the
  // issued owner instead.
  const writes = new Set<Promise<unknown>>();
  // Not a Map: a Map churned per call keeps old entries alive in young collections (id-table.ts).
  const controllers = new IdTable<Cancellation, number>();
  let progress = false;
  let sequence = 0;
  let terminated = false;
  const contexts = new ContextCache(
    () => options.catalog?.() ?? { tools: connection?.tools() ?? [], commands: connection?.commands() ?? [] },
    options.sessionState,
    options.maxFrameBytes,
  );
  const contextOf = (params: Record<string, unknown>) => contexts.of(params);
  const layer = new Set(options.sessionLayer ?? []);
  /** The features initialize selected, and the owner triple the host issued (from any request's context). */
  let negotiated: readonly string[] = [];
  let issued: ResourceOwner | null = null;
  const noteOwner = (params: Record<string, unknown>): void => {
    const owner = (params["context"] as { resource_owner?: unknown } | undefined)?.resource_owner;
    if (owner !== null && typeof owner === "object") issued = owner as ResourceOwner;
  };
  const wireEvents = (): string[] => (connection?.hooks() ?? []).filter((e) => !layer.has(e));
  const messages = new MessageUpdates();
  const details = new RenderDetails();
  let initialized = false;
  const late = new LateTools({
    tools: () => connection?.tools() ?? [],
    negotiated: () => negotiated.includes("dynamic_tools"),
    initialized: () => initialized,
    request: (method, params) => peer.request(method, params).result,
    warn: (message) => diagnose("warning", message),
    promptMetadata: () => negotiated.includes("tool_prompt_metadata_v1"),
  });
  /**
   * A handler's answer waits for the tools it registered to be published (the model's next request
   * offers them) and for the entry writes issued so far to settle (`writes`).
   */
  const published = async <T>(result: T): Promise<T> => {
    await late.settled();
    if (writes.size > 0) await Promise.allSettled([...writes]);
    return result;
  };
  /**
   * A pi hook invocation nobody waits for (a lifecycle event, a message batch): sent in arrival
   * order, bounded by its hook timeout, at most MAX_LIFECYCLE_IN_FLIGHT at once.
   */
  const fire = (event: string, data: Record<string, unknown>, from: string): void => {
    if (!connection) return;
    if (lifecycleInFlight >= MAX_LIFECYCLE_IN_FLIGHT)
      return diagnose(
        "warning",
        `dropped ${from} for the ${event} hook: ${MAX_LIFECYCLE_IN_FLIGHT} lifecycle hooks are still running`,
      );
    lifecycleInFlight++;
    void connection.invoke({ kind: "hook", event: { name: event, data } }, { context: contextOf({}) }).then((r) => {
      lifecycleInFlight--;
      if (r.status === "error") diagnose("warning", `the ${event} hook failed: ${r.error.message}`);
    });
  };

  // Bytes on stdout until the host asks for messages (child.messages), then the messages themselves.
  const channel = standInChannel((frame) => {
    if (!stdout.destroyed) stdout.write(frame);
  });
  const peer = new RpcPeer({
    transport: channel.transport,
    onRequest: (request) => handle(request),
    onNotification: (n) => {
      if (n.method === "$/cancelRequest") {
        const id = (n.params as { id?: unknown } | undefined)?.id;
        if (typeof id === "number") controllers.get(id)?.abort();
        return;
      }
      if (n.method === "shortcut/trigger" && connection)
        return triggerPiShortcut(connection, n.params, contextOf({}), (m) => diagnose("warning", m));
      // A model text batch is one message_update (message-updates.ts, WAVE1-08).
      if (n.method === "message/updated" || n.method === "message/settled") {
        const update = messages.take(n.method, n.params);
        if (update === null) return;
        if ("refused" in update) return diagnose("warning", update.refused);
        if (wireEvents().includes("message_update")) fire("message_update", update.data, n.method);
        return;
      }
      const event = LIFECYCLE_TO_PI[n.method];
      if (event !== undefined && wireEvents().includes(event))
        fire(event, lifecycleEventData(n.method, (n.params ?? {}) as Record<string, unknown>), n.method);
    },
  });
  const reader = new EnvelopeReader();
  const read = (events: ReturnType<EnvelopeReader["push"]>): void => {
    for (const event of events) {
      if (event.kind === "envelope") peer.receive(event.envelope);
      else refuseLine(event);
    }
  };
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      read(reader.push(chunk));
      done();
    },
    destroy(_err, done) {
      void connection?.terminate("the host closed the extension's channel");
      done(null);
    },
  });
  // Once the host closed the channel (stdin destroyed) nothing more is read, as from a closed pipe.
  const hostMessages = channel.messages(peer, () => !stdin.destroyed);
  Object.assign(child, { pid: undefined, stdin, stdout, stderr, messages: hostMessages });

  /**
   * A line that is no frame is answered as an SDK answers it (FRAME-10, FRAME-01): -32700 for
   * invalid JSON, -32600 for a bad envelope; a frame over the bound ends the channel (FRAME-10:
   * terminal), since the reader cannot find the next frame after it.
   */
  function refuseLine(event: Exclude<ReturnType<EnvelopeReader["push"]>[number], { kind: "envelope" }>): void {
    if (event.kind === "invalid_envelope")
      return peer.replyError(event.id, ErrorCode.InvalidRequest, `invalid request: ${event.reason}`);
    if (event.error.code === "invalid_json")
      return peer.replyError(null, ErrorCode.ParseError, `parse error: ${event.error.message}`);
    if (reader.failed) void connection?.terminate(`the host sent an unreadable frame: ${event.error.message}`);
  }

  const services = bridgeServices({
    peer,
    embedder: options.embedder,
    extensionId: options.extensionId,
    active,
    writes,
    negotiated: () => negotiated,
    issued: () => issued,
    control: options.sessionControl,
    dialogs: options.sessionDialogs,
    sessionContext: () => contextOf({})["session"],
    models: options.models,
  });

  async function handle(request: RequestMessage): Promise<unknown> {
    const c = connection;
    if (!c) throw new WireError(ErrorCode.InternalError, "the rpi extension is not attached");
    const params = (request.params ?? {}) as Record<string, unknown>;
    noteOwner(params);
    switch (request.method) {
      case "initialize": {
        contextOf({ context: { host: params["host"] } });
        // Shortcuts are admitted only inside initialize (WAVE1-24): registered before the answer.
        const also = await initializeShortcuts(c.shortcuts(), params, {
          parent: request.id as number,
          request: (method, p) => peer.request(method, p).result,
          warn: (message) => diagnose("warning", message),
          info: (message) => diagnose("info", message),
        });
        const result = initializeResult(c, params, (on) => (progress = on), wireEvents(), {
          sessionActions: options.sessionActions === true,
          composer: options.composer === true,
          selected: (features) => (negotiated = features),
          also: ["dynamic_tools", ...also],
        });
        late.seed(c.tools().map((t) => toolDefinition(t, negotiated.includes("tool_prompt_metadata_v1"))));
        initialized = true;
        return result;
      }
      case "tool/call":
      case "command/execute": {
        const id = request.id as number;
        const controller = new Cancellation();
        controllers.set(id, controller);
        active.push(id);
        try {
          const name = params["name"];
          if (typeof name !== "string")
            throw new WireError(ErrorCode.InvalidParams, `${request.method}: "name" must be a string`);
          if (request.method === "tool/call") {
            const raw = params["arguments"] ?? {};
            // Refused before the pi handler runs, which would otherwise see a string as its arguments.
            if (typeof raw !== "object" || raw === null || Array.isArray(raw))
              throw new WireError(ErrorCode.InvalidParams, `tool/call: "arguments" must be an object`);
            const args = raw as Record<string, unknown>;
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
            // Set, not spread in: an object spread per call made young garbage look alive to V8's
            // scavenger (the host's tool-outcome.ts, outcomeOf).
            const invokeOptions: InvokeOptions = { tag: id, signal: controller, context: contextOf(params) };
            if (onUpdate) invokeOptions.onUpdate = onUpdate;
            const r = await published(
              await c.invoke({ kind: "tool", name, callId: `call-${id}`, arguments: args }, invokeOptions),
            );
            if (r.status === "success") details.remember(name, args, r.value);
            return toolOutcome(r);
          }
          const args = Array.isArray(params["arguments"])
            ? (params["arguments"] as unknown[]).map(String).join(" ")
            : "";
          return commandOutcome(
            await published(
              await c.invoke(
                { kind: "command", name, arguments: args },
                { tag: id, signal: controller, context: contextOf(params) },
              ),
            ),
          );
        } finally {
          controllers.delete(id);
          active.splice(active.indexOf(id), 1);
        }
      }
      case "hook/run": {
        const id = request.id as number;
        const controller = new Cancellation();
        controllers.set(id, controller);
        try {
          const answers: { event: string; value: unknown; data: Record<string, unknown> }[] = [];
          for (const call of piCallsFor(
            String(params["hook"]),
            (params["payload"] ?? {}) as Record<string, unknown>,
            wireEvents(),
          )) {
            const r = await published(
              await c.invoke(
                { kind: "hook", event: { name: call.event, data: call.data } },
                { tag: id, signal: controller, context: contextOf(params) },
              ),
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
      case "status/collect":
        // pi extensions push their status (setStatus, setHeader, setFooter); a pull finds nothing new.
        return null;
      case "tool/render": {
        // pi's renderCall/renderResult as text (render-mapping.ts); only tools that declared one get here.
        const id = request.id as number;
        const controller = new Cancellation();
        controllers.set(id, controller);
        try {
          const r = await c.invoke(toolRenderInvocation(params, details), {
            signal: controller,
            context: contextOf(params),
          });
          return toolRenderOutcome(r, typeof params["output"] === "string" ? params["output"] : "");
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

  const sessionEvents: ForeignSessionEvents = {
    names: () => (connection?.hooks() ?? []).filter((e) => layer.has(e)),
    async dispatch(name, data, o) {
      if (o.owner) issued = o.owner;
      const c = connection;
      if (!c) throw new Error("the rpi extension is not attached");
      const controller = new Cancellation();
      const onAbort = (): void => controller.abort();
      o.signal?.addEventListener("abort", onAbort, { once: true });
      if (o.signal?.aborted) controller.abort();
      try {
        const r = await published(
          await c.invoke(
            { kind: "hook", event: { name, data } },
            {
              signal: controller,
              context: contextOf({}),
              // Its dialogs are the session layer's to ask (bridge-services.ts).
              tag: SESSION_LAYER_INVOCATION,
              // user_bash may run the command in the extension (operations.exec): a run, not a hook.
              ...(name === "user_bash" ? { timeoutMs: USER_BASH_TIMEOUT_MS } : {}),
              ...(o.onUpdate ? { onUpdate: o.onUpdate } : {}),
            },
          ),
        );
        if (r.status === "error")
          throw new Error(`the ${name} handler of ${options.extensionId} failed: ${r.error.message}`);
        if (r.status === "cancelled") throw new Error(`the ${name} handler of ${options.extensionId} was cancelled`);
        return r.value ?? undefined;
      } finally {
        o.signal?.removeEventListener("abort", onAbort);
      }
    },
  };

  return {
    child,
    services,
    wireEvents,
    sessionEvents,
    lateTools: late,
    // The session layer reads names() at each delivery: a hook added later is delivered from then on.
    lateHooks: { accepts: (event) => layer.has(event) },
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
