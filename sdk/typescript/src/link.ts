/**
 * What a running request needs of the negotiated connection, and what progress needs of the
 * request. A leaf: request-scope.ts (which builds each request's progress) and progress.ts both
 * import it, so neither imports the other for a type.
 */
import type { ApiVersion, JsonRpcId, RpcPeer } from "@octet/protocol";

/** What a request needs of the negotiated connection. Exists only after initialize. */
export interface Link {
  readonly api: ApiVersion;
  /** The features this connection negotiated (empty on API 0.1). */
  readonly features: ReadonlySet<string>;
  readonly peer: RpcPeer;
}

/** The request as its progress sees it (RequestScope implements it). */
export interface ProgressScope {
  readonly id: JsonRpcId;
  readonly method: string;
  /** False once the response is decided: nothing more is sent for the request. */
  readonly active: boolean;
  /** The next $/progress sequence of the request (PROG-03). */
  nextSequence(): number;
}
