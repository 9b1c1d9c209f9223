/**
 * An MCP server as the octet host sees it: an in-process stand-in child that speaks octet's
 * JSON-RPC on its "stdio" and drives an MCP Client connected to the server process the host
 * spawned (its group, containment and registry are the host's). Through it the host's catalog,
 * routing, deadlines, status, reload, supervision and stop ladder serve MCP servers unchanged.
 *
 * Mapping: initialize -> the server's tools/list; tool/call -> tools/call (MCP progress becomes
 * octet status progress when the host offered request_progress; image and audio content become
 * artifacts of the call when it offered artifacts); $/cancelRequest -> aborting the
 * MCP request (the SDK sends notifications/cancelled); the server's tools/list_changed -> a new
 * tools/list published as tools/register and tools/unregister (dynamic_tools); shutdown -> EOF
 * on the server's stdin. The stand-in "exits" when the server process does, so a server that
 * dies is a crashed extension the supervisor restarts.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";
import { createHash } from "node:crypto";
import {
  artifactKind,
  bounds,
  EnvelopeReader,
  ErrorCode,
  REQUIRED_FEATURES,
  RpcPeer,
  standInChannel,
  WireError,
} from "@octet/protocol";
import type { ForeignMessages, RequestMessage } from "@octet/protocol";
import type { ToolDefinition } from "@octet/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { octetResult, octetTools, type McpTool } from "./mcp-results.js";

/** The host governs a call's deadline (and cancels it): the SDK's own 60 s default must not cut it first. */
const MCP_CALL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** How long a dead server's stderr may take to drain before its exit is reported anyway. */
const STDERR_DRAIN_MS = 200;

export interface McpBridge {
  readonly child: EventEmitter & {
    pid: undefined;
    stdin: Writable;
    stdout: PassThrough;
    stderr: PassThrough;
    /** The same messages as objects, for a host that takes them so (ForeignMessages): no frames at all. */
    messages: ForeignMessages;
  };
  /** The octet names of the tools the server listed at launch (the initialize catalog). */
  readonly toolNames: string[];
}

export interface McpBridgeOptions {
  client: Client;
  process: ChildProcessWithoutNullStreams;
  tools: readonly McpTool[];
  diagnose: (level: "info" | "warning" | "error", message: string) => void;
}

