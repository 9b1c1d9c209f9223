/**
 * Structural checks of the two JSON Schemas a tool definition carries: `parameters` (TDEF-01,
 * TDEF-07) and `output_schema` (TDEF-03..06). Owns node shapes, schema nesting, property-name
 * bounds and the output_schema keyword subset. Validating instances against a schema (once per
 * catalog epoch, schema-check/) is the host's; this only makes sure the schema is one it may compile.
 *
 * Schema depth counts schema nodes, not JSON containers: the root schema is level 1 and each
 * subschema (a value of properties, items, allOf...) is one level below its parent.
 */
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_PROPERTY_NAME_BYTES } from "../bounds.js";
import { at, index, member, quote, readObject, show } from "../validate/fields.js";
import { describe, isPlainObject, utf8ByteLength, type Problems } from "../validate/kit.js";

/** The only keywords an output_schema may use (TDEF-06). */
export const OUTPUT_SCHEMA_KEYWORDS = [
  "$schema",
  "title",
  "description",
  "default",
  "examples",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "allOf",
  "anyOf",
  "oneOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
] as const;
const OUTPUT_KEYWORDS = new Set<string>(OUTPUT_SCHEMA_KEYWORDS);

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const STRING_KEYWORDS = ["$schema", "title", "description"];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const COUNT_KEYWORDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"];

/**
 * Where subschemas live. parameters may use the whole vocabulary (it is model-facing, TDEF-07),
 * so every standard applicator is followed there; output_schema has only the subset's four.
 */
const PARAM_SINGLE = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const PARAM_MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const PARAM_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];

type Mode = "parameters" | "output";

/** `parameters`: a schema object whose type is "object", within depth and property-name bounds. */
export function checkParametersSchema(p: Problems, path: string, v: unknown): Record<string, unknown> | undefined {
  const schema = readObject(p, path, v);
  if (schema === undefined) return undefined;
  const type = member(schema, "type");
  if (type !== "object") {
    p.add(at(path, "type"), type === undefined ? 'missing; expected "object"' : `expected "object", got ${show(type)}`);
  }
  const before = p.count;
  walk(p, path, schema, 1, "parameters");
  return p.count === before && type === "object" ? schema : undefined;
}

/** `output_schema` (API 0.2+): every node an object, only the TDEF-06 keywords, bounded. */
export function checkOutputSchema(p: Problems, path: string, v: unknown): Record<string, unknown> | undefined {
  const schema = readObject(p, path, v);
  if (schema === undefined) return undefined;
  const before = p.count;
  walk(p, path, schema, 1, "output");
  return p.count === before ? schema : undefined;
}

function walk(p: Problems, path: string, node: unknown, depth: number, mode: Mode): void {
  if (!isPlainObject(node)) {
    // JSON Schema allows true/false as schemas; the output subset does not (TDEF-04).
    if (mode === "parameters" && typeof node === "boolean") return;
    p.add(path, `expected a schema object, got ${describe(node)}`);
    return;
  }
  if (depth > MAX_SCHEMA_DEPTH) {
    p.add(path, `schema nesting of ${depth} levels, over the ${MAX_SCHEMA_DEPTH}-level limit`);
    return;
  }
  checkPropertyNames(p, path, node);
  if (mode === "output") checkOutputKeywords(p, path, node);

  const properties = member(node, "properties");
  if (properties !== undefined) walkMap(p, at(path, "properties"), properties, depth, mode);
  const items = member(node, "items");
  if (items !== undefined) {
    // Tuple-form items (an array) is draft-07 vocabulary; the output subset has no tuples.
    if (mode === "parameters" && Array.isArray(items)) walkList(p, at(path, "items"), items, depth, mode);
    else walk(p, at(path, "items"), items, depth + 1, mode);
  }
  const additional = member(node, "additionalProperties");
  // additionalProperties: false is the classic closed-object form, not a boolean schema node,
  // so the output subset keeps it; an object value is a subschema like any other.
  if (additional !== undefined && typeof additional !== "boolean") {
    walk(p, at(path, "additionalProperties"), additional, depth + 1, mode);
  }
  for (const kw of ["allOf", "anyOf", "oneOf"]) {
    const list = member(node, kw);
    if (list !== undefined) walkList(p, at(path, kw), list, depth, mode);
  }
  if (mode === "output") return;
  for (const kw of PARAM_SINGLE) {
    const sub = member(node, kw);
    if (kw !== "additionalProperties" && sub !== undefined) walk(p, at(path, kw), sub, depth + 1, mode);
  }
  for (const kw of PARAM_MAP) {
    const map = member(node, kw);
    if (kw !== "properties" && map !== undefined) walkMap(p, at(path, kw), map, depth, mode);
  }
  const prefix = member(node, "prefixItems");
  if (prefix !== undefined) walkList(p, at(path, "prefixItems"), prefix, depth, mode);
}

