/**
 * A compiled validator for the JSON Schema keyword subset of TDEF-06, used for tool arguments
 * (against `parameters`) and for structured_content (against `output_schema`).
 *
 * Why not Ajv: Ajv generates and evals code per schema (about 15 ms and megabytes for a 4 KB
 * schema, issue 13b), and its uniqueItems check is quadratic (13e). Here a schema compiles into
 * a tree of closures in time linear in its size, validation visits each (schema node, value)
 * pair at most once under a step budget, and uniqueItems is a hash set over canonical JSON.
 *
 * Only the subset's assertions are enforced: a keyword outside it, or one whose value has the
 * wrong shape, is ignored (parameters may use any keyword, TDEF-07; see docs/decisions.md).
 * Nothing is closed that the schema leaves open: additionalProperties is enforced only where
 * the schema says so.
 */

/** Where a value failed, child segment first (reversed once at the end), and the rule it broke. */
export interface Failure {
  path: (string | number)[];
  rule: string;
}

/** Visits left for one check; a check that runs out is refused rather than left to run (13e). */
export interface Steps {
  left: number;
}

type Node = (value: unknown, steps: Steps) => Failure | null;

class StepBudgetExceeded extends Error {}

export interface CompiledSchema {
  /** null when `value` conforms; otherwise the first failure, its path root first. */
  check(value: unknown, maxSteps: number): Failure | null;
  /** Schema nodes compiled: the unit of the compile budget. */
  readonly nodes: number;
}

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

export function compileSubset(schema: unknown): CompiledSchema {
  const counter = { nodes: 0 };
  const root = compileNode(schema, counter);
  return {
    nodes: counter.nodes,
    check(value, maxSteps) {
      let failure: Failure | null;
      try {
        failure = root(value, { left: maxSteps });
      } catch (err) {
        if (!(err instanceof StepBudgetExceeded)) throw err;
        return { path: [], rule: `is too large to check against its schema (over ${maxSteps} validation steps)` };
      }
      if (failure) failure.path.reverse();
      return failure;
    },
  };
}

const pass: Node = () => null;

