// The connection object of a candidate that embeds the octet host (octet, py-sdk, quickjs): calls
// go through host.callTool, and a tool error is a failure of the run, not a figure.
export function hostConnection(host, close, extra = {}) {
  return {
    async call(args) {
      const out = await host.callTool("echo", args);
      if (out.is_error) throw new Error(`echo failed: ${out.text}`);
      return out;
    },
    /** Calls any tool; resolves with the result text. `signal` cancels the call. */
    async callTool(toolName, args, { signal } = {}) {
      const out = await host.callTool(toolName, args, signal ? { signal } : {});
      if (out.is_error) throw new Error(`${toolName} failed: ${out.text.slice(0, 200)}`);
      return out.text;
    },
    close,
    ...extra,
  };
}
