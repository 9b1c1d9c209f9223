/**
 * A bounded walk over a JSON value: its encoded size, nesting depth and node count, checked
 * against limits while walking, so an oversized or hostile value costs at most the work up to
 * the first limit it passes. Owns the measuring rules; which limits apply to which member is the
 * api/ validators' business.
 *
 * Definitions (the spec gives the bounds, not how to count them):
 * - bytes: UTF-8 bytes of the compact JSON.stringify encoding, escapes included (a lone surrogate
 *   counts as its 6-byte \uXXXX escape, as JSON.stringify writes it).
 * - depth: containers on the deepest path; a scalar is depth 0, [] and {} are 1, [[1]] is 2.
 * - nodes: every value counts once, containers and scalars alike; object keys are not nodes.
 * - keys (when maxKeyBytes is set): the UTF-8 length of every object key, at any depth.
 * Undefined object members are skipped and undefined array elements count as null, as
 * JSON.stringify does; functions, symbols, bigints and non-finite numbers are not JSON and are
 * refused. Values from JSON.parse measure exactly; in-process values are walked by their own
 * enumerable keys (toJSON is not called).
 */
import { describe, utf8ByteLength } from "./kit.js";
import { at, index, quote } from "./fields.js";

export interface JsonLimits {
  maxBytes: number;
  maxDepth: number;
  maxNodes: number;
  maxKeyBytes?: number;
}

export interface JsonMeasure {
  bytes: number;
  depth: number;
  nodes: number;
}

export type JsonRule = "bytes" | "depth" | "nodes" | "key" | "type";

export type JsonMeasureResult =
  | ({ ok: true } & JsonMeasure)
  | { ok: false; rule: JsonRule /** where the walk stopped, under `root` */; path: string; message: string };

interface Frame {
  value: unknown;
  /** Containers above this value. */
  level: number;
  parent: Frame | undefined;
  key: string | number | undefined;
}

/**
 * Measures `value` against `limits`. `root` prefixes violation paths (e.g. "structured_content").
 * On the first limit passed it stops and reports; sizes in that report are lower bounds ("at
 * least"), because the walk did not go further to find the full size.
 */
export function measureJson(value: unknown, limits: JsonLimits, root = ""): JsonMeasureResult {
  let bytes = 0;
  let depth = 0;
  let nodes = 1;
  const stack: Frame[] = [{ value, level: 0, parent: undefined, key: undefined }];
  const fail = (rule: JsonRule, frame: Frame, message: string): JsonMeasureResult => ({
    ok: false,
    rule,
    path: pathOf(root, frame),
    message,
  });
  // Size belongs to the whole value, so the report names the root, not where counting stopped.
  const tooManyBytes = (): JsonMeasureResult => ({
    ok: false,
    rule: "bytes",
    path: root,
    message: `at least ${bytes} bytes encoded, over the ${limits.maxBytes}-byte limit`,
  });

  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const v = frame.value;
    if (v === null || v === undefined) bytes += 4;
    else if (typeof v === "boolean") bytes += v ? 4 : 5;
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) return fail("type", frame, `${v} is not a JSON number`);
      bytes += JSON.stringify(v).length;
    } else if (typeof v === "string")
      bytes += stringTokenBytes(v, limits.maxBytes - bytes); // stops just past the limit
    else if (typeof v === "object") {
      const level = frame.level + 1;
      if (level > limits.maxDepth) {
        return fail("depth", frame, `${level} levels of nesting, over the ${limits.maxDepth}-level limit`);
      }
      if (level > depth) depth = level;
      if (Array.isArray(v)) {
        nodes += v.length;
        if (nodes > limits.maxNodes)
          return fail("nodes", frame, `at least ${nodes} nodes, over the ${limits.maxNodes}-node limit`);
        bytes += 2 + Math.max(0, v.length - 1);
        if (bytes > limits.maxBytes) return tooManyBytes();
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], level, parent: frame, key: i });
      } else {
        const obj = v as Record<string, unknown>;
        const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
        nodes += keys.length;
        if (nodes > limits.maxNodes)
          return fail("nodes", frame, `at least ${nodes} nodes, over the ${limits.maxNodes}-node limit`);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (const k of keys) {
          if (limits.maxKeyBytes !== undefined) {
            const n = utf8ByteLength(k);
            if (n > limits.maxKeyBytes) {
              return fail("key", frame, `key ${quote(k)} is ${n} bytes, over the ${limits.maxKeyBytes}-byte limit`);
            }
          }
          bytes += stringTokenBytes(k, limits.maxBytes - bytes) + 1; // the key token and its colon
          if (bytes > limits.maxBytes) return tooManyBytes();
        }
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i] as string;
          stack.push({ value: obj[k], level, parent: frame, key: k });
        }
      }
    } else return fail("type", frame, `${describe(v)} is not a JSON value`);
    if (bytes > limits.maxBytes) return tooManyBytes();
  }
  return { ok: true, bytes, depth, nodes };
}

/**
 * Bytes of `s` as a JSON string token, quotes included, counting at most until `budget` is
 * passed (the result is then some number above budget, not the full size).
 */
export function stringTokenBytes(s: string, budget = Infinity): number {
  let n = 2;
  for (let i = 0; i < s.length && n <= budget; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c)
      n += 2; // \" and \\
    else if (c < 0x20) n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6; // lone high surrogate: JSON.stringify escapes it
    } else if (c >= 0xdc00 && c <= 0xdfff)
      n += 6; // lone low surrogate
    else n += 3;
  }
  return n;
}

function pathOf(root: string, frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f !== undefined && f.key !== undefined; f = f.parent) keys.push(f.key);
  let path = root;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i] as string | number;
    path = typeof k === "number" ? index(path, k) : at(path, k);
  }
  return path;
}
