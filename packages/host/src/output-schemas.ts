/**
 * output_schema validation of structured_content (CALL-20) with a real JSON Schema validator,
 * compiled once per tool definition when a generation's catalog is accepted. The schemas were
 * already limited to the bounded keyword subset by the protocol validator (TDEF-04..06), so
 * nothing here can reach the network or the filesystem ($ref to external documents is outside
 * the subset).
 */
import { createRequire } from "node:module";
import type { Ajv as AjvClass, ValidateFunction } from "ajv";
import type { ToolDefinition } from "@octet/protocol";

/**
 * Ajv is loaded on first use, not at import: it is a third of the host library's import time,
 * and a catalog without output schemas never needs it.
 */
let AjvCtor: typeof AjvClass | null = null;
function newAjv(): AjvClass {
  AjvCtor ??= (createRequire(import.meta.url)("ajv") as { Ajv: typeof AjvClass }).Ajv;
  return new AjvCtor({ allErrors: false, strict: false, validateSchema: true });
}

export type OutputCheck = (structured: unknown) => string | null;

/** Compiles the output schema of every tool that declares one. Throws with the tool's name if a schema does not compile. */
export function compileOutputSchemas(tools: readonly ToolDefinition[]): Map<string, OutputCheck> {
  // One Ajv per catalog: schemas of different generations never share state.
  let ajv: AjvClass | null = null;
  const out = new Map<string, OutputCheck>();
  for (const tool of tools) {
    const schema = tool.output_schema;
    if (schema === undefined || schema === null) continue;
    let validate: ValidateFunction;
    try {
      ajv ??= newAjv();
      validate = ajv.compile(schema);
    } catch (err) {
      throw new Error(`tool "${tool.name}": output_schema does not compile: ${err instanceof Error ? err.message : String(err)}`);
    }
    out.set(tool.name, (value) => {
      if (validate(value)) return null;
      const first = validate.errors?.[0];
      return first ? `structured_content${first.instancePath} ${first.message ?? "is invalid"}` : "structured_content does not match output_schema";
    });
  }
  return out;
}
