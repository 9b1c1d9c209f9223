/**
 * The wire to one child: the bounded writer of its stdin (FRAME-06), the envelope reader of its
 * stdout, the RPC peer between them, the partial-frame watchdog, and the hand-over of what the
 * child sends to the inbox. A framing or envelope violation is never skipped: it is reported (with
 * at most 256 quoted bytes) and the generation ends it. Either end of the pipe pair closing ends
 * the transport; that is the exit's to explain, not a violation (issue 13.4).
 */
import type { Readable, Writable } from "node:stream";
import {
  EnvelopeReader,
  ErrorCode,
  RpcPeer,
  bounds,
  OctetError,
  parseEnvelope,
  type ForeignMessages,
  type Message,
  type NotificationMessage,
  type PeerTransport,
  type PeerDiagnostic,
  type RequestMessage,
} from "@octet/protocol";
import type { DiagnosticLevel } from "../events.js";
import { ChildWriter } from "../transport/child-writer.js";
import { describeFrameError } from "../transport/frame-errors.js";
import { truncateBytes } from "../transport/stderr-sink.js";

/**
 * Where the child's own requests and notifications go: the one seam between the wire and the
 * host's services (child-inbox.ts implements it).
 */
export interface ChildMessages {
  request(request: RequestMessage): Promise<unknown>;
  notification(notification: NotificationMessage): void;
  /** $/cancelRequest for one of the child's requests (API 0.2+). */
  cancel(id: unknown): void;
}

export interface ConnectionOptions {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  inbox: ChildMessages;
  /** The child may cancel its own requests ($/cancelRequest, API 0.2+); else it is an ordinary notification. */
  childCancels: boolean;
  /** $/progress for one of the host's requests (host-requests.ts); false before there are any. */
  progress(params: unknown): boolean;
  onStderr(chunk: Buffer): void;
  /** How long a frame may stay unfinished on stdout (default FRAME_ASSEMBLY_TIMEOUT_MS). */
  frameAssemblyTimeoutMs?: number | undefined;
  /** A protocol violation: the generation must end. */
  onViolation(message: string): void;
  /** stdout reached EOF, or writing stdin failed because the child closed it. */
  onTransportEnded(which: "stdout" | "stdin", detail: string | null): void;
  diagnose(level: DiagnosticLevel, message: string): void;
  /** Aborted when the generation ended: nothing read after that counts, the watchdog stops. */
  ended: AbortSignal;
  /** Where stdout's EOF cannot be seen, the child's own watch of it (GenerationChild.watchStdout). */
  watchStdout?: ((onEnded: () => void, until: AbortSignal) => void) | undefined;
  /** An in-process stand-in's messages as objects (ForeignMessages): they replace stdin and stdout's bytes. */
  messages?: ForeignMessages | undefined;
  /** The frame trace of this generation (--trace), or undefined: then the wire pays one branch a frame. */
  trace?: ConnectionTrace | undefined;
}

/** What the connection reports to the frame trace (transport/frame-trace.ts). */
export interface ConnectionTrace {
  /** A frame read (its parsed message) or written (its text, or the message handed to a stand-in). */
  frame(dir: "in" | "out", frame: unknown): void;
  /** A line the extension wrote that was refused before it became a frame. */
  refused(error: string): void;
}

export class Connection {
  readonly peer: RpcPeer;
  readonly #o: ConnectionOptions;
  /** A stream's chunks are fresh per read, so a frame's pieces are kept as views, not copies. */
  readonly #reader = new EnvelopeReader({ borrowChunks: true });
  #partial: ReturnType<typeof setTimeout> | null = null;
  /** Resolves when the child's stderr has ended (EOF, close or error). */
  readonly stderrEnded: Promise<void>;

