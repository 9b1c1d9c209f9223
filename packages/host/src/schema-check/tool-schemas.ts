/**
 * The compiled schemas of one published catalog (one epoch): each tool's `parameters`, against
 * which every call's arguments are checked before any hook or send (issue 13.2, COMP-14), and
 * its `output_schema`, against which structured_content is checked (CALL-20).
 *
 * Compiled once per epoch, never per call, and once per distinct schema: compiled schemas are
 * cached by their JSON text, process-wide, so a publication that repeats a schema (255 tools
 * with the same output schema) compiles it once. What is still new is bounded per publication
 * and per second for each generation (13b); past either bound the publication is refused whole
 * with an error naming the figure and the limit, and the published catalog stays as it was.
 */
import type { ToolDefinition } from "@octet/protocol";
import { compileSubset, describeFailure, type CompiledSchema } from "./subset-validator.js";

/**
 * Schema text (encoded JSON bytes) one tools/register publication may compile anew: a quarter of
 * the 1 MiB catalog bound (TDEF-13), tens of milliseconds of compile on a slow core. Repeats and
 * schemas compiled before do not count; the initialize catalog is taken whole (see take()).
 */
export const MAX_NEW_SCHEMA_BYTES_PER_PUBLICATION = 256 * 1024;
/** Schema text one generation may compile anew per second, refilled continuously. */
export const MAX_NEW_SCHEMA_BYTES_PER_SECOND = 512 * 1024;
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
 * The compile allowance of one generation: a token bucket of schema bytes, full at the start,
 * refilled at `perSecond`. `now` is injectable for tests.
 */
export class CompileBudget {
  #tokens: number;
  #at: number;
  constructor(
    readonly perPublication = MAX_NEW_SCHEMA_BYTES_PER_PUBLICATION,
    readonly perSecond = MAX_NEW_SCHEMA_BYTES_PER_SECOND,
    readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = perSecond;
    this.#at = now();
  }

  /**
   * Takes `bytes` or throws, naming the figure and the limit; nothing is taken on a refusal. The
   * initialize catalog is taken whole whatever the bounds (TDEF-13 already caps it at 1 MiB, and a
   * catalog the spec allows must start); what it took is owed by the publications after it.
   */
  take(bytes: number, initial = false): void {
    if (initial) {
      this.#tokens -= bytes;
      this.#at = this.now();
      return;
    }
    if (bytes > this.perPublication) {
      throw new Error(`its schemas need ${bytes} bytes of new schema compilation, over the limit of ${this.perPublication} bytes per publication (schemas already compiled, and repeats, do not count)`);
    }
    const t = this.now();
    this.#tokens = Math.min(this.perSecond, this.#tokens + ((t - this.#at) / 1000) * this.perSecond);
    this.#at = t;
    if (bytes > this.#tokens) {
      throw new Error(`its schemas need ${bytes} bytes of new schema compilation, and this extension has ${Math.max(0, Math.floor(this.#tokens))} left of its ${this.perSecond} bytes per second; publish again later`);
    }
    this.#tokens -= bytes;
  }
}

export interface ToolSchemas {
  /** Why `args` do not match the tool's parameters ("arguments.name: must be string"), or null. */
  checkArguments(tool: string, args: unknown): string | null;
  /** Why `value` does not match the tool's output_schema ("structured_content.n: must be integer"), or null. */
  checkStructured(tool: string, value: unknown): string | null;
}

export const NO_SCHEMAS: ToolSchemas = { checkArguments: () => null, checkStructured: () => null };

/** Compiles a catalog's schemas within `budget`; throws (and changes nothing) when over it. */
export function compileToolSchemas(tools: readonly ToolDefinition[], budget: CompileBudget, initial = false): ToolSchemas {
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
  let bytes = 0;
  for (const key of fresh.keys()) bytes += Buffer.byteLength(key);
  if (bytes > 0) budget.take(bytes, initial);
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
    checkStructured: (tool, value) => run(outputs.get(tool), "structured_content", value),
  };
}
