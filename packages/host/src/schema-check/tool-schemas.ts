/**
 * The compiled schemas of one published catalog (one epoch): each tool's `parameters`, against
 * which every call's arguments are checked before any hook or send (issue 13.2, COMP-14), and
 * its `output_schema`, against which structured_content is checked (CALL-20).
 *
 * Compiled once per epoch, never per call, and once per distinct schema: compiled schemas are
 * cached by their JSON text, process-wide, so a publication that repeats a schema (255 tools
 * with the same output schema) compiles it once. What is still new is bounded per publication
 * (13b); every publication's size, cached or not, is bounded per second for each generation, as
 * even a fully cached catalog is re-walked (encoded and looked up) whole. Past either bound the
 * publication is refused whole with an error naming the figure and the limit, and the published
 * catalog stays as it was.
 */
import type { ToolDefinition } from "@octet/protocol";
import { compileSubset, describeFailure, failedValue, failurePath, type CompiledSchema } from "./subset-validator.js";

/**
 * Schema text (encoded JSON bytes) one tools/register publication may compile anew: a quarter of
 * the 1 MiB catalog bound (TDEF-13), tens of milliseconds of compile on a slow core. Repeats and
 * schemas compiled before do not count; the initialize catalog is taken whole (see take()).
 */
export const MAX_NEW_SCHEMA_BYTES_PER_PUBLICATION = 256 * 1024;
/**
 * Bytes of tool definitions (name, description and schemas, compiled before or not) one
 * generation may publish per second, refilled continuously (issue 13 review: a cached catalog
 * republished in a loop made the host re-walk it for free).
 */
export const MAX_PUBLISHED_BYTES_PER_SECOND = 512 * 1024;
/** Validation steps (schema node visits) one check may take; a value past it is refused (13e). */
export const MAX_CHECK_STEPS = 1_000_000;

const CACHE_MAX_ENTRIES = 4096;
const CACHE_MAX_BYTES = 16 * 1024 * 1024;

/** Compiled schemas by JSON text, least recently used first; bounded in entries and text. */
const cache = new Map<string, CompiledSchema>();
let cachedBytes = 0;

function cached(key: string): CompiledSchema | undefined {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
  }
  return hit;
}

function remember(key: string, compiled: CompiledSchema): void {
  cache.set(key, compiled);
  cachedBytes += key.length;
  for (const [old] of cache) {
    if (cache.size <= CACHE_MAX_ENTRIES && cachedBytes <= CACHE_MAX_BYTES) break;
    cache.delete(old);
    cachedBytes -= old.length;
  }
}

/**
 * The publication allowance of one generation: a bound on new schema bytes per publication, and
 * a token bucket of published bytes, full at the start, refilled at `perSecond`. `now` is
 * injectable for tests.
 */
export class CompileBudget {
  #tokens: number;
  #at: number;
  constructor(
    readonly perPublication = MAX_NEW_SCHEMA_BYTES_PER_PUBLICATION,
    readonly perSecond = MAX_PUBLISHED_BYTES_PER_SECOND,
    readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = perSecond;
    this.#at = now();
  }

