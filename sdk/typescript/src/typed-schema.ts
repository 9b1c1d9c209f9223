/**
 * The codec of a typed tool: reads an author's schema (a TypeBox schema, which is plain JSON
 * Schema, or the same JSON Schema written by hand) once at registration, refuses what typed tools
 * do not support, and yields the normalized JSON Schema sent to the host plus a decoder that
 * checks a value against the same rules (PY-13..PY-18). The schema library is never loaded here:
 * TypeBox builds the schema in the author's code, and its types are used for Static<> only.
 *
 * Supported: strings, booleans, integers (|n| <= 2^53-1), finite numbers, arrays of one item
 * type, closed records, nullable T (anyOf [T, {type:"null"}]) and string enums/literals, with the
 * bound keywords of the output_schema subset. Everything else (maps, tuples, $ref/recursion,
 * general unions, untyped {}) is refused at registration, never degraded to an unchecked value.
 */
import { bounds, isPlainObject, utf8ByteLength } from "@octet/protocol";

type Annotations = { title?: string; description?: string; examples?: unknown[] };
type Bounds = { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number };
interface Field {
  codec: Codec;
  /** The default, already decoded at registration; copied afresh for each omission (PY-16). */
  default?: unknown;
  hasDefault: boolean;
}
export type Codec =
  | { kind: "string"; minLength?: number; maxLength?: number; enum?: string[] }
  | { kind: "boolean" }
  | ({ kind: "integer" | "number" } & Bounds)
  | { kind: "array"; items: Codec; minItems?: number; maxItems?: number }
  | { kind: "record"; fields: Map<string, Field> }
  | { kind: "nullable"; inner: Codec };

export interface CompiledSchema {
  codec: Codec;
  /** The JSON Schema sent to the host: only output_schema subset keywords, records closed. */
  json: Record<string, unknown>;
}

/** A registration refusal: names the schema path, what was found and what is supported. */
export class TypedSchemaError extends TypeError {}

const ANNOTATIONS = ["title", "description", "examples"];
const KEYWORDS: Record<string, readonly string[]> = {
  string: ["type", "minLength", "maxLength", "enum", "const"],
  boolean: ["type"],
  integer: ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  number: ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  array: ["type", "items", "minItems", "maxItems"],
  object: ["type", "properties", "required", "additionalProperties"],
  anyOf: ["anyOf"],
};
const WHY: Record<string, string> = {
  $ref: "references and recursive types are not supported",
  $id: "references and recursive types are not supported",
  patternProperties: "maps are not supported; use a record with named fields",
  additionalItems: "tuples are not supported; use an array of one item type",
  prefixItems: "tuples are not supported; use an array of one item type",
  oneOf: "general unions are not supported; use a nullable type or a string enum",
  allOf: "intersections are not supported; write the record out",
};

/**
 * Compiles `schema` at `path` ("input" or "output"). `root` is "record" for the input, which must
 * be a record (tool arguments are an object), and "any" for the output.
 */
export function compileSchema(schema: unknown, path: string, root: "record" | "any"): CompiledSchema {
  const compiled = compile(schema, path, 1, new Set(), false);
  if (root === "record" && compiled.codec.kind !== "record")
    throw new TypedSchemaError(`${path}: the input must be a record (Type.Object), got ${compiled.codec.kind}`);
  // structured_content null reads as absent on the wire, so a null result could not be sent.
  if (compiled.codec.kind === "nullable")
    throw new TypedSchemaError(
      `${path}: the root cannot be nullable; return an error TypedResult with a null value instead`,
    );
  const size = utf8ByteLength(JSON.stringify(compiled.json));
  if (size > bounds.MAX_TYPED_SCHEMA_BYTES)
    throw new TypedSchemaError(
      `${path}: the generated schema is ${size} bytes, over the ${bounds.MAX_TYPED_SCHEMA_BYTES}-byte limit`,
    );
  return compiled;
}

