/**
 * Typed tools (PY-11..PY-22 in TypeScript): a TypeBox input (and optional output) schema becomes
 * the tool's parameters/output_schema and a codec, both built at registration (typed-schema.ts);
 * each call decodes the arguments before the handler runs and answers -32602 when they do not
 * match (PY-20), and checks what the handler returns before anything is published: a value that
 * does not match the output, a bad summary or bad diagnostics become a tool error carrying an
 * octet.typed.invalid_output diagnostic, never a success.
 *
 * Differences from Python that TypeScript makes natural: handlers may be async (the SDK is
 * promise-based; Python refuses async because it has no event loop to run it), and the handler
 * gets ctx as its second argument (Python's optional ambient context).
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import {
  DIAGNOSTICS_METADATA_KEY,
  ErrorCode,
  WireError,
  bounds,
  measureJson,
  utf8ByteLength,
  type WireDiagnostic,
} from "@octet/protocol";
import { compileSchema, decode, TypedValueError, type CompiledSchema } from "./typed-schema.js";
import { toWireDiagnostics, type Diagnostic } from "./diagnostics.js";
import type { HandlerContext, ToolHandler, ToolResultObject, ToolSpec } from "./types.js";

/** The code of the diagnostic an invalid typed result is replaced with. */
export const INVALID_OUTPUT_CODE = "octet.typed.invalid_output";

const VALUE_LIMITS = {
  maxBytes: bounds.MAX_TYPED_VALUE_BYTES,
  maxDepth: bounds.MAX_VALUE_DEPTH,
  maxNodes: bounds.MAX_VALUE_NODES,
};

export interface TypedResultOptions {
  /** A tool error: the value may then be null (no structured value is sent). */
  isError?: boolean;
  diagnostics?: readonly Diagnostic[];
}

/**
 * What a typed handler returns when it needs more than a value (PY-22): the value, the
 * model-facing summary, whether it is an error, and diagnostics. An error may leave value null.
 */
export class TypedResult<T> {
  readonly value: T | null;
  readonly summary: string;
  readonly isError: boolean;
  readonly diagnostics: readonly Diagnostic[];
  constructor(value: T | null, summary: string, options: TypedResultOptions = {}) {
    this.value = value;
    this.summary = summary;
    this.isError = options.isError === true;
    this.diagnostics = options.diagnostics ?? [];
  }
}

export interface TypedToolSpec<I extends TObject, O extends TSchema | undefined> {
  name: string;
  description: string;
  /** The arguments: a record (Type.Object). Fields that may be omitted need a default. */
  input: I;
  /** The structured result (sent as structured_content); omit for a tool that answers text only. */
  output?: O;
  /** The model-facing text of a plain returned value; without it the handler returns TypedResult. */
  summary?: (value: OutputOf<O>) => string;
  promptSnippet?: string;
  promptGuidelines?: string[];
}
type OutputOf<O> = [O] extends [TSchema] ? Static<O> : null;
/**
 * With an output: the value (when the spec has a summary) or a TypedResult. Without one: the text
 * for the model (checked as a summary) or a TypedResult whose value is null.
 */
export type TypedToolReturn<O> = [O] extends [TSchema]
  ? Static<O> | TypedResult<Static<O> | null>
  : string | TypedResult<null>;
export type TypedToolHandler<I extends TObject, O extends TSchema | undefined> = (
  value: Static<I>,
  ctx: HandlerContext,
) => TypedToolReturn<O> | Promise<TypedToolReturn<O>>;

/**
 * The plain ToolSpec and ToolHandler of a typed tool. Throws a TypeError naming the schema path at
 * registration for anything typed tools do not support.
 */
export function buildTypedTool<I extends TObject, O extends TSchema | undefined>(
  spec: TypedToolSpec<I, O>,
  handler: TypedToolHandler<I, O>,
): { spec: ToolSpec; handler: ToolHandler } {
  const name = spec.name;
  if (typeof handler !== "function") throw new TypeError(`typed tool "${name}" needs a handler function`);
  if (spec.summary !== undefined && typeof spec.summary !== "function")
    throw new TypeError(`typed tool "${name}": summary must be a function of the value`);
  if (spec.summary !== undefined && spec.output === undefined)
    throw new TypeError(`typed tool "${name}": summary needs an output; without one the handler returns its text`);
  const input = prefixed(name, () => compileSchema(spec.input, "input", "record"));
  const output =
    spec.output === undefined ? undefined : prefixed(name, () => compileSchema(spec.output, "output", "any"));
  const plain: ToolSpec = { name, description: spec.description, parameters: input.json };
  if (output) plain.outputSchema = output.json;
  if (spec.promptSnippet !== undefined) plain.promptSnippet = spec.promptSnippet;
  if (spec.promptGuidelines !== undefined) plain.promptGuidelines = spec.promptGuidelines;
  const summary = spec.summary as ((value: unknown) => string) | undefined;
  const run = handler as (value: unknown, ctx: HandlerContext) => unknown;
  return {
    spec: plain,
    handler: async (args, ctx) => {
      const value = decodeArguments(name, input, args);
      return typedResult(name, output, summary, await run(value, ctx));
    },
  };
}