  constructor(o: ConnectionOptions) {
    this.#o = o;
    // A closed stdin (EPIPE: the extension exited or closed it) ends the transport like a closed
    // stdout: the exit, with its status and stderr, is the cause to report, not a violation. A
    // stalled reader is a violation.
    const onWriteFailure = (error: OctetError): void =>
      error.code === "transport_closed" ? o.onTransportEnded("stdin", error.message) : o.onViolation(error.message);
    const writer = o.messages
      ? messagesWriter(o.messages, o.stdin, onWriteFailure)
      : new ChildWriter(o.stdin, onWriteFailure);
    const trace = o.trace;
    this.peer = new RpcPeer({
      transport: trace ? tracedTransport(writer, trace) : writer,
      onRequest: (request) => o.inbox.request(request),
      onNotification: (n) => this.#notification(n),
      onDiagnostic: (d) => this.#peerDiagnostic(d),
    });
    o.ended.addEventListener("abort", () => this.#stopWatch(), { once: true });
    // A stand-in's messages are judged as decoded envelopes are (parseEnvelope); the reader is set
    // before the peer writes anything, as ForeignMessages asks.
    o.messages?.read((message) => this.#message(message));
    o.stdout.on("data", (chunk: Buffer) => {
      this.#read(chunk);
      this.#watchPartial();
    });
    o.stdout.on("end", () => {
      for (const event of this.#reader.end()) {
        if (event.kind === "frame_error" && !o.ended.aborted) {
          o.diagnose("error", `${event.error.message}; the line began: "${event.error.quoted}"`);
        }
      }
      o.onTransportEnded("stdout", null);
    });
    this.stderrEnded = new Promise<void>((resolve) => {
      o.stderr.once("end", resolve);
      o.stderr.once("close", resolve);
      o.stderr.once("error", resolve);
    });
    o.stderr.on("data", (chunk: Buffer) => o.onStderr(chunk));
    o.watchStdout?.(() => o.onTransportEnded("stdout", null), o.ended);
  }

  get closed(): boolean {
    return this.peer.closed;
  }

  /** $/progress to the host's requests, $/cancelRequest to the inbox (API 0.2+), the rest as they are. */
  #notification(n: NotificationMessage): void {
    if (n.method === "$/progress" && this.#o.progress(n.params)) return;
    if (n.method === "$/cancelRequest" && this.#o.childCancels) {
      this.#o.inbox.cancel((n.params as { id?: unknown } | undefined)?.id);
    } else this.#o.inbox.notification(n);
  }

  /** One stdout chunk: every envelope to the peer; anything refused is a violation (never skipped). */
  #read(chunk: Buffer): void {
    this.#handle(this.#reader.push(chunk));
  }

  /** What the reader made of a chunk or a text frame. */
  #handle(events: ReturnType<EnvelopeReader["push"]>): void {
    for (const event of events) {
      if (this.#o.ended.aborted) return;
      if (event.kind === "envelope") {
        if (this.#o.trace) this.#o.trace.frame("in", event.envelope.message);
        this.peer.receive(event.envelope);
      } else if (event.kind === "invalid_envelope") {
        this.#o.trace?.refused(`invalid JSON-RPC message: ${event.reason}`);
        this.#o.onViolation(`sent an invalid JSON-RPC message: ${event.reason}`);
      } else {
        if (event.error.code === "invalid_json") {
          this.peer.replyError(null, ErrorCode.ParseError, `parse error: ${event.error.message}`);
        }
        const what = describeFrameError(event.error.code);
        this.#o.trace?.refused(`${what}: ${event.error.message}; the line began: "${event.error.quoted}"`);
        this.#o.onViolation(`${what}: ${event.error.message}; the line began: "${event.error.quoted}"`);
      }
    }
  }

  /** One message of an in-process stand-in: no frame, so only the envelope can be wrong. */
  #message(message: Message): void {
    if (this.#o.ended.aborted) return;
    const checked = parseEnvelope(message);
    if (checked.ok) {
      if (this.#o.trace) this.#o.trace.frame("in", message);
      this.peer.receive(checked.envelope);
      return;
    }
    this.#o.trace?.refused(`invalid JSON-RPC message: ${checked.reason}`);
    this.#o.onViolation(`sent an invalid JSON-RPC message: ${checked.reason}`);
  }

  /**
   * Half a frame followed by silence would hold the reader forever: a frame begun must end within
   * the assembly deadline, measured from the chunk that left it unfinished first.
   */
  #watchPartial(): void {
    const reader = this.#reader;
    if (reader.buffered === 0 || this.#o.ended.aborted) return this.#stopWatch();
    if (this.#partial) return;
    const ms = this.#o.frameAssemblyTimeoutMs ?? bounds.FRAME_ASSEMBLY_TIMEOUT_MS;
    this.#partial = setTimeout(() => {
      this.#o.onViolation(`a frame was left unfinished for ${ms} ms (${reader.buffered} bytes without a newline)`);
    }, ms);
    this.#partial.unref();
  }

  #stopWatch(): void {
    if (this.#partial) clearTimeout(this.#partial);
    this.#partial = null;
  }

  #peerDiagnostic(d: PeerDiagnostic): void {
    const diagnose = this.#o.diagnose;
    switch (d.kind) {
      case "late_response":
        // -32800 after a cancel is the cooperative answer the host asked for: worth a note, not a warning.
        if (d.errorCode === ErrorCode.RequestCancelled) {
          diagnose("info", `cancelled request ${String(d.id)} settled with -32800`);
        } else diagnose("warning", `ignored a late response to request ${String(d.id)} (${d.reason})`);
        return;
      case "unknown_response":
        diagnose("warning", `ignored a response to unknown request id ${JSON.stringify(d.id)}`);
        return;
      case "error_response_without_id":
        diagnose("warning", `extension reported an error without an id: ${truncateBytes(d.message, 512)}`);
        return;
      default:
        diagnose("warning", `${d.kind}: ${truncateBytes(d.message, 512)}`);
    }
  }
}

/** The writer, with every frame handed to the trace as it is queued (the order the child reads them). */
function tracedTransport(writer: PeerTransport, trace: ConnectionTrace): PeerTransport {
  const direct = writer.direct;
  return {
    send: (frame) => {
      trace.frame("out", frame);
      return writer.send(frame);
    },
    direct: direct
      ? (message) => {
          trace.frame("out", message);
          return direct(message);
        }
      : null,
  };
}

/**
 * The writer of an in-process stand-in's messages (ForeignMessages): it hands over each message as
 * it is sent, so nothing waits and the writer bound of a pipe is never approached. Like
 * ChildWriter, a closed channel (the stand-in's stdin destroyed) fails it once with
 * transport_closed.
 */
function messagesWriter(
  messages: ForeignMessages,
  stdin: Writable,
  onFailure: (error: OctetError) => void,
): PeerTransport {
  let failed = false;
  const fail = (message: string): void => {
    if (failed) return;
    failed = true;
    onFailure(new OctetError("transport_closed", message));
  };
  stdin.on("error", (err: Error) => fail(`writing to the extension failed: ${err.message}`));
  const none = { withdraw: () => false };
  const direct = (message: Message): typeof none => {
    if (failed) return none;
    if (stdin.destroyed || !stdin.writable) {
      fail("the extension's stdin is closed");
      return none;
    }
    try {
      messages.write(message);
    } catch (err) {
      fail(`writing to the extension failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return none;
  };
  // The peer sends through `direct`; a frame handed to `send` is one encodeFrame made.
  return { send: (frame) => direct(JSON.parse(frame) as Message), direct };
}
