/**
 * Prelude part: pi's user_bash answer `{operations: {exec}}` run where it was written. The
 * operations are code (ssh.ts runs the command on a remote host), which no frame can carry, so
 * the prelude calls `operations.exec(command, cwd, {onData, signal, timeout})` inside the
 * extension, as pi's executeBashWithOperations does, and answers the session layer with the
 * result it collected: `{result: {output, exitCode, cancelled, truncated}}`.
 *
 * Contracts:
 * - Output chunks (a string, or bytes decoded as UTF-8 where the realm has TextDecoder) are sent
 *   as `update` frames `{output}` at most every UPDATE_EVERY_MS, coalesced; an update that cannot
 *   be sent ends the streaming, not the run (the answer still carries the output).
 * - The answer keeps the last OUTPUT_KEEP characters (pi keeps a tail too), `truncated` when more
 *   came. exec resolving `{exitCode}` is the exit code (null when not a number); a rejection is
 *   exit code null with its message appended, or `cancelled` when the invocation was aborted
 *   (Ctrl-C in the shell cancels the hook invocation, whose signal the exec got).
 */
export const USER_BASH_JS = String.raw`
const OUTPUT_KEEP = 50 * 1024;
const UPDATE_EVERY_MS = 100;
const NativeTextDecoder = typeof TextDecoder === "function" ? TextDecoder : null;

function chunkText(data, decoder) {
  if (typeof data === "string") return data;
  if (decoder !== null) {
    try {
      return decoder.decode(data, { stream: true });
    } catch (_) {
      // Not bytes: said as text below.
    }
  }
  return String(data);
}

async function runUserBashOperations(operations, event, inv) {
  const decoder = NativeTextDecoder === null ? null : new NativeTextDecoder();
  let output = "";
  let truncated = false;
  let pending = "";
  let flushTimer = null;
  let streaming = true;
  const flush = () => {
    flushTimer = null;
    if (!streaming || pending === "" || inv.answered) return;
    const problem = trySend({ type: "update", id: inv.id, value: { output: pending } }, "the user_bash output");
    pending = "";
    if (problem !== null) streaming = false;
  };
  const onData = (data) => {
    const text = chunkText(data, decoder);
    if (text === "") return;
    output = output + text;
    if (output.length > OUTPUT_KEEP) {
      output = stringSlice(output, output.length - OUTPUT_KEEP);
      truncated = true;
    }
    if (!streaming) return;
    pending = pending + text;
    if (pending.length > OUTPUT_KEEP) pending = stringSlice(pending, pending.length - OUTPUT_KEEP);
    if (flushTimer === null) {
      try {
        flushTimer = arm(flush, UPDATE_EVERY_MS, [], false);
      } catch (_) {
        streaming = false;
      }
    }
  };
  const command = isObject(event) ? event.command : undefined;
  const cwd = isObject(event) ? event.cwd : undefined;
  let exitCode = null;
  let cancelled = false;
  try {
    const done = await operations.exec(command, cwd, { onData: onData, signal: inv.controller.signal,
        timeout: undefined });
    exitCode = isObject(done) && typeof done.exitCode === "number" ? done.exitCode : null;
    cancelled = inv.controller.signal.aborted === true;
  } catch (e) {
    if (inv.controller.signal.aborted === true) cancelled = true;
    else onData((output === "" || stringSlice(output, -1) === "\n" ? "" : "\n") + describe(e) + "\n");
  }
  if (flushTimer !== null) disarm(flushTimer);
  flushTimer = null;
  return { result: { output: output, exitCode: cancelled ? null : exitCode, cancelled: cancelled,
      truncated: truncated } };
}

// The user_bash answer as the session layer takes it: operations run here, anything else as it is.
async function settleUserBash(value, event, inv) {
  if (!isObject(value) || !isObject(value.operations) || typeof value.operations.exec !== "function") return value;
  return runUserBashOperations(value.operations, event, inv);
}
`;