/** Every page of the server's tools/list. */
export async function listAllTools(client: Client): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor !== undefined ? { cursor } : {});
    tools.push(...(page.tools as McpTool[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

export function createMcpBridge(o: McpBridgeOptions): McpBridge {
  const warn = (message: string): void => o.diagnose("warning", message);
  let catalog = octetTools(o.tools, warn);
  /** What the host holds now, by octet name (the definitions' JSON), for the next list change. */
  const published = new Map<string, string>();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const child = new EventEmitter() as McpBridge["child"];
  const controllers = new Map<number, AbortController>();
  let progress = false;
  let dynamic = false;
  let artifacts = false;
  let sequence = 0;

  // Bytes on stdout until the host asks for messages (child.messages), then the messages themselves.
  const channel = standInChannel((frame) => {
    if (!stdout.destroyed) stdout.write(frame);
  });
  const peer = new RpcPeer({
    transport: channel.transport,
    onRequest: (request) => handle(request),
    onNotification: (n) => {
      if (n.method !== "$/cancelRequest") return;
      const id = (n.params as { id?: unknown } | undefined)?.id;
      if (typeof id === "number") controllers.get(id)?.abort();
    },
  });
  const reader = new EnvelopeReader();
  // EOF on its stdin is how an MCP stdio server is asked to leave: on shutdown, on the host's
  // EOF (FRAME-12) and after a frame the reader cannot get past (FRAME-10: terminal).
  const leave = (): void => void o.client.close().catch(() => {});
  const stdin = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const event of reader.push(chunk)) {
        if (event.kind === "envelope") peer.receive(event.envelope);
        else if (event.kind === "invalid_envelope")
          peer.replyError(event.id, ErrorCode.InvalidRequest, `invalid request: ${event.reason}`);
        else if (event.error.code === "invalid_json")
          peer.replyError(null, ErrorCode.ParseError, `parse error: ${event.error.message}`);
        else if (reader.failed) leave();
      }
      done();
    },
    final(done) {
      leave();
      done();
    },
  });
  // Once the host closed the channel (stdin destroyed) nothing more is read, as from a closed pipe.
  const messages = channel.messages(peer, () => !stdin.destroyed);
  Object.assign(child, { pid: undefined, stdin, stdout, stderr, messages });
  o.process.stderr.pipe(stderr, { end: false });

  // Chained: two list changes in a row are published in order, each against what the last one sent.
  let publishing: Promise<void> = Promise.resolve();
  o.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    publishing = publishing.then(republish, republish);
  });

  async function republish(): Promise<void> {
    if (!dynamic) {
      warn("the MCP server changed its tools, but the host did not offer dynamic_tools: they change at a restart");
      return;
    }
    catalog = octetTools(await listAllTools(o.client), warn);
    const removed = [...published.keys()].filter((n) => !catalog.has(n));
    const changed: ToolDefinition[] = [...catalog.values()]
      .map((t) => t.def)
      .filter((d) => published.get(d.name) !== JSON.stringify(d));
    try {
      if (removed.length > 0) await peer.request("tools/unregister", { names: removed }).result;
      for (const n of removed) published.delete(n);
      if (changed.length > 0) await peer.request("tools/register", { tools: changed }).result;
      for (const d of changed) published.set(d.name, JSON.stringify(d));
    } catch (err) {
      warn(`publishing the MCP server's new tool list failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function initialize(params: Record<string, unknown>): unknown {
    const protocol = params["protocol"] as
      | { version?: string; optional_features?: string[]; limits?: { max_concurrent_requests?: number } }
      | undefined;
    const offered = new Set(protocol?.optional_features ?? []);
    const features: string[] = [...REQUIRED_FEATURES];
    for (const f of ["request_progress", "dynamic_tools", "artifacts"]) if (offered.has(f)) features.push(f);
    progress = offered.has("request_progress");
    artifacts = offered.has("artifacts");
    dynamic = offered.has("dynamic_tools");
    const tools = [...catalog.values()].map((t) => t.def);
    for (const d of tools) published.set(d.name, JSON.stringify(d));
    return {
      api_version: params["api_version"],
      tools,
      commands: [],
      protocol: {
        version: protocol?.version,
        features,
        limits: { max_concurrent_requests: protocol?.limits?.max_concurrent_requests ?? 16 },
      },
    };
  }

  async function callTool(id: number, params: Record<string, unknown>): Promise<unknown> {
    const name = params["name"];
    const args = params["arguments"] ?? {};
    // Refused here, as an SDK refuses them (ERR-02, CALL-01): the MCP server would see garbage.
    if (typeof name !== "string") throw new WireError(ErrorCode.InvalidParams, `tool/call: "name" must be a string`);
    if (typeof args !== "object" || args === null || Array.isArray(args))
      throw new WireError(ErrorCode.InvalidParams, `tool/call: "arguments" must be an object`);
    const tool = catalog.get(name);
    if (!tool) throw new WireError(ErrorCode.MethodNotFound, `the MCP server has no tool "${name}" now`);
    const controller = new AbortController();
    controllers.set(id, controller);
    try {
      const onprogress = (p: { progress: number; total?: number | undefined; message?: string | undefined }): void => {
        const event: Record<string, unknown> = { type: "status", message: p.message ?? "", current: p.progress };
        if (p.total !== undefined) event["total"] = p.total;
        peer.notify("$/progress", { request_id: id, sequence: ++sequence, event });
      };
      const result = await o.client.callTool(
        { name: tool.mcp, arguments: args as Record<string, unknown> },
        undefined,
        {
          signal: controller.signal,
          timeout: MCP_CALL_TIMEOUT_MS,
          ...(progress ? { onprogress, resetTimeoutOnProgress: true } : {}),
        },
      );
      return await octetResult(result as Record<string, unknown>, (mime, data) => publishMedia(id, mime, data));
    } catch (err) {
      if (controller.signal.aborted) throw new WireError(ErrorCode.RequestCancelled, "the tool call was cancelled");
      // An MCP protocol error (unknown tool, bad arguments) is the call's failure: a result the model reads.
      const message = err instanceof Error ? err.message : String(err);
      return { content: [{ type: "text", text: message }], is_error: true };
    } finally {
      controllers.delete(id);
    }
  }

  /** An image or audio block as an artifact of call `id` (octet's media are verified artifacts). */
  async function publishMedia(id: number, mimeType: string, data: string): Promise<string | null> {
    if (!artifacts || artifactKind(mimeType) === undefined) return null;
    const bytes = Buffer.from(data, "base64");
    if (bytes.length > bounds.MAX_ARTIFACT_INLINE_BYTES) return null;
    try {
      const r = (await peer.request("artifact/publish", {
        parent_request_id: id,
        mime_type: mimeType,
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        data: { encoding: "base64", data: bytes.toString("base64") },
      }).result) as { artifact_id: string };
      return r.artifact_id;
    } catch (err) {
      warn(`an ${mimeType} of the MCP server was not published: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }

  async function handle(request: RequestMessage): Promise<unknown> {
    const params = (request.params ?? {}) as Record<string, unknown>;
    switch (request.method) {
      case "initialize":
        return initialize(params);
      case "tool/call":
        return callTool(request.id as number, params);
      case "shutdown":
        // Acknowledge first; EOF on its stdin is how an MCP stdio server is asked to leave.
        setImmediate(leave);
        return {};
      default:
        throw new WireError(ErrorCode.MethodNotFound, `method ${request.method} is not offered by MCP servers`);
    }
  }

  o.process.once("exit", (code, signal) => {
    peer.close(new Error(`the MCP server exited (${signal ?? `code ${String(code)}`})`));
    // Its stderr may still hold the lines that say why: let them through before the exit (a
    // grandchild holding the pipe open must not hold the exit back for long).
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      o.process.stderr.unpipe(stderr);
      stdout.end();
      stderr.end();
      child.emit("exit", code, signal);
    };
    const timer = setTimeout(end, STDERR_DRAIN_MS);
    if (o.process.stderr.readableEnded) end();
    else o.process.stderr.once("end", end);
  });

  return { child, toolNames: [...catalog.keys()] };
}