function compile(node: unknown, path: string, depth: number, ancestors: Set<object>, isField: boolean): CompiledSchema {
  if (!isPlainObject(node))
    throw new TypedSchemaError(
      `${path}: expected a schema object, got ${node === null ? "null" : Array.isArray(node) ? "array" : typeof node}`,
    );
  if (ancestors.has(node))
    throw new TypedSchemaError(`${path}: the schema refers to itself; recursive types are not supported`);
  if (depth > bounds.MAX_SCHEMA_DEPTH)
    throw new TypedSchemaError(
      `${path}: schema nesting of ${depth} levels, over the ${bounds.MAX_SCHEMA_DEPTH}-level limit`,
    );
  const kind = kindOf(node, path);
  const allowed = new Set([...KEYWORDS[kind]!, ...ANNOTATIONS, ...(isField ? ["default"] : [])]);
  for (const key of Object.keys(node)) {
    if (allowed.has(key)) continue;
    if (key === "default") throw new TypedSchemaError(`${path}.default: a default belongs on a record field, not here`);
    const why =
      WHY[key] ??
      `not supported by typed tools for a ${kind} (supported: ${[...KEYWORDS[kind]!, ...ANNOTATIONS].join(", ")})`;
    throw new TypedSchemaError(`${path}: keyword "${key}": ${why}`);
  }
  const json: Record<string, unknown> = {};
  for (const a of ANNOTATIONS) {
    const v = node[a];
    if (v === undefined) continue;
    if (a === "examples" ? !Array.isArray(v) : typeof v !== "string")
      throw new TypedSchemaError(`${path}.${a}: expected ${a === "examples" ? "an array" : "a string"}`);
    json[a] = a === "examples" ? structuredClone(v) : v;
  }
  ancestors.add(node);
  try {
    const codec = build(kind, node, path, depth, ancestors, json);
    return { codec, json };
  } finally {
    ancestors.delete(node);
  }
}

type Kind = keyof typeof KEYWORDS;

function kindOf(node: Record<string, unknown>, path: string): Kind {
  const type = node["type"];
  if (type === undefined) {
    if (node["anyOf"] !== undefined) return "anyOf";
    // A bare enum/const of strings (Type.Unsafe, hand-written) is a string enum.
    if (node["enum"] !== undefined || node["const"] !== undefined) return "string";
    if (node["$ref"] !== undefined) throw new TypedSchemaError(`${path}: keyword "$ref": ${WHY["$ref"]}`);
    throw new TypedSchemaError(`${path}: no "type"; untyped values (Type.Any, Type.Unknown, {}) are not supported`);
  }
  if (typeof type !== "string")
    throw new TypedSchemaError(
      `${path}.type: ${JSON.stringify(type)} is not one type name; use anyOf [T, {type:"null"}] ` +
        `(Type.Union([T, Type.Null()])) for a nullable value`,
    );
  if (type === "null")
    throw new TypedSchemaError(
      `${path}: a null type stands only beside another type in a nullable (Type.Union([T, Type.Null()]))`,
    );
  if (!(type in KEYWORDS) || type === "anyOf")
    throw new TypedSchemaError(`${path}.type: "${type}" is not a JSON Schema type`);
  return type as Kind;
}

function build(
  kind: Kind,
  node: Record<string, unknown>,
  path: string,
  depth: number,
  ancestors: Set<object>,
  json: Record<string, unknown>,
): Codec {
  switch (kind) {
    case "boolean":
      json["type"] = "boolean";
      return { kind: "boolean" };
    case "integer":
    case "number": {
      json["type"] = kind;
      const b: Bounds = {};
      for (const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
        const v = node[k];
        if (v === undefined) continue;
        if (typeof v !== "number" || !Number.isFinite(v))
          throw new TypedSchemaError(`${path}.${k}: expected a finite number, got ${JSON.stringify(v)}`);
        b[k] = json[k] = v;
      }
      return { kind, ...b };
    }
    case "string": {
      json["type"] = "string";
      const codec: Codec & { kind: "string" } = { kind: "string" };
      for (const k of ["minLength", "maxLength"] as const) {
        const v = node[k];
        if (v === undefined) continue;
        codec[k] = json[k] = count(v, `${path}.${k}`);
      }
      const values = node["const"] !== undefined ? [node["const"]] : node["enum"];
      if (node["const"] !== undefined && node["enum"] !== undefined)
        throw new TypedSchemaError(`${path}: both "const" and "enum"; use one`);
      if (values !== undefined) codec.enum = json["enum"] = stringEnum(values, path);
      return codec;
    }
    case "array": {
      json["type"] = "array";
      const items = node["items"];
      if (Array.isArray(items)) throw new TypedSchemaError(`${path}.items: ${WHY["prefixItems"]}`);
      if (items === undefined) throw new TypedSchemaError(`${path}: an array needs "items" (one item type)`);
      const inner = compile(items, `${path}.items`, depth + 1, ancestors, false);
      json["items"] = inner.json;
      const codec: Codec & { kind: "array" } = { kind: "array", items: inner.codec };
      for (const k of ["minItems", "maxItems"] as const) {
        const v = node[k];
        if (v === undefined) continue;
        codec[k] = json[k] = count(v, `${path}.${k}`);
      }
      return codec;
    }
    case "object":
      return record(node, path, depth, ancestors, json);
    case "anyOf":
      return union(node, path, depth, ancestors, json);
  }
  throw new TypedSchemaError(`${path}: unsupported schema`);
}