  /**
   * Takes a publication of `published` bytes, `fresh` of them schema text to compile anew, or
   * throws naming the figure and the limit; nothing is taken on a refusal. A publication larger
   * than a second's allowance passes once the allowance is full, and owes the rest (TDEF-13 allows
   * a 1 MiB catalog). The initialize catalog is taken whole whatever the bounds (a catalog the
   * spec allows must start); what it took is owed by the publications after it.
   */
  take(fresh: number, published: number, initial = false): void {
    if (initial) {
      this.#tokens -= published;
      this.#at = this.now();
      return;
    }
    if (fresh > this.perPublication) {
      throw new Error(
        `its schemas need ${fresh} bytes of new schema compilation, over the limit of ${this.perPublication} bytes ` +
          "per publication (schemas already compiled, and repeats, do not count)",
      );
    }
    const t = this.now();
    this.#tokens = Math.min(this.perSecond, this.#tokens + ((t - this.#at) / 1000) * this.perSecond);
    this.#at = t;
    if (Math.min(published, this.perSecond) > this.#tokens) {
      const left = Math.max(0, Math.floor(this.#tokens));
      throw new Error(
        `its tool definitions are ${published} bytes (schemas compiled before count too: each publication is ` +
          `re-walked whole), and this extension has ${left} left of its ${this.perSecond} bytes per second; ` +
          "publish again later",
      );
    }
    this.#tokens -= published;
  }
}

/** Where arguments failed (`arguments.name`), the rule (`must be string`) and the value found there. */
export interface ArgumentProblem {
  path: string;
  rule: string;
  value: unknown;
}

export interface ToolSchemas {
  /** Why `args` do not match the tool's parameters ("arguments.name: must be string"), or null. */
  checkArguments(tool: string, args: unknown): string | null;
  /** checkArguments() in parts, with the offending value, for a refusal that shows what was given. */
  explainArguments(tool: string, args: unknown): ArgumentProblem | null;
  /** Why `value` does not match the tool's output_schema ("structured_content.n: must be integer"), or null. */
  checkStructured(tool: string, value: unknown): string | null;
}

export const NO_SCHEMAS: ToolSchemas = {
  checkArguments: () => null,
  explainArguments: () => null,
  checkStructured: () => null,
};

/** Compiles a catalog's schemas within `budget`; throws (and changes nothing) when over it. */
export function compileToolSchemas(
  tools: readonly ToolDefinition[],
  budget: CompileBudget,
  initial = false,
): ToolSchemas {
  const keyed = tools.map((t) => ({
    name: t.name,
    parameters: JSON.stringify(t.parameters),
    output: t.output_schema === undefined || t.output_schema === null ? null : JSON.stringify(t.output_schema),
  }));
  // Held by the epoch, not looked up per call: the cache may evict, the epoch keeps what it uses.
  const compiled = new Map<string, CompiledSchema>();
  const fresh = new Map<string, unknown>();
  const note = (key: string, schema: unknown): void => {
    if (compiled.has(key) || fresh.has(key)) return;
    const hit = cached(key);
    if (hit) compiled.set(key, hit);
    else fresh.set(key, schema);
  };
  tools.forEach((t, i) => {
    note(keyed[i]!.parameters, t.parameters);
    if (keyed[i]!.output !== null) note(keyed[i]!.output!, t.output_schema);
  });
  let freshBytes = 0;
  for (const key of fresh.keys()) freshBytes += Buffer.byteLength(key);
  let published = 0;
  tools.forEach((t, i) => {
    const k = keyed[i]!;
    published += Buffer.byteLength(t.name) + Buffer.byteLength(t.description ?? "") + Buffer.byteLength(k.parameters);
    if (k.output !== null) published += Buffer.byteLength(k.output);
  });
  budget.take(freshBytes, published, initial);
  for (const [key, schema] of fresh) {
    const c = compileSubset(schema);
    remember(key, c);
    compiled.set(key, c);
  }
  const params = new Map<string, CompiledSchema>();
  const outputs = new Map<string, CompiledSchema>();
  for (const k of keyed) {
    params.set(k.name, compiled.get(k.parameters)!);
    if (k.output !== null) outputs.set(k.name, compiled.get(k.output)!);
  }
  const run = (schema: CompiledSchema | undefined, root: string, value: unknown): string | null => {
    const failure = schema?.check(value, MAX_CHECK_STEPS) ?? null;
    return failure ? describeFailure(root, failure) : null;
  };
  return {
    checkArguments: (tool, args) => run(params.get(tool), "arguments", args),
    explainArguments: (tool, args) => {
      const failure = params.get(tool)?.check(args, MAX_CHECK_STEPS) ?? null;
      if (failure === null) return null;
      return { path: failurePath("arguments", failure), rule: failure.rule, value: failedValue(args, failure) };
    },
    checkStructured: (tool, value) => run(outputs.get(tool), "structured_content", value),
  };
}
