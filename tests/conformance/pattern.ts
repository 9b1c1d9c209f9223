/**
 * The pattern language of the conformance transcripts (README.md, "Patterns"): a JSON value that
 * matches frames partially, with "$" placeholders and single-key "$" operators. This file owns
 * matching, template expansion (what a "send" step writes) and the static check of both, so a
 * typo in a transcript fails when it is loaded, not as a puzzling mismatch later.
 *
 * Matching is pure: it reads bindings (request ids, captured values, the API version) from a
 * Scope and returns the captures a successful match made, which the runner commits only once the
 * whole frame matched. It knows nothing about processes or steps.
 */
import { MAX_FRAME_BYTES } from "@octet/protocol";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a pattern or template may refer to. */
export interface Scope {
  /** The API version under test ("$api"). */
  readonly api: string;
  /** Ids of requests this transcript sent, by label; "" is the most recent request ("$id"). */
  readonly ids: ReadonlyMap<string, number>;
  /** Values bound by {"$capture": [name, P]} in earlier steps ("$var:name"). */
  readonly vars: ReadonlyMap<string, unknown>;
  /** Named template values such as "$context" (templates only). */
  readonly values?: ReadonlyMap<string, Json>;
}

export interface Mismatch {
  /** Where in the actual value, as $.a.b[0]. */
  path: string;
  reason: string;
}

export type MatchResult = { ok: true; captures: Map<string, unknown> } | { ok: false; mismatch: Mismatch };

const TYPE_PLACEHOLDERS: Record<string, (v: unknown) => boolean> = {
  $any: (v) => v !== undefined,
  $string: (v) => typeof v === "string",
  $number: (v) => typeof v === "number" && Number.isFinite(v),
  $integer: (v) => typeof v === "number" && Number.isInteger(v),
  $boolean: (v) => typeof v === "boolean",
  $null: (v) => v === null,
  $object: (v) => isObject(v),
  $array: (v) => Array.isArray(v),
};

const OPERATORS = [
  "$closed",
  "$optional",
  "$unordered",
  "$includes",
  "$excludes",
  "$each",
  "$length",
  "$bytes",
  "$unique",
  "$json",
  "$regex",
  "$range",
  "$gt",
  "$capture",
  "$not",
  "$all",
  "$anyOf",
] as const;
type Operator = (typeof OPERATORS)[number];

/** Matches `actual` against `pattern`; on success, the values its $capture operators bound. */
export function match(pattern: unknown, actual: unknown, scope: Scope): MatchResult {
  const captures = new Map<string, unknown>();
  const mismatch = matchAt(pattern, actual, scope, "$", captures);
  return mismatch ? { ok: false, mismatch } : { ok: true, captures };
}

function matchAt(
  pattern: unknown,
  actual: unknown,
  scope: Scope,
  path: string,
  captures: Map<string, unknown>,
): Mismatch | null {
  const fail = (reason: string): Mismatch => ({ path, reason: `${reason}, got ${show(actual)}` });
  if (typeof pattern === "string" && pattern.startsWith("$$"))
    return actual === pattern.slice(1) ? null : fail(`expected ${show(pattern.slice(1))}`);
  if (typeof pattern === "string" && isPlaceholder(pattern)) {
    if (pattern === "$absent") return actual === undefined ? null : fail("expected no value");
    const test = TYPE_PLACEHOLDERS[pattern];
    if (test) return test(actual) ? null : fail(`expected ${pattern.slice(1)}`);
    const bound = lookup(pattern, scope, captures);
    return deepEqual(bound, actual) ? null : fail(`expected ${pattern} = ${show(bound)}`);
  }
  // Operators decide about an absent value themselves ($optional, $anyOf with "$absent", $not).
  const op = isObject(pattern) ? operatorOf(pattern) : null;
  if (op) return matchOperator(op, (pattern as Record<string, unknown>)[op], actual, scope, path, captures);
  if (actual === undefined) return { path, reason: `expected ${show(pattern)}, got nothing (member absent)` };
  if (pattern === null || typeof pattern !== "object")
    return pattern === actual ? null : fail(`expected ${show(pattern)}`);
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return fail("expected an array");
    if (actual.length !== pattern.length) return fail(`expected an array of ${pattern.length} elements`);
    for (let i = 0; i < pattern.length; i++) {
      const m = matchAt(pattern[i], actual[i], scope, `${path}[${i}]`, captures);
      if (m) return m;
    }
    return null;
  }
  return matchObject(pattern as Record<string, unknown>, actual, scope, path, captures, false);
}

