/**
 * The in-process end of a stand-in child's channel to the host: a foreign runtime's or an MCP
 * server's bridge that speaks octet's JSON-RPC from inside the host process. Its RpcPeer writes
 * frames to the stand-in's stdout until the host asks for messages (ForeignMessages.read), and
 * from then on hands each message over as an object; each message the host hands it is judged as
 * a decoded envelope (parseEnvelope) and answered with -32600 when it is none, as a line would be.
 */
import type { ForeignMessages } from "../foreign/foreign-runtime.js";
import { ErrorCode } from "../errors.js";
import { parseEnvelope, type Message } from "../jsonrpc.js";
import type { PeerTransport, RpcPeer, SendTicket } from "./peer.js";

export interface StandInChannel {
  /** The stand-in's RpcPeer transport. */
  readonly transport: PeerTransport;
  /** What the stand-in child offers as `messages`: the host's messages go to `peer` while `open()`. */
  messages(peer: RpcPeer, open: () => boolean): ForeignMessages;
}

const NONE: SendTicket = { withdraw: () => false };

/** `out`: where a frame goes while the host reads bytes (the stand-in's stdout). */
export function standInChannel(out: (frame: string) => void): StandInChannel {
  const transport: PeerTransport = {
    send(frame) {
      out(frame);
      return NONE;
    },
    direct: null,
  };
  return {
    transport,
    messages: (peer, open) => ({
      write(message: Message) {
        if (!open()) return;
        const checked = parseEnvelope(message);
        if (checked.ok) peer.receive(checked.envelope);
        else peer.replyError(checked.id, ErrorCode.InvalidRequest, `invalid request: ${checked.reason}`);
      },
      read(listener) {
        transport.direct = (message) => {
          listener(message);
          return NONE;
        };
      },
    }),
  };
}