function record(
  node: Record<string, unknown>,
  path: string,
  depth: number,
  ancestors: Set<object>,
  json: Record<string, unknown>,
): Codec {
  const additional = node["additionalProperties"];
  // Records are closed (PY-14): an absent additionalProperties is closed for the author, an open
  // or typed one is a map, which typed tools do not have.
  if (additional !== undefined && additional !== false)
    throw new TypedSchemaError(`${path}.additionalProperties: ${WHY["patternProperties"]} (records are closed)`);
  const properties = node["properties"] ?? {};
  if (!isPlainObject(properties)) throw new TypedSchemaError(`${path}.properties: expected an object of field schemas`);
  const requiredRaw = node["required"] ?? [];
  if (!Array.isArray(requiredRaw) || requiredRaw.some((r) => typeof r !== "string"))
    throw new TypedSchemaError(`${path}.required: expected an array of field names`);
  const required = new Set(requiredRaw as string[]);
  for (const name of required)
    if (!Object.hasOwn(properties, name))
      throw new TypedSchemaError(`${path}.required: "${name}" is not a declared field`);
  const fields = new Map<string, Field>();
  const props: Record<string, unknown> = {};
  const mustSend: string[] = [];
  for (const name of Object.keys(properties)) {
    const where = `${path}.properties.${name}`;
    const inner = compile(properties[name], where, depth + 1, ancestors, true);
    const raw = (properties[name] as Record<string, unknown>)["default"];
    const field: Field = { codec: inner.codec, hasDefault: raw !== undefined };
    if (raw !== undefined) {
      // Evaluated and checked once now (PY-16); a bad default is the author's bug, found at start.
      const decoded = decode(inner.codec, raw, `${where}.default`);
      field.default = decoded;
      inner.json["default"] = structuredClone(decoded);
    } else if (!required.has(name)) {
      // Omission needs an explicit default (PY-15): "optional" never means a silent undefined.
      throw new TypedSchemaError(
        `${where}: the field may be omitted but has no default; give it one (e.g. Type.String({ default: "" ` +
          `}), or default: null for a nullable field) or make it required`,
      );
    } else {
      mustSend.push(name);
    }
    fields.set(name, field);
    props[name] = inner.json;
  }
  json["type"] = "object";
  json["properties"] = props;
  json["required"] = mustSend;
  json["additionalProperties"] = false;
  return { kind: "record", fields };
}

function union(
  node: Record<string, unknown>,
  path: string,
  depth: number,
  ancestors: Set<object>,
  json: Record<string, unknown>,
): Codec {
  const members = node["anyOf"];
  if (!Array.isArray(members) || members.length === 0)
    throw new TypedSchemaError(`${path}.anyOf: expected a non-empty array of schemas`);
  // A union of string literals (Type.Union of Type.Literal, Type.Enum of a string enum) is an enum.
  const literals = members.map((m) =>
    isPlainObject(m) &&
    Object.keys(m).every((k) => k === "const" || k === "type" || ANNOTATIONS.includes(k)) &&
    (m["type"] === undefined || m["type"] === "string")
      ? m["const"]
      : undefined,
  );
  if (literals.every((l) => typeof l === "string")) {
    json["type"] = "string";
    json["enum"] = stringEnum(literals, path);
    return { kind: "string", enum: json["enum"] as string[] };
  }
  const isNull = (m: unknown): boolean =>
    isPlainObject(m) && m["type"] === "null" && Object.keys(m).every((k) => k === "type" || ANNOTATIONS.includes(k));
  const nonNull = members.filter((m) => !isNull(m));
  if (members.length !== 2 || nonNull.length !== 1) {
    throw new TypedSchemaError(`${path}.anyOf: ${WHY["oneOf"]} (a union is either [T, null] or string literals)`);
  }
  const inner = compile(nonNull[0], `${path}.anyOf[${members.indexOf(nonNull[0])}]`, depth + 1, ancestors, false);
  if (inner.codec.kind === "nullable") throw new TypedSchemaError(`${path}: a nullable of a nullable; use one`);
  json["anyOf"] = [inner.json, { type: "null" }];
  return { kind: "nullable", inner: inner.codec };
}

function stringEnum(values: unknown, path: string): string[] {
  if (!Array.isArray(values) || values.length === 0)
    throw new TypedSchemaError(`${path}.enum: expected a non-empty array of strings`);
  const bad = values.find((v) => typeof v !== "string");
  if (bad !== undefined)
    throw new TypedSchemaError(`${path}: enum and literal values must be strings, got ${JSON.stringify(bad)}`);
  if (new Set(values).size !== values.length) throw new TypedSchemaError(`${path}.enum: values repeat`);
  return [...(values as string[])];
}

