/**
 * The invocation context of an rpi request frame (QJS-08, QJS-09), encoded once per context
 * object: the octet bridge hands the same object while the host's catalog and session are
 * unchanged (one catalog epoch), so a host with a large catalog does not encode it on every call.
 *
 * Contract: encode() returns the JSON text of the context with the hello's cwd, mode and trust,
 * trimmed to a quarter of the frame limit (the command descriptions first, then the lists) so
 * that an invocation is never refused for its context; trimming, or a context over
 * LARGE_CONTEXT_BYTES sent whole, is warned once per encoding, naming the size and the bound.
 */
import { utf8ByteLength } from "@octet/protocol";
import type { ExtensionMode, HostRequest, InvocationContext } from "../protocol/frames.js";

/**
 * An encoded context past this many bytes is said to the user (once per context, so once per
 * catalog epoch): it is copied into every invocation frame. Contexts are trimmed at a quarter of
 * the frame limit, which is this bound with the default 1 MiB frames.
 */
export const LARGE_CONTEXT_BYTES = 256 * 1024;

export interface ContextEncoderOptions {
  cwd: string;
  mode: ExtensionMode;
  projectTrusted: boolean;
  maxFrameBytes: number;
  warn(message: string): void;
}

export class ContextEncoder {
  /** The last context object and its text, reused while the same object comes. */
  #last: { known: Partial<InvocationContext>; text: string } | null = null;
  #encodings = 0;

  constructor(private readonly o: ContextEncoderOptions) {}

  /** How many contexts were encoded: one per distinct context object. */
  get encodings(): number {
    return this.#encodings;
  }

  encode(known: Partial<InvocationContext>): string {
    if (this.#last?.known === known) return this.#last.text;
    this.#encodings++;
    const { cwd, mode, projectTrusted, maxFrameBytes: max } = this.o;
    const context: InvocationContext = { ...known, cwd, mode, projectTrusted };
    let text = JSON.stringify(context);
    const bytes = utf8ByteLength(text);
    const size = `the invocation context is ${bytes} bytes`;
    const quarter = `a quarter of the ${max}-byte frame limit`;
    if (bytes > max / 4) {
      if (context.commands) context.commands = context.commands.map((c) => ({ name: c.name }));
      text = JSON.stringify(context);
      if (utf8ByteLength(text) <= max / 4) {
        this.o.warn(`${size}, over ${quarter}; it is sent without the command descriptions`);
      } else {
        delete context.allTools;
        delete context.activeTools;
        delete context.commands;
        text = JSON.stringify(context);
        const lists = `the host's tool and command lists do not fit ${quarter}`;
        this.o.warn(`${size}: ${lists}; the invocation context was sent without them`);
      }
    } else if (bytes > LARGE_CONTEXT_BYTES) {
      const bound = `${LARGE_CONTEXT_BYTES} bytes (LARGE_CONTEXT_BYTES)`;
      this.o.warn(`${size}, over ${bound}; it is copied into every invocation until the catalog changes`);
    }
    this.#last = { known, text };
    return text;
  }
}

/**
 * A request frame's text. An encoded context is spliced in as the request's last member, where
 * JSON.stringify would put it: the frame is the same text, without encoding the context again.
 */
export function requestFrameText(id: string, generation: number, request: HostRequest, context?: string): string {
  const head = `{"type":"request","id":${JSON.stringify(id)},"generation":${generation},"request":`;
  if (context === undefined || request.kind !== "invoke") return `${head}${JSON.stringify(request)}}`;
  return `${head}{"kind":"invoke","invocation":${JSON.stringify(request.invocation)},"context":${context}}}`;
}
