/**
 * What an extension tried to call when QuickJS says only "not a function": bellard QuickJS's
 * TypeError carries no expression ("not a function", "not a constructor"), so a tool that called
 * `ctx.ui.setWorkingVisible()` would report a bare "not a function". The error's stack names the
 * module, line and column of the call's "("; the callee is the member expression that ends there
 * in the module's source. Pure: the sandbox keeps the sources of the modules it loaded.
 */

/** A callee text longer than this is not worth quoting. */
const MAX_CALLEE_CHARS = 120;

/** The callee of the call the first stack frame points at, or undefined when it cannot be told. */
export function calleeAt(sources: ReadonlyMap<string, string>, stack: string): string | undefined {
  const frame = /\(?([^\s()]+):(\d+):(\d+)\)?\s*$/m.exec(
    stack.split("\n").find((l) => /:\d+:\d+\)?\s*$/.test(l)) ?? "",
  );
  if (!frame) return undefined;
  const source = sources.get(frame[1]!);
  if (source === undefined) return undefined;
  const line = source.split("\n")[Number(frame[2]) - 1];
  const col = Number(frame[3]) - 1;
  if (line === undefined || line[col] !== "(") return undefined;
  const before = line.slice(Math.max(0, col - 4 * MAX_CALLEE_CHARS), col).replace(/\s*(\?\.)?\s*$/, "");
  const m = /(?:new\s+)?[A-Za-z_$][\w$]*(?:\s*\??\.\s*#?[A-Za-z_$][\w$]*)*$/.exec(before);
  if (!m || m[0].length > MAX_CALLEE_CHARS) return undefined;
  return m[0].replace(/\s+/g, "");
}