function fail(rule: string): Failure {
  return { path: [], rule };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function isNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function own(schema: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
}

function compileNode(schema: unknown, counter: { nodes: number }): Node {
  counter.nodes++;
  if (schema === false) return () => fail("is not allowed");
  if (!isObject(schema)) return pass;
  const checks: Node[] = [];
  const type = typeCheck(own(schema, "type"));
  if (type) checks.push(type);
  const enumValues = own(schema, "enum");
  if (Array.isArray(enumValues)) {
    const keys = new Set(enumValues.map(canonical));
    const shown =
      enumValues
        .slice(0, 5)
        .map((v) => show(v))
        .join(", ") + (enumValues.length > 5 ? ", ..." : "");
    // Only primitives listed: an object or array can never match, so it is never encoded.
    const primitivesOnly = enumValues.every((e) => e === null || typeof e !== "object");
    checks.push((v, steps) =>
      (primitivesOnly && v !== null && typeof v === "object") || !keys.has(chargedKey(v, steps))
        ? fail(`must be one of ${shown}`)
        : null,
    );
  }
  if (Object.prototype.hasOwnProperty.call(schema, "const")) {
    const key = canonical(schema["const"]);
    const shown = show(schema["const"]);
    checks.push((v, steps) => (chargedKey(v, steps) === key ? null : fail(`must be ${shown}`)));
  }
  checks.push(
    ...numberChecks(schema),
    ...stringChecks(schema),
    ...arrayChecks(schema, counter),
    ...objectChecks(schema, counter),
  );
  for (const kw of ["allOf", "anyOf", "oneOf"] as const) {
    const list = own(schema, kw);
    if (!Array.isArray(list) || list.length === 0) continue;
    const subs = list.map((s) => compileNode(s, counter));
    if (kw === "allOf") checks.push((v, steps) => firstFailure(subs, v, steps));
    else if (kw === "anyOf")
      checks.push((v, steps) => (subs.some((n) => n(v, steps) === null) ? null : fail("must match a schema in anyOf")));
    else {
      checks.push((v, steps) => {
        let matched = 0;
        for (const n of subs) if (n(v, steps) === null && ++matched > 1) break;
        return matched === 1
          ? null
          : fail(`must match exactly one schema in oneOf (matched ${matched === 0 ? "none" : "more than one"})`);
      });
    }
  }
  if (checks.length === 0) return pass;
  return (v, steps) => {
    if (--steps.left < 0) throw new StepBudgetExceeded();
    return firstFailure(checks, v, steps);
  };
}

/**
 * The canonical JSON of `v`, its length charged to the step budget: an enum or const compares
 * whole values, and many alternatives over one large value would otherwise re-encode it at the
 * cost of one step each (a 31 KB schema held the main thread 7 s on 199 KB of output).
 */
function chargedKey(v: unknown, steps: Steps): string {
  const key = canonical(v);
  steps.left -= key.length;
  if (steps.left < 0) throw new StepBudgetExceeded();
  return key;
}

function firstFailure(nodes: readonly Node[], v: unknown, steps: Steps): Failure | null {
  for (const n of nodes) {
    const f = n(v, steps);
    if (f) return f;
  }
  return null;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function typeCheck(type: unknown): Node | null {
  const names = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  const known = names.filter((n): n is string => typeof n === "string" && TYPES.has(n));
  if (known.length === 0) return null;
  const allowed = new Set(known);
  const rule = `must be ${known.join(" or ")}`;
  return (v) => {
    const t = typeOf(v);
    if (allowed.has(t)) return null;
    if (t === "number" && allowed.has("integer") && Number.isInteger(v)) return null;
    return fail(rule);
  };
}

function numberChecks(schema: Record<string, unknown>): Node[] {
  const out: Node[] = [];
  const bound = (kw: string, ok: (v: number, limit: number) => boolean, op: string): void => {
    const limit = own(schema, kw);
    if (isNumber(limit))
      out.push((v) => (typeof v !== "number" || ok(v, limit) ? null : fail(`must be ${op} ${limit}`)));
  };
  bound("minimum", (v, l) => v >= l, ">=");
  bound("maximum", (v, l) => v <= l, "<=");
  bound("exclusiveMinimum", (v, l) => v > l, ">");
  bound("exclusiveMaximum", (v, l) => v < l, "<");
  return out;
}

/** Length in code points, as JSON Schema counts it (a surrogate pair is one character). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function stringChecks(schema: Record<string, unknown>): Node[] {
  const out: Node[] = [];
  const min = own(schema, "minLength");
  const max = own(schema, "maxLength");
  if (isCount(min))
    out.push((v) =>
      typeof v !== "string" || v.length >= min * 2 || codePoints(v) >= min
        ? null
        : fail(`must not have fewer than ${min} characters`),
    );
  if (isCount(max))
    out.push((v) =>
      typeof v !== "string" || v.length <= max || codePoints(v) <= max
        ? null
        : fail(`must not have more than ${max} characters`),
    );
  return out;
}

function arrayChecks(schema: Record<string, unknown>, counter: { nodes: number }): Node[] {
  const out: Node[] = [];
  const min = own(schema, "minItems");
  const max = own(schema, "maxItems");
  if (isCount(min))
    out.push((v) => (!Array.isArray(v) || v.length >= min ? null : fail(`must not have fewer than ${min} items`)));
  if (isCount(max))
    out.push((v) => (!Array.isArray(v) || v.length <= max ? null : fail(`must not have more than ${max} items`)));
  if (own(schema, "uniqueItems") === true) out.push((v, steps) => (Array.isArray(v) ? duplicate(v, steps) : null));
  // Tuple-form items (an array) is outside the subset: not enforced.
  const items = own(schema, "items");
  if (isObject(items) || items === false) {
    const item = compileNode(items, counter);
    out.push((v, steps) => {
      if (!Array.isArray(v)) return null;
      for (let i = 0; i < v.length; i++) {
        const f = item(v[i], steps);
        if (f) {
          f.path.push(i);
          return f;
        }
      }
      return null;
    });
  }
  return out;
}

/** Linear in the array's encoded size: one canonical key per item in a set (Ajv compares pairs). */
function duplicate(v: unknown[], steps: Steps): Failure | null {
  steps.left -= v.length;
  if (steps.left < 0) throw new StepBudgetExceeded();
  const seen = new Map<string, number>();
  for (let i = 0; i < v.length; i++) {
    const key = canonical(v[i]);
    const first = seen.get(key);
    if (first !== undefined) return fail(`must not have duplicate items (items ${first} and ${i} are equal)`);
    seen.set(key, i);
  }
  return null;
}

function objectChecks(schema: Record<string, unknown>, counter: { nodes: number }): Node[] {
  const out: Node[] = [];
  const required = own(schema, "required");
  if (Array.isArray(required)) {
    const names = required.filter((n): n is string => typeof n === "string");
    out.push((v) => {
      if (!isObject(v)) return null;
      for (const name of names)
        if (!Object.prototype.hasOwnProperty.call(v, name)) return fail(`must have required property ${show(name)}`);
      return null;
    });
  }
  const min = own(schema, "minProperties");
  const max = own(schema, "maxProperties");
  if (isCount(min))
    out.push((v) =>
      !isObject(v) || Object.keys(v).length >= min ? null : fail(`must not have fewer than ${min} properties`),
    );
  if (isCount(max))
    out.push((v) =>
      !isObject(v) || Object.keys(v).length <= max ? null : fail(`must not have more than ${max} properties`),
    );
  const properties = own(schema, "properties");
  const props = new Map<string, Node>();
  if (isObject(properties))
    for (const key of Object.keys(properties)) props.set(key, compileNode(properties[key], counter));
  const additional = own(schema, "additionalProperties");
  // patternProperties is outside the enforced subset (TDEF-07): with it, a name the patterns
  // would admit cannot be told from an extra one, so additionalProperties: false is not enforced.
  const patterned = own(schema, "patternProperties") !== undefined;
  const rest: Node | null =
    additional === false ? (patterned ? pass : null) : isObject(additional) ? compileNode(additional, counter) : pass;
  if (props.size === 0 && rest === pass) return out;
  out.push((v, steps) => {
    if (!isObject(v)) return null;
    for (const key of Object.keys(v)) {
      const node = props.get(key) ?? rest;
      if (node === null) return fail(`must not have property ${show(key)}`);
      const f = node(v[key], steps);
      if (f) {
        f.path.push(key);
        return f;
      }
    }
    return null;
  });
  return out;
}

/** Canonical JSON (object keys sorted): equal JSON values, and only those, get equal keys. */
export function canonical(v: unknown): string {
  if (typeof v !== "object" || v === null) return typeof v === "string" ? JSON.stringify(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(",")}}`;
}

/** A value for a message: JSON, cut to 64 characters (a name or constant can be long). */
function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

/** `arguments.name`, `arguments.items[0]`, `arguments["a b"]`: the failure's path under `root`. */
export function failurePath(root: string, failure: Failure): string {
  let path = root;
  for (const seg of failure.path) {
    if (typeof seg === "number") path += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg) && seg.length <= 64) path += `.${seg}`;
    else path += `[${show(seg)}]`;
  }
  return path;
}

/** `arguments.name: must be string`: the failure's path under `root`, and its rule. */
export function describeFailure(root: string, failure: Failure): string {
  return `${failurePath(root, failure)}: ${failure.rule}`;
}

/** The value a failure is about: `value` followed along the failure's path (root first). */
export function failedValue(value: unknown, failure: Failure): unknown {
  let v = value;
  for (const seg of failure.path) v = (v as Record<string | number, unknown>)[seg];
  return v;
}