function matchObject(
  pattern: Record<string, unknown>,
  actual: unknown,
  scope: Scope,
  path: string,
  captures: Map<string, unknown>,
  closed: boolean,
): Mismatch | null {
  if (!isObject(actual)) return { path, reason: `expected an object, got ${show(actual)}` };
  for (const [key, sub] of Object.entries(pattern)) {
    const value = Object.hasOwn(actual, key) ? actual[key] : undefined;
    const optional = isObject(sub) && operatorOf(sub) === "$optional";
    if (optional && value === undefined) continue;
    const m = matchAt(
      optional ? (sub as Record<string, unknown>)["$optional"] : sub,
      value,
      scope,
      `${path}.${key}`,
      captures,
    );
    if (m) return m;
  }
  if (closed) {
    const extra = Object.keys(actual).filter((k) => !Object.hasOwn(pattern, k));
    if (extra.length > 0)
      return { path, reason: `unexpected member(s) ${extra.join(", ")} in a closed object ${show(actual)}` };
  }
  return null;
}

function matchOperator(
  op: Operator,
  arg: unknown,
  actual: unknown,
  scope: Scope,
  path: string,
  captures: Map<string, unknown>,
): Mismatch | null {
  const fail = (reason: string): Mismatch => ({ path, reason: `${reason}, got ${show(actual)}` });
  switch (op) {
    case "$closed":
      return matchObject(arg as Record<string, unknown>, actual, scope, path, captures, true);
    case "$optional":
      return actual === undefined ? null : matchAt(arg, actual, scope, path, captures);
    case "$unordered":
    case "$includes": {
      const patterns = arg as unknown[];
      if (!Array.isArray(actual)) return fail("expected an array");
      if (op === "$unordered" && actual.length !== patterns.length)
        return fail(`expected an array of ${patterns.length} elements in any order`);
      const assignment = assign(patterns, actual, scope, captures);
      if (assignment) return null;
      return fail(
        op === "$unordered"
          ? `expected a permutation of ${show(patterns)}`
          : `expected an array including ${show(patterns)}`,
      );
    }
    case "$excludes": {
      if (!Array.isArray(actual)) return fail("expected an array");
      for (const p of arg as unknown[]) {
        const i = actual.findIndex((a) => matchAt(p, a, scope, path, new Map(captures)) === null);
        if (i !== -1)
          return { path: `${path}[${i}]`, reason: `expected no element matching ${show(p)}, got ${show(actual[i])}` };
      }
      return null;
    }
    case "$each": {
      if (!Array.isArray(actual)) return fail("expected an array");
      for (let i = 0; i < actual.length; i++) {
        const m = matchAt(arg, actual[i], scope, `${path}[${i}]`, captures);
        if (m) return m;
      }
      return null;
    }
    case "$length": {
      if (typeof actual === "string") return matchAt(arg, [...actual].length, scope, `${path}.<length>`, captures);
      if (Array.isArray(actual)) return matchAt(arg, actual.length, scope, `${path}.<length>`, captures);
      return fail("expected a string or an array");
    }
    case "$bytes":
      if (typeof actual !== "string") return fail("expected a string");
      return matchAt(arg, new TextEncoder().encode(actual).length, scope, `${path}.<utf-8 bytes>`, captures);
    case "$unique": {
      if (!Array.isArray(actual)) return fail("expected an array");
      const seen = new Set<string>();
      for (const a of actual) {
        const key = canonical(a);
        if (seen.has(key)) return fail(`expected distinct elements, ${key} repeats`);
        seen.add(key);
      }
      return null;
    }
    case "$json": {
      if (typeof actual !== "string") return fail("expected a string of JSON text");
      let parsed: unknown;
      try {
        parsed = JSON.parse(actual);
      } catch {
        return fail("expected JSON text");
      }
      return matchAt(arg, parsed, scope, `${path}.<json>`, captures);
    }
    case "$regex":
      if (typeof actual !== "string") return fail("expected a string");
      return new RegExp(arg as string, "u").test(actual) ? null : fail(`expected a string matching /${String(arg)}/`);
    case "$range": {
      const [min, max] = arg as [number | null, number | null];
      if (typeof actual !== "number") return fail("expected a number");
      if ((min !== null && actual < min) || (max !== null && actual > max))
        return fail(`expected a number in [${String(min)}, ${String(max)}]`);
      return null;
    }
    case "$gt": {
      const bound = typeof arg === "string" ? lookup(arg, scope, captures) : arg;
      if (typeof actual !== "number" || typeof bound !== "number")
        return fail(`expected a number greater than ${show(bound)}`);
      return actual > bound ? null : fail(`expected a number greater than ${bound}`);
    }
    case "$capture": {
      const [name, sub] = arg as [string, unknown];
      const m = matchAt(sub, actual, scope, path, captures);
      if (!m) captures.set(name, actual);
      return m;
    }
    case "$not":
      return matchAt(arg, actual, scope, path, new Map(captures)) === null
        ? fail(`expected no match for ${show(arg)}`)
        : null;
    case "$all": {
      for (const p of arg as unknown[]) {
        const m = matchAt(p, actual, scope, path, captures);
        if (m) return m;
      }
      return null;
    }
    case "$anyOf": {
      const reasons: string[] = [];
      for (const p of arg as unknown[]) {
        const attempt = new Map(captures);
        const m = matchAt(p, actual, scope, path, attempt);
        if (!m) {
          for (const [k, v] of attempt) captures.set(k, v);
          return null;
        }
        reasons.push(`${m.path}: ${m.reason}`);
      }
      return { path, reason: `no alternative matched (${reasons.join(" | ")})` };
    }
  }
}

