/**
 * The MCP SDK's Transport over a process the host spawned (its group, containment, registry):
 * the SDK's own StdioClientTransport spawns by itself, which would put the server outside octet's
 * supervision. Framing is the SDK's (newline-delimited JSON, shared/stdio.js).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #buffer = new ReadBuffer();
  #closed = false;

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
  }

  async start(): Promise<void> {
    this.#child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (err) {
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.#child.stdin.on("error", (err) => this.onerror?.(err));
    this.#child.once("close", () => this.#finish());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#closed || this.#child.stdin.destroyed) return reject(new Error("the MCP server's stdin is closed"));
      this.#child.stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Ends the server's stdin: an MCP stdio server exits on EOF (the host kills the group after). */
  async close(): Promise<void> {
    this.#child.stdin.end();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }
}
