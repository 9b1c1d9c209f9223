/**
 * @octet/agent: the agent on top of the host. Durable sessions (session/), models through pi-ai
 * (models/), the turn loop with every extension touchpoint (loop/), built-in tools (tools/) and
 * compaction. An embedder can take @octet/host without any of it.
 */
export const AGENT_PACKAGE = "@octet/agent";