/** Each pattern to a distinct element (backtracking; the arrays here are short). */
function assign(patterns: unknown[], actual: unknown[], scope: Scope, captures: Map<string, unknown>): boolean {
  const used = new Array<boolean>(actual.length).fill(false);
  const step = (i: number, bound: Map<string, unknown>): Map<string, unknown> | null => {
    if (i === patterns.length) return bound;
    for (let j = 0; j < actual.length; j++) {
      if (used[j]) continue;
      const attempt = new Map(bound);
      if (matchAt(patterns[i], actual[j], scope, "$", attempt)) continue;
      used[j] = true;
      const done = step(i + 1, attempt);
      if (done) return done;
      used[j] = false;
    }
    return null;
  };
  const result = step(0, captures);
  if (!result) return false;
  for (const [k, v] of result) captures.set(k, v);
  return true;
}

function lookup(ref: string, scope: Scope, captures: ReadonlyMap<string, unknown>): unknown {
  if (ref === "$api") return scope.api;
  if (ref === "$id" || ref.startsWith("$id:")) {
    const label = ref === "$id" ? "" : ref.slice(4);
    const id = scope.ids.get(label);
    if (id === undefined)
      throw new Error(`${ref}: no request ${label === "" ? "was sent yet" : `labelled "${label}" was sent`}`);
    return id;
  }
  if (ref.startsWith("$var:")) {
    const name = ref.slice(5);
    if (captures.has(name)) return captures.get(name);
    if (!scope.vars.has(name)) throw new Error(`${ref}: nothing was captured as "${name}"`);
    return scope.vars.get(name);
  }
  const value = scope.values?.get(ref.slice(1));
  if (value !== undefined) return value;
  throw new Error(`unknown placeholder ${ref}`);
}

/**
 * Expands a template (what a send, request or notify step writes): "$api", "$id[:label]",
 * "$var:name" and the named values ("$context", ...) are replaced, {"$repeat": [text, n]} makes a
 * long string, and a member whose value is "$absent" is left out.
 */
export function expand(template: unknown, scope: Scope): Json | undefined {
  if (typeof template === "string" && template.startsWith("$$")) return template.slice(1);
  if (typeof template === "string" && isPlaceholder(template)) {
    if (template === "$absent") return undefined;
    return lookup(template, scope, new Map()) as Json;
  }
  if (template === null || typeof template !== "object") return template as Json;
  if (Array.isArray(template)) return template.map((t) => expand(t, scope) ?? null);
  const obj = template as Record<string, unknown>;
  if (Object.keys(obj).length === 1 && "$repeat" in obj) {
    const [text, count] = obj["$repeat"] as [string, number];
    return text.repeat(count);
  }
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(obj)) {
    const e = expand(v, scope);
    if (e !== undefined) out[k] = e;
  }
  return out;
}