function prefixed<T>(name: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    throw new TypeError(`typed tool "${name}": ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The arguments as the handler's value, or -32602 before the handler runs (PY-20). */
function decodeArguments(name: string, input: CompiledSchema, args: Record<string, unknown>): unknown {
  const size = measureJson(args, VALUE_LIMITS, "arguments");
  if (!size.ok) throw new WireError(ErrorCode.InvalidParams, `invalid arguments for tool "${name}": ${size.message}`);
  try {
    return decode(input.codec, args, "arguments");
  } catch (err) {
    if (err instanceof TypedValueError)
      throw new WireError(ErrorCode.InvalidParams, `invalid arguments for tool "${name}": ${err.message}`);
    throw err;
  }
}

/** What the handler returned as a tool result; anything invalid becomes the invalid-output error. */
function typedResult(
  name: string,
  output: CompiledSchema | undefined,
  summary: ((value: unknown) => string) | undefined,
  returned: unknown,
): ToolResultObject {
  try {
    let r: TypedResult<unknown>;
    if (returned instanceof TypedResult) r = returned;
    else if (output === undefined) r = new TypedResult(null, returned as string);
    else if (summary === undefined)
      throw new TypeError(
        "the handler returned a plain value but the tool has no summary; return new TypedResult(value, " +
          "summary) or give the spec a summary",
      );
    else r = new TypedResult(returned, summaryOf(summary, returned));
    checkSummary(r.summary);
    const result: ToolResultObject = { content: r.summary, isError: r.isError };
    if (r.value === null || r.value === undefined) {
      // Only an error may go without its value (PY-22); a tool without output has none to give.
      if (output !== undefined && !r.isError)
        throw new TypeError("a successful result needs its value; only an error (isError: true) may leave it null");
    } else {
      if (output === undefined) throw new TypeError("the tool declares no output, so a result's value must be null");
      result.structuredContent = checkedOutput(output, r.value);
    }
    if (r.diagnostics.length > 0) result.metadata = { [DIAGNOSTICS_METADATA_KEY]: toWireDiagnostics(r.diagnostics) };
    return result;
  } catch (err) {
    return invalidOutput(name, err instanceof Error ? err.message : String(err));
  }
}

function summaryOf(summary: (value: unknown) => string, value: unknown): string {
  try {
    return summary(value);
  } catch (err) {
    throw new TypeError(`the summary callback threw: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Non-empty plain text of at most 4096 UTF-8 bytes (PY-19). */
function checkSummary(s: unknown): void {
  if (typeof s !== "string") throw new TypeError(`the summary must be a string, got ${s === null ? "null" : typeof s}`);
  if (s.trim() === "") throw new TypeError("the summary must not be empty");
  const n = utf8ByteLength(s);
  if (n > bounds.MAX_TYPED_SUMMARY_BYTES)
    throw new TypeError(`the summary is ${n} bytes, over the ${bounds.MAX_TYPED_SUMMARY_BYTES}-byte limit`);
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.exec(s);
  if (bad)
    throw new TypeError(
      `the summary has control character ` +
        `U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")} at index ${bad.index}; it must ` +
        `be plain text (LF and TAB allowed)`,
    );
}

function checkedOutput(output: CompiledSchema, value: unknown): unknown {
  let encoded: unknown;
  try {
    encoded = decode(output.codec, value, "output");
  } catch (err) {
    if (err instanceof TypedValueError) throw new TypeError(err.message);
    throw err;
  }
  const size = measureJson(encoded, VALUE_LIMITS, "output");
  if (!size.ok) throw new TypeError(size.message);
  return encoded;
}

/**
 * The tool error that replaces an invalid typed result: a short text for the model and one error
 * diagnostic; none of the author's diagnostics go with it, so a failed result publishes no
 * reference through them (DIAG-05).
 */
function invalidOutput(name: string, problem: string): ToolResultObject {
  const message = clip(
    problem.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\uFFFD"),
    bounds.MAX_DIAGNOSTIC_MESSAGE_BYTES,
  );
  process.stderr.write(`octet-extension: typed tool "${name}" produced invalid output: ${clip(message, 1024)}\n`);
  const diagnostic: WireDiagnostic = { severity: "error", code: INVALID_OUTPUT_CODE, message };
  return {
    content: `Tool ${name} produced invalid output.`,
    isError: true,
    metadata: { [DIAGNOSTICS_METADATA_KEY]: [diagnostic] },
  };
}

function clip(s: string, max: number): string {
  if (utf8ByteLength(s) <= max) return s;
  let out = s.slice(0, max);
  while (utf8ByteLength(out) > max - 3) out = out.slice(0, Math.floor(out.length * 0.9));
  // Never end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1);
  return `${out}...`;
}