function count(v: unknown, path: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
    throw new TypedSchemaError(`${path}: expected a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

/** A value refused by decode(): `path` names the member, the message the rule and the value. */
export class TypedValueError extends Error {
  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super(`${path}: ${rule}`);
  }
}

/**
 * Checks `value` against `codec` and returns a fresh copy with defaults filled in. Throws
 * TypedValueError at the first mismatch. Bounds of the whole value (bytes, depth, nodes) are the
 * caller's (measureJson); each string is bounded here (PY-18).
 */
export function decode(codec: Codec, value: unknown, path: string): unknown {
  switch (codec.kind) {
    case "string": {
      if (typeof value !== "string") throw new TypedValueError(path, `expected a string, got ${show(value)}`);
      const n = utf8ByteLength(value);
      if (n > bounds.MAX_TYPED_STRING_BYTES)
        throw new TypedValueError(path, `string of ${n} bytes, over the ${bounds.MAX_TYPED_STRING_BYTES}-byte limit`);
      if (codec.minLength !== undefined || codec.maxLength !== undefined) {
        // JSON Schema counts characters (code points), not UTF-16 units or bytes.
        const chars = [...value].length;
        if (codec.minLength !== undefined && chars < codec.minLength)
          throw new TypedValueError(path, `${chars} characters, under the minLength ${codec.minLength}`);
        if (codec.maxLength !== undefined && chars > codec.maxLength)
          throw new TypedValueError(path, `${chars} characters, over the maxLength ${codec.maxLength}`);
      }
      if (codec.enum && !codec.enum.includes(value))
        throw new TypedValueError(
          path,
          `${show(value)} is not one of ${codec.enum.map((e) => JSON.stringify(e)).join(", ")}`,
        );
      return value;
    }
    case "boolean":
      if (typeof value !== "boolean") throw new TypedValueError(path, `expected a boolean, got ${show(value)}`);
      return value;
    case "integer":
    case "number": {
      // typeof keeps booleans out: true is never 1 (PY-14).
      if (typeof value !== "number" || !Number.isFinite(value))
        throw new TypedValueError(
          path,
          `expected a finite ${codec.kind === "integer" ? "integer" : "number"}, got ${show(value)}`,
        );
      if (codec.kind === "integer") {
        if (!Number.isInteger(value)) throw new TypedValueError(path, `expected an integer, got ${value}`);
        if (Math.abs(value) > Number.MAX_SAFE_INTEGER)
          throw new TypedValueError(path, `${value} is outside ±(2^53-1), which JSON cannot carry exactly`);
      }
      if (codec.minimum !== undefined && value < codec.minimum)
        throw new TypedValueError(path, `${value} is below the minimum ${codec.minimum}`);
      if (codec.maximum !== undefined && value > codec.maximum)
        throw new TypedValueError(path, `${value} is above the maximum ${codec.maximum}`);
      if (codec.exclusiveMinimum !== undefined && value <= codec.exclusiveMinimum)
        throw new TypedValueError(path, `${value} is not above the exclusiveMinimum ${codec.exclusiveMinimum}`);
      if (codec.exclusiveMaximum !== undefined && value >= codec.exclusiveMaximum)
        throw new TypedValueError(path, `${value} is not below the exclusiveMaximum ${codec.exclusiveMaximum}`);
      // -0 becomes 0: JSON has no negative zero.
      return value === 0 ? 0 : value;
    }
    case "array": {
      if (!Array.isArray(value)) throw new TypedValueError(path, `expected an array, got ${show(value)}`);
      if (codec.minItems !== undefined && value.length < codec.minItems)
        throw new TypedValueError(path, `${value.length} items, under the minItems ${codec.minItems}`);
      if (codec.maxItems !== undefined && value.length > codec.maxItems)
        throw new TypedValueError(path, `${value.length} items, over the maxItems ${codec.maxItems}`);
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) out.push(decode(codec.items, value[i], `${path}[${i}]`));
      return out;
    }
    case "nullable":
      return value === null ? null : decode(codec.inner, value, path);
    case "record": {
      if (!isRecordValue(value))
        throw new TypedValueError(path, `expected a record (plain object), got ${show(value)}`);
      for (const key of Object.keys(value)) {
        if (!codec.fields.has(key) && value[key] !== undefined)
          throw new TypedValueError(
            `${path}.${key}`,
            `unknown field; the record is closed (fields: ${[...codec.fields.keys()].join(", ") || "none"})`,
          );
      }
      const out: Record<string, unknown> = {};
      for (const [name, field] of codec.fields) {
        const v = Object.hasOwn(value, name) ? value[name] : undefined;
        if (v !== undefined) out[name] = decode(field.codec, v, `${path}.${name}`);
        else if (field.hasDefault) out[name] = structuredClone(field.default);
        else throw new TypedValueError(`${path}.${name}`, "missing required field");
      }
      return out;
    }
  }
}

/** JSON objects only: class instances (Date, Map...) would pass as records with no fields. */
function isRecordValue(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function show(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}...` : v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return typeof v;
}