/** Static check of a pattern: every placeholder and operator is known and well-formed. */
export function checkPattern(pattern: unknown, where: string, problems: string[]): void {
  if (typeof pattern === "string") {
    if (isPlaceholder(pattern) && !isReference(pattern) && pattern !== "$absent" && !(pattern in TYPE_PLACEHOLDERS)) {
      problems.push(`${where}: unknown placeholder ${pattern}`);
    }
    return;
  }
  if (pattern === null || typeof pattern !== "object") return;
  if (Array.isArray(pattern)) return pattern.forEach((p, i) => checkPattern(p, `${where}[${i}]`, problems));
  const obj = pattern as Record<string, unknown>;
  const dollar = Object.keys(obj).filter(isPlaceholder);
  if (dollar.length === 0) {
    for (const [k, v] of Object.entries(obj)) checkPattern(v, `${where}.${k}`, problems);
    return;
  }
  const op = operatorOf(obj);
  if (!op)
    return void problems.push(
      `${where}: ${dollar.join(", ")} is not an operator (operators are single-key objects: ${OPERATORS.join(" ")})`,
    );
  const arg = obj[op];
  const bad = (what: string): void => void problems.push(`${where}: ${op} takes ${what}`);
  switch (op) {
    case "$closed":
      if (!isObject(arg)) return bad("an object pattern");
      for (const [k, v] of Object.entries(arg)) checkPattern(v, `${where}.${k}`, problems);
      return;
    case "$unordered":
    case "$includes":
    case "$excludes":
    case "$all":
    case "$anyOf":
      if (!Array.isArray(arg)) return bad("an array of patterns");
      return arg.forEach((p, i) => checkPattern(p, `${where}.${op}[${i}]`, problems));
    case "$regex":
      if (typeof arg !== "string") return bad("a regular expression string");
      try {
        new RegExp(arg, "u");
      } catch (err) {
        problems.push(`${where}: ${(err as Error).message}`);
      }
      return;
    case "$range":
      if (!Array.isArray(arg) || arg.length !== 2 || !arg.every((b) => b === null || typeof b === "number"))
        return bad("[min, max] (numbers or null)");
      return;
    case "$gt":
      if (typeof arg !== "number" && !(typeof arg === "string" && isReference(arg)))
        return bad("a number or a $var reference");
      return;
    case "$unique":
      if (arg !== true) return bad("true");
      return;
    case "$capture":
      if (!Array.isArray(arg) || arg.length !== 2 || typeof arg[0] !== "string") return bad("[name, pattern]");
      return checkPattern(arg[1], `${where}.$capture`, problems);
    default:
      return checkPattern(arg, `${where}.${op}`, problems);
  }
}

/** Static check of a template: references known, $repeat well-formed and within one frame. */
export function checkTemplate(template: unknown, where: string, problems: string[], values: ReadonlySet<string>): void {
  if (typeof template === "string") {
    if (isPlaceholder(template) && template !== "$absent" && !isReference(template) && !values.has(template.slice(1))) {
      problems.push(`${where}: unknown template value ${template}`);
    }
    return;
  }
  if (template === null || typeof template !== "object") return;
  if (Array.isArray(template)) return template.forEach((t, i) => checkTemplate(t, `${where}[${i}]`, problems, values));
  const obj = template as Record<string, unknown>;
  if ("$repeat" in obj) {
    const arg = obj["$repeat"];
    const ok =
      Object.keys(obj).length === 1 &&
      Array.isArray(arg) &&
      typeof arg[0] === "string" &&
      Number.isInteger(arg[1]) &&
      (arg[1] as number) >= 0;
    if (!ok) problems.push(`${where}: $repeat takes [text, count]`);
    else if ((arg as [string, number])[0].length * (arg as [string, number])[1] > MAX_FRAME_BYTES)
      problems.push(`${where}: $repeat makes more than one frame can carry`);
    return;
  }
  for (const [k, v] of Object.entries(obj)) checkTemplate(v, `${where}.${k}`, problems, values);
}

/** "$" and a letter: "$/progress" and "$$x" (the literal "$x") are plain strings. */
function isPlaceholder(s: string): boolean {
  return /^\$[A-Za-z]/.test(s);
}

function isReference(s: string): boolean {
  return s === "$api" || s === "$id" || /^\$id:[\w.-]+$/.test(s) || /^\$var:[\w.-]+$/.test(s);
}

function operatorOf(obj: Record<string, unknown>): Operator | null {
  const keys = Object.keys(obj);
  if (keys.length !== 1) return null;
  return (OPERATORS as readonly string[]).includes(keys[0] as string) ? (keys[0] as Operator) : null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** JSON with sorted keys: equal values give equal text. */
export function canonical(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const obj = v as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(",")}}`;
}

/** A short rendering of a value for messages. */
export function show(v: unknown, max = 200): string {
  const text = v === undefined ? "nothing" : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text;
}