function walkMap(p: Problems, path: string, map: unknown, depth: number, mode: Mode): void {
  if (!isPlainObject(map)) {
    p.add(path, `expected an object of schemas, got ${describe(map)}`);
    return;
  }
  for (const key of Object.keys(map)) walk(p, at(path, key), map[key], depth + 1, mode);
}

function walkList(p: Problems, path: string, list: unknown, depth: number, mode: Mode): void {
  if (!Array.isArray(list) || list.length === 0) {
    p.add(
      path,
      Array.isArray(list)
        ? "expected a non-empty array of schemas"
        : `expected an array of schemas, got ${describe(list)}`,
    );
    return;
  }
  list.forEach((sub, i) => walk(p, index(path, i), sub, depth + 1, mode));
}

/** Keys of `properties` and the names in `required` are property names (TDEF-05, TDEF-07). */
function checkPropertyNames(p: Problems, path: string, node: Record<string, unknown>): void {
  const properties = member(node, "properties");
  if (isPlainObject(properties)) {
    for (const key of Object.keys(properties)) checkName(p, at(path, "properties"), key);
  }
  const required = member(node, "required");
  if (required === undefined) return;
  if (!Array.isArray(required)) {
    p.add(at(path, "required"), `expected an array of property names, got ${describe(required)}`);
    return;
  }
  required.forEach((name, i) => {
    if (typeof name !== "string") p.add(index(at(path, "required"), i), `expected a string, got ${describe(name)}`);
    else checkName(p, at(path, "required"), name);
  });
}

function checkName(p: Problems, path: string, name: string): void {
  const n = utf8ByteLength(name);
  if (n > MAX_SCHEMA_PROPERTY_NAME_BYTES) {
    p.add(path, `property name ${quote(name)} is ${n} bytes, over the ${MAX_SCHEMA_PROPERTY_NAME_BYTES}-byte limit`);
  }
}

/** The keyword subset and the value shape of each non-applicator keyword (TDEF-06). */
function checkOutputKeywords(p: Problems, path: string, node: Record<string, unknown>): void {
  for (const kw of Object.keys(node)) {
    const v = node[kw];
    const where = at(path, kw);
    if (!OUTPUT_KEYWORDS.has(kw)) p.add(where, "keyword is not in the supported output_schema subset");
    else if (STRING_KEYWORDS.includes(kw) && typeof v !== "string")
      p.add(where, `expected a string, got ${describe(v)}`);
    else if (NUMBER_KEYWORDS.includes(kw) && (typeof v !== "number" || !Number.isFinite(v)))
      p.add(where, `expected a number, got ${describe(v)}`);
    else if (COUNT_KEYWORDS.includes(kw) && (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)) {
      p.add(where, `expected a non-negative integer, got ${show(v)}`);
    } else if (kw === "uniqueItems" && typeof v !== "boolean") p.add(where, `expected a boolean, got ${describe(v)}`);
    else if ((kw === "enum" || kw === "examples") && !Array.isArray(v))
      p.add(where, `expected an array, got ${describe(v)}`);
    else if (kw === "type") checkType(p, where, v);
  }
}

function checkType(p: Problems, path: string, v: unknown): void {
  const names = typeof v === "string" ? [v] : Array.isArray(v) && v.length > 0 ? v : undefined;
  if (names === undefined) {
    p.add(path, `expected a type name or a non-empty array of them, got ${describe(v)}`);
    return;
  }
  for (const name of names) {
    if (typeof name !== "string" || !JSON_TYPES.has(name)) {
      p.add(path, `${show(name)} is not a JSON Schema type`);
    }
  }
}
