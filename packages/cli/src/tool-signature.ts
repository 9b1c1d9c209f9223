/**
 * A tool's JSON Schemas as text a person reads (issue 13.6): each parameter as "name: type",
 * required or optional, enum values, default, range and description, and the output schema as one
 * type. Only the common JSON Schema shapes are spelled out; anything else reads "any" or "object"
 * and `octet tools --json` has the exact definition.
 */
import type { HostTool } from "@octet/host";

type Schema = Record<string, unknown>;

/** Nesting shown inline before an object reads "{...}". */
const MAX_DEPTH = 3;
/** Schema nodes one rendered type may visit, and how deep arrays and unions may nest in it. */
const MAX_RENDERED_NODES = 200;
const MAX_NESTING = 12;

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One schema as a type: string, integer, "a" | "b", string[], { a: string, b?: number }, string | null. */
export function typeText(schema: unknown, depth = 0, budget: { left: number } = { left: MAX_RENDERED_NODES }): string {
  // A schema is the extension's to shape: bound the nodes rendered, whatever its nesting and
  // unions (nested anyOf of two would otherwise double the work per level).
  if (--budget.left < 0 || depth > MAX_NESTING) return "...";
  if (schema === true || (isSchema(schema) && Object.keys(schema).length === 0)) return "any";
  if (!isSchema(schema)) return "any";
  if ("const" in schema) return JSON.stringify(schema["const"]);
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v) => JSON.stringify(v)).join(" | ");
  const union = (
    Array.isArray(schema["anyOf"]) ? schema["anyOf"] : Array.isArray(schema["oneOf"]) ? schema["oneOf"] : null
  ) as unknown[] | null;
  if (union) return [...new Set(union.map((s) => typeText(s, depth + 1, budget)))].join(" | ");
  const type = schema["type"];
  // Each distinct type once: a repeated one (["array","array"]) would double the work per level.
  if (Array.isArray(type))
    return [...new Set(type)].map((t) => typeText({ ...schema, type: t }, depth + 1, budget)).join(" | ");
  switch (type) {
    case "array": {
      const item = typeText(schema["items"], depth + 1, budget);
      return item.includes(" | ") ? `(${item})[]` : `${item}[]`;
    }
    case "object": {
      const props = schema["properties"];
      if (!isSchema(props) || Object.keys(props).length === 0) return "object";
      if (depth >= MAX_DEPTH) return "{...}";
      const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as unknown[]).map(String) : []);
      return `{ ${Object.entries(props)
        .map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeText(v, depth + 1, budget)}`)
        .join(", ")} }`;
    }
    case "string":
    case "integer":
    case "number":
    case "boolean":
    case "null":
      return type;
    default:
      return isSchema(schema["properties"]) ? typeText({ ...schema, type: "object" }, depth, budget) : "any";
  }
}

/** "1..1000", ">= 0", "at most 64 chars", or "" for a schema without bounds. */
function rangeText(s: Schema): string {
  const min = s["minimum"] ?? s["exclusiveMinimum"];
  const max = s["maximum"] ?? s["exclusiveMaximum"];
  if (typeof min === "number" && typeof max === "number") return `${min}..${max}`;
  if (typeof min === "number") return `>= ${min}`;
  if (typeof max === "number") return `<= ${max}`;
  const minLen = s["minLength"];
  const maxLen = s["maxLength"];
  if (typeof minLen === "number" || typeof maxLen === "number") return `${minLen ?? 0}..${maxLen ?? "∞"} chars`;
  return "";
}

/** One line per parameter: "  steps: integer (1..1000), optional, default 100 — How many steps". */
export function parameterLines(parameters: unknown): string[] {
  if (
    !isSchema(parameters) ||
    !isSchema(parameters["properties"]) ||
    Object.keys(parameters["properties"]).length === 0
  )
    return ["(no parameters)"];
  const required = new Set(
    Array.isArray(parameters["required"]) ? (parameters["required"] as unknown[]).map(String) : [],
  );
  return Object.entries(parameters["properties"]).map(([name, raw]) => {
    const s = isSchema(raw) ? raw : {};
    const range = rangeText(s);
    const parts = [
      `${name}: ${typeText(s)}${range ? ` (${range})` : ""}`,
      required.has(name) ? "required" : "optional",
    ];
    if ("default" in s) parts.push(`default ${JSON.stringify(s["default"])}`);
    const description = typeof s["description"] === "string" ? ` — ${s["description"]}` : "";
    return `${parts.join(", ")}${description}`;
  });
}

/** The compact signature: simulate(circuit: string, steps?: integer) -> { volts: number[] }. */
export function signature(tool: HostTool): string {
  const p = tool.parameters;
  const props = isSchema(p) && isSchema(p["properties"]) ? p["properties"] : {};
  const required = new Set(isSchema(p) && Array.isArray(p["required"]) ? (p["required"] as unknown[]).map(String) : []);
  const params = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeText(v, 1)}`);
  return `${tool.name}(${params.join(", ")}) -> ${tool.output_schema ? typeText(tool.output_schema) : "text"}`;
}

/** The readable block of one tool for `octet tools` and `/tools NAME`. */
export function toolBlock(tool: HostTool): string {
  const lines = [
    `${signature(tool)}    [${tool.extension}]`,
    `  ${tool.description}`,
    "  parameters:",
    ...parameterLines(tool.parameters).map((l) => `    ${l}`),
    `  returns: ${tool.output_schema ? `structured ${typeText(tool.output_schema)}` : "text (no output schema)"}`,
  ];
  return lines.join("\n") + "\n";
}

/** The definition as `octet tools --json` prints it. */
export function toolJson(tool: HostTool): Record<string, unknown> {
  return {
    extension: tool.extension,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    output_schema: tool.output_schema ?? null,
  };
}
