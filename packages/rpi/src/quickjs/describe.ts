/**
 * What a value thrown inside the VM says, copied out as host strings: "Name: message" (or what
 * was thrown), and the same with the VM stack for a stderr line. Reading `name`, `message` and
 * `stack` runs the extension's getters, so this is called inside a VM entry only.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

/** A thrown value's message or stack longer than this is not copied out of the VM. */
export const DESCRIBE_CHARS = 16384;

/** A thrown VM value: "Name: message" (or what was thrown), and the same with the VM stack. */
export interface Described {
  summary: string;
  full: string;
}

export function describeThrown(ctx: QuickJSContext, thrown: QuickJSHandle): Described {
  const text = (v: QuickJSHandle): string => {
    const length = ctx.getProp(v, "length").consume((n) => ctx.getNumber(n));
    return length > DESCRIBE_CHARS ? `(${length} characters, not shown)` : ctx.getString(v);
  };
  const only = (summary: string): Described => ({ summary, full: summary });
  const type = ctx.typeof(thrown);
  if (type === "string") return only(`a thrown string: ${text(thrown)}`);
  if (type === "number" || type === "boolean" || type === "undefined" || type === "bigint")
    return only(`a thrown ${type}: ${String(ctx.dump(thrown))}`);
  if (type !== "object" || ctx.sameValue(thrown, ctx.null))
    return only(type === "object" ? "a thrown null" : `a thrown ${type}`);
  const prop = (key: string): string | undefined => {
    try {
      return ctx.getProp(thrown, key).consume((v) => (ctx.typeof(v) === "string" ? text(v) : undefined));
    } catch {
      return undefined;
    }
  };
  const name = prop("name") ?? "Error";
  const message = prop("message");
  const stack = prop("stack");
  if (message === undefined) return only("a thrown object that is not an Error");
  const summary = `${name}: ${message}`;
  return { summary, full: stack !== undefined && stack.trim() !== "" ? `${summary}\n${stack.trimEnd()}` : summary };
}
