import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  isValidToolName,
  TOOL_NAME_PATTERN,
  validateCommandDefinition,
  validateToolDefinition,
} from "../../src/api/validate-tool.js";
import { OUTPUT_SCHEMA_KEYWORDS } from "../../src/api/validate-schema.js";
import {
  MAX_DESCRIPTION_BYTES,
  MAX_PROMPT_GUIDELINES,
  MAX_PROMPT_METADATA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_PROPERTY_NAME_BYTES,
  MAX_TOOL_NAME_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, clone, refused } from "../helpers/checked.js";
import { INIT_RESULT_V01 } from "../helpers/spec-fixtures.js";

const SPEC_TOOL = INIT_RESULT_V01.tools[0] as Record<string, unknown>;
const SPEC_COMMAND = INIT_RESULT_V01.commands[0] as Record<string, unknown>;
const PARAMS = { type: "object", properties: {} };
/** The negotiated features that admit prompt metadata (TDEF-09). */
const PM = ["tool_prompt_metadata_v1"];

function tool(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "t", description: "A tool", parameters: clone(PARAMS), ...extra };
}

/** A schema whose properties nest `levels` schema nodes deep (the root is level 1). */
function deepSchema(levels: number, leaf: Record<string, unknown> = { type: "string" }): Record<string, unknown> {
  let node: Record<string, unknown> = leaf;
  for (let i = 1; i < levels; i++) node = { type: "object", properties: { p: node } };
  return node;
}

test("TDEF-01: the API 0.1 tool definition of the spec is accepted on every API", () => {
  for (const api of ["0.1", "0.2", "0.4"] as const) {
    assert.deepEqual(accepted(validateToolDefinition(SPEC_TOOL, api)), SPEC_TOOL);
  }
});

test("TDEF-01: a missing, empty or blank description is refused", () => {
  refused(validateToolDefinition(tool({ description: undefined }), "0.1"), "description: missing; expected a string");
  refused(validateToolDefinition(tool({ description: "" }), "0.1"), "description: must not be empty");
  refused(validateToolDefinition(tool({ description: " \n\t" }), "0.1"), "description: must not be empty");
  refused(validateToolDefinition(tool({ description: 3 }), "0.1"), "description: expected a string, got number");
});

test("TDEF-01: parameters must be a JSON Schema object", () => {
  refused(validateToolDefinition(tool({ parameters: undefined }), "0.1"), "parameters: missing; expected an object");
  refused(validateToolDefinition(tool({ parameters: [] }), "0.1"), "parameters: expected an object, got array");
  refused(validateToolDefinition(tool({ parameters: true }), "0.2"), "parameters: expected an object, got boolean");
  refused(validateToolDefinition("hello", "0.1"), "expected an object, got string");
});

test(
  "bound MAX_DESCRIPTION_BYTES: a 16,384-byte description is accepted, 16,385 is refused naming size " + "and limit",
  () => {
    accepted(validateToolDefinition(tool({ description: bytes(MAX_DESCRIPTION_BYTES) }), "0.1"));
    refused(
      validateToolDefinition(tool({ description: bytes(MAX_DESCRIPTION_BYTES + 1) }), "0.1"),
      "description: 16385 bytes, over the 16384-byte limit",
    );
  },
);

test('TDEF-07: parameters must have type "object"', () => {
  refused(
    validateToolDefinition(tool({ parameters: { properties: {} } }), "0.1"),
    'parameters.type: missing; expected "object"',
  );
  refused(
    validateToolDefinition(tool({ parameters: { type: "string" } }), "0.1"),
    'parameters.type: expected "object", got "string"',
  );
  refused(validateToolDefinition(tool({ parameters: { type: ["object", "null"] } }), "0.1"), "parameters.type");
});

test("TDEF-07: parameters accept any keyword, including ones outside the output_schema subset", () => {
  const parameters = {
    type: "object",
    $id: "x",
    "x-custom": { anything: [1, 2] },
    properties: { path: { type: "string", pattern: "^/", format: "uri" }, n: { $ref: "#/$defs/n" } },
    $defs: { n: { type: "integer" } },
    patternProperties: { "^x": true },
    if: { required: ["path"] },
    // biome-ignore lint/suspicious/noThenProperty: "then" is the JSON Schema keyword under test, not a thenable.
    then: false,
  };
  assert.deepEqual(accepted(validateToolDefinition(tool({ parameters }), "0.2")).parameters, parameters);
});

test("TDEF-07: parameters nest 32 schema levels, 33 are refused naming depth and limit", () => {
  accepted(validateToolDefinition(tool({ parameters: deepSchema(MAX_SCHEMA_DEPTH, { type: "object" }) }), "0.1"));
  const problems = refused(
    validateToolDefinition(tool({ parameters: deepSchema(MAX_SCHEMA_DEPTH + 1, { type: "object" }) }), "0.1"),
    "schema nesting of 33 levels, over the 32-level limit",
  );
  assert.ok(
    problems.some((p) => p.startsWith("parameters.properties.p.")),
    problems.join("\n"),
  );
});

test("TDEF-07: parameters depth is counted through every applicator (items, anyOf, $defs, not...)", () => {
  let node: Record<string, unknown> = { type: "string" };
  const wrap = [
    (n: unknown) => ({ items: n }),
    (n: unknown) => ({ anyOf: [n] }),
    (n: unknown) => ({ $defs: { d: n } }),
    (n: unknown) => ({ not: n }),
  ];
  for (let i = 1; i < MAX_SCHEMA_DEPTH + 1; i++) node = wrap[i % wrap.length]!(node) as Record<string, unknown>;
  refused(
    validateToolDefinition(tool({ parameters: { type: "object", properties: { a: node } } }), "0.1"),
    "over the 32-level limit",
  );
});

test("TDEF-07: parameter property names of 256 bytes are accepted, 257 are refused naming size and limit", () => {
  const ok = { type: "object", properties: { [bytes(MAX_SCHEMA_PROPERTY_NAME_BYTES)]: {} } };
  accepted(validateToolDefinition(tool({ parameters: ok }), "0.1"));
  const bad = { type: "object", properties: { [bytes(MAX_SCHEMA_PROPERTY_NAME_BYTES + 1)]: {} } };
  refused(
    validateToolDefinition(tool({ parameters: bad }), "0.1"),
    "parameters.properties: property name",
    "is 257 bytes, over the 256-byte limit",
  );
  const required = { type: "object", required: [bytes(MAX_SCHEMA_PROPERTY_NAME_BYTES + 1)] };
  refused(
    validateToolDefinition(tool({ parameters: required }), "0.1"),
    "parameters.required",
    "257 bytes, over the 256-byte limit",
  );
});

test("TDEF-08: names matching ^[A-Za-z0-9_-]{1,128}$ are valid, up to 128 bytes", () => {
  for (const name of ["a", "hello_world", "A-b_9", "-", bytes(MAX_TOOL_NAME_BYTES, "z")])
    assert.ok(isValidToolName(name), name);
  assert.equal(TOOL_NAME_PATTERN, "^[A-Za-z0-9_-]{1,128}$");
});

test("TDEF-08: empty, 129-byte, spaced, dotted, non-ASCII and non-string names are invalid", () => {
  for (const name of [
    "",
    bytes(MAX_TOOL_NAME_BYTES + 1, "z"),
    "bad name!",
    "a.b",
    "héllo",
    "a\n",
    7,
    null,
    undefined,
  ]) {
    assert.equal(isValidToolName(name), false, String(name));
  }
  refused(
    validateToolDefinition(tool({ name: "bad name!" }), "0.1"),
    'name: "bad name!" does not match ^[A-Za-z0-9_-]{1,128}$',
  );
  refused(
    validateToolDefinition(tool({ name: bytes(129, "z") }), "0.1"),
    "name:",
    "does not match ^[A-Za-z0-9_-]{1,128}$",
  );
});

test("TDEF-02: an API 0.1 tool definition must not declare output_schema, not even null", () => {
  refused(
    validateToolDefinition(tool({ output_schema: { type: "object" } }), "0.1"),
    "output_schema: not allowed on API 0.1",
  );
  refused(validateToolDefinition(tool({ output_schema: null }), "0.1"), "output_schema: not allowed on API 0.1");
});

test("TDEF-03: on API 0.2+ output_schema may be an object schema, null or absent", () => {
  for (const api of ["0.2", "0.4"] as const) {
    const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    assert.deepEqual(accepted(validateToolDefinition(tool({ output_schema: schema }), api)).output_schema, schema);
    assert.equal(accepted(validateToolDefinition(tool({ output_schema: null }), api)).output_schema, null);
    assert.equal("output_schema" in accepted(validateToolDefinition(tool(), api)), false);
  }
});

test("TDEF-04: boolean and other non-object output_schema nodes are refused", () => {
  refused(
    validateToolDefinition(tool({ output_schema: true }), "0.2"),
    "output_schema: expected an object, got boolean",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { properties: { a: true } } }), "0.2"),
    "output_schema.properties.a: expected a schema object, got boolean",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { items: false } }), "0.2"),
    "output_schema.items: expected a schema object, got boolean",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { items: [{}] } }), "0.2"),
    "output_schema.items: expected a schema object, got array",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { anyOf: [{}, 3] } }), "0.2"),
    "output_schema.anyOf[1]: expected a schema object, got number",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { properties: [] } }), "0.2"),
    "output_schema.properties: expected an object of schemas, got array",
  );
});

test("TDEF-04: additionalProperties keeps its boolean closed-object form in output_schema", () => {
  accepted(validateToolDefinition(tool({ output_schema: { type: "object", additionalProperties: false } }), "0.2"));
  accepted(
    validateToolDefinition(
      tool({ output_schema: { type: "object", additionalProperties: { type: "string" } } }),
      "0.2",
    ),
  );
  refused(
    validateToolDefinition(tool({ output_schema: { additionalProperties: 1 } }), "0.2"),
    "output_schema.additionalProperties: expected a schema object, got number",
  );
});

test("TDEF-05: output_schema nests 32 levels, 33 are refused naming depth and limit", () => {
  accepted(validateToolDefinition(tool({ output_schema: deepSchema(MAX_SCHEMA_DEPTH) }), "0.2"));
  refused(
    validateToolDefinition(tool({ output_schema: deepSchema(MAX_SCHEMA_DEPTH + 1) }), "0.2"),
    "output_schema.properties.p",
    "schema nesting of 33 levels, over the 32-level limit",
  );
});

test("TDEF-05: output_schema property names of 256 bytes are accepted, 257 are refused naming size and limit", () => {
  const name = (n: number): string => "é".repeat(n / 2); // two bytes per character
  accepted(
    validateToolDefinition(
      tool({ output_schema: { properties: { [name(MAX_SCHEMA_PROPERTY_NAME_BYTES)]: {} } } }),
      "0.2",
    ),
  );
  refused(
    validateToolDefinition(
      tool({ output_schema: { properties: { [name(MAX_SCHEMA_PROPERTY_NAME_BYTES + 2)]: {} } } }),
      "0.2",
    ),
    "output_schema.properties: property name",
    "is 258 bytes, over the 256-byte limit",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { required: [bytes(MAX_SCHEMA_PROPERTY_NAME_BYTES + 1)] } }), "0.2"),
    "output_schema.required",
    "257 bytes, over the 256-byte limit",
  );
});

test("TDEF-06: a schema using all 26 subset keywords is accepted", () => {
  assert.equal(OUTPUT_SCHEMA_KEYWORDS.length, 26);
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "T",
    description: "D",
    default: {},
    examples: [{}],
    type: "object",
    properties: { s: { type: "string", minLength: 1, maxLength: 9, enum: ["a"], const: "a" } },
    required: ["s"],
    additionalProperties: false,
    allOf: [{ minProperties: 1 }],
    anyOf: [{ maxProperties: 3 }],
    oneOf: [{ type: ["object", "null"] }],
    items: { type: "number", minimum: 0, maximum: 1, exclusiveMinimum: -1, exclusiveMaximum: 2 },
    minItems: 0,
    maxItems: 4,
    uniqueItems: true,
  };
  const used = new Set<string>();
  const collect = (n: unknown): void => {
    if (typeof n !== "object" || n === null || Array.isArray(n)) return;
    for (const [k, v] of Object.entries(n)) {
      used.add(k);
      if (k === "properties") Object.values(v as object).forEach(collect);
      else if (k === "items") collect(v);
      else if (k === "allOf" || k === "anyOf" || k === "oneOf") (v as unknown[]).forEach(collect);
    }
  };
  collect(schema);
  assert.deepEqual([...used].sort(), [...OUTPUT_SCHEMA_KEYWORDS].sort());
  accepted(validateToolDefinition(tool({ output_schema: schema }), "0.2"));
});

test("TDEF-06: any keyword outside the subset is refused, at any depth", () => {
  for (const kw of ["pattern", "format", "$ref", "$defs", "not", "if", "patternProperties", "x-custom"]) {
    refused(
      validateToolDefinition(tool({ output_schema: { [kw]: {} } }), "0.2"),
      `output_schema`,
      "keyword is not in the supported output_schema subset",
    );
  }
  refused(
    validateToolDefinition(tool({ output_schema: { properties: { a: { items: { pattern: "x" } } } } }), "0.4"),
    "output_schema.properties.a.items.pattern: keyword is not in the supported output_schema subset",
  );
});

test("TDEF-06: subset keywords must carry values of their kind", () => {
  refused(
    validateToolDefinition(tool({ output_schema: { type: "thing" } }), "0.2"),
    'output_schema.type: "thing" is not a JSON Schema type',
  );
  refused(
    validateToolDefinition(tool({ output_schema: { minLength: -1 } }), "0.2"),
    "output_schema.minLength: expected a non-negative integer, got -1",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { minimum: "0" } }), "0.2"),
    "output_schema.minimum: expected a number, got string",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { required: "a" } }), "0.2"),
    "output_schema.required: expected an array of property names, got string",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { enum: 1 } }), "0.2"),
    "output_schema.enum: expected an array, got number",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { title: 1 } }), "0.2"),
    "output_schema.title: expected a string, got number",
  );
  refused(
    validateToolDefinition(tool({ output_schema: { uniqueItems: "yes" } }), "0.2"),
    "output_schema.uniqueItems: expected a boolean, got string",
  );
});

test(
  "TDEF-09: on API 0.4 with tool_prompt_metadata_v1 negotiated a tool may declare prompt_snippet and " +
    "prompt_guidelines",
  () => {
    const def = accepted(
      validateToolDefinition(tool({ prompt_snippet: "Use t for x.", prompt_guidelines: ["One", "Two"] }), "0.4", PM),
    );
    assert.equal(def.prompt_snippet, "Use t for x.");
    assert.deepEqual(def.prompt_guidelines, ["One", "Two"]);
    assert.deepEqual(
      accepted(validateToolDefinition(tool({ prompt_guidelines: [] }), "0.4", PM)).prompt_guidelines,
      [],
    );
    // Guidelines need no snippet; and both are optional.
    assert.equal(
      "prompt_snippet" in accepted(validateToolDefinition(tool({ prompt_guidelines: ["g"] }), "0.4", PM)),
      false,
    );
    refused(
      validateToolDefinition(tool({ prompt_guidelines: "g" }), "0.4", PM),
      "prompt_guidelines: expected an array, got string",
    );
    refused(
      validateToolDefinition(tool({ prompt_guidelines: [1] }), "0.4", PM),
      "prompt_guidelines[0]: expected a string, got number",
    );
  },
);

test("TDEF-09: prompt metadata is not allowed before API 0.4", () => {
  for (const api of ["0.1", "0.2"] as const) {
    refused(
      validateToolDefinition(tool({ prompt_snippet: "s" }), api),
      "prompt_snippet: not allowed on API",
      "needs API 0.4",
    );
    refused(validateToolDefinition(tool({ prompt_guidelines: [] }), api), "prompt_guidelines: not allowed on API");
  }
});

test("TDEF-10: 16 guidelines are accepted, 17 are refused naming count and limit", () => {
  const list = (n: number): string[] => Array.from({ length: n }, (_, i) => `g${i}`);
  accepted(validateToolDefinition(tool({ prompt_guidelines: list(MAX_PROMPT_GUIDELINES) }), "0.4", PM));
  refused(
    validateToolDefinition(tool({ prompt_guidelines: list(MAX_PROMPT_GUIDELINES + 1) }), "0.4", PM),
    "prompt_guidelines: 17 guidelines, over the 16-guideline limit",
  );
});

test(
  "TDEF-10: snippet and guideline strings of 1,024 bytes are accepted, 1,025 are refused naming size " + "and limit",
  () => {
    accepted(
      validateToolDefinition(
        tool({ prompt_snippet: "é".repeat(512), prompt_guidelines: [bytes(MAX_PROMPT_METADATA_BYTES)] }),
        "0.4",
        PM,
      ),
    );
    refused(
      validateToolDefinition(tool({ prompt_snippet: bytes(MAX_PROMPT_METADATA_BYTES + 1) }), "0.4", PM),
      "prompt_snippet: 1025 bytes, over the 1024-byte limit",
    );
    refused(
      validateToolDefinition(tool({ prompt_guidelines: ["ok", "é".repeat(512) + "x"] }), "0.4", PM),
      "prompt_guidelines[1]: 1025 bytes, over the 1024-byte limit",
    );
  },
);

test("TDEF-11: prompt metadata allows LF and TAB but no other control character", () => {
  accepted(validateToolDefinition(tool({ prompt_snippet: "a\n\tb", prompt_guidelines: ["x\ty\n"] }), "0.4", PM));
  for (const [ch, code] of [
    ["\r", "U+000D"],
    ["\u0000", "U+0000"],
    ["\u001b", "U+001B"],
    ["\u007f", "U+007F"],
    ["\u0085", "U+0085"],
  ] as const) {
    refused(
      validateToolDefinition(tool({ prompt_snippet: `a${ch}` }), "0.4", PM),
      "prompt_snippet: control character",
      code,
      "only LF and TAB",
    );
    refused(
      validateToolDefinition(tool({ prompt_guidelines: [`b${ch}`] }), "0.4", PM),
      "prompt_guidelines[0]: control character",
      code,
    );
  }
});

test("TDEF-14: on API 0.4 without tool_prompt_metadata_v1 negotiated, declaring prompt metadata is refused", () => {
  for (const negotiated of [[], ["request_cancellation", "content_parts"], ["tool_composition_v1"]]) {
    refused(
      validateToolDefinition(tool({ prompt_snippet: "s" }), "0.4", negotiated),
      "prompt_snippet: not allowed without tool_prompt_metadata_v1 negotiated",
    );
    refused(
      validateToolDefinition(tool({ prompt_guidelines: [] }), "0.4", negotiated),
      "prompt_guidelines: not allowed without tool_prompt_metadata_v1 negotiated",
    );
  }
  // The default is "nothing negotiated": a caller that forgets the features fails closed.
  refused(
    validateToolDefinition(tool({ prompt_snippet: "s" }), "0.4"),
    "prompt_snippet: not allowed without tool_prompt_metadata_v1",
  );
  // Null still reads as absent (SDKs serialize unset optionals as null), and nothing is carried over.
  const def = accepted(validateToolDefinition(tool({ prompt_snippet: null, prompt_guidelines: null }), "0.4"));
  assert.equal("prompt_snippet" in def || "prompt_guidelines" in def, false);
  // Without metadata, a 0.4 tool needs no feature.
  accepted(validateToolDefinition(tool(), "0.4"));
});

test("TDEF-14: the feature does not open prompt metadata before API 0.4", () => {
  for (const api of ["0.1", "0.2"] as const) {
    refused(
      validateToolDefinition(tool({ prompt_snippet: "s" }), api, PM),
      "prompt_snippet: not allowed on API",
      "needs API 0.4",
    );
  }
});

test("a tool definition is closed: unknown members are refused on every API", () => {
  for (const api of ["0.1", "0.2", "0.4"] as const) {
    refused(validateToolDefinition(tool({ inputSchema: {} }), api), "inputSchema: unknown member");
  }
});

test("a refused definition reports every problem, not only the first", () => {
  const problems = refused(
    validateToolDefinition(
      { name: "bad name", description: "", parameters: {}, output_schema: { pattern: "x" } },
      "0.2",
    ),
  );
  assert.ok(problems.some((p) => p.startsWith("name:")));
  assert.ok(problems.some((p) => p.startsWith("description:")));
  assert.ok(problems.some((p) => p.startsWith("parameters.type:")));
  assert.ok(problems.some((p) => p.startsWith("output_schema.pattern:")));
});

test("CMD-04: the command definition of the spec is accepted as {name, description, usage}", () => {
  assert.deepEqual(accepted(validateCommandDefinition(SPEC_COMMAND)), SPEC_COMMAND);
});

test("CMD-04: an absent or null usage becomes /<name>; an empty usage is kept", () => {
  assert.equal(accepted(validateCommandDefinition({ name: "hello", description: "d" })).usage, "/hello");
  assert.equal(accepted(validateCommandDefinition({ name: "hello", description: "d", usage: null })).usage, "/hello");
  assert.equal(accepted(validateCommandDefinition({ name: "hello", description: "d", usage: "" })).usage, "");
  refused(
    validateCommandDefinition({ name: "hello", description: "d", usage: ["/hello"] }),
    "usage: expected a string, got array",
  );
  refused(
    validateCommandDefinition({ name: "hello", description: "d", usage: bytes(MAX_DESCRIPTION_BYTES + 1) }),
    "usage: 16385 bytes, over the 16384-byte limit",
  );
});

test("CMD-04: command names follow the tool-name grammar and descriptions must not be empty", () => {
  refused(
    validateCommandDefinition({ name: "/hello", description: "d" }),
    'name: "/hello" does not match ^[A-Za-z0-9_-]{1,128}$',
  );
  refused(validateCommandDefinition({ name: bytes(129, "c"), description: "d" }), "name:", "does not match");
  accepted(validateCommandDefinition({ name: bytes(128, "c"), description: "d" }));
  refused(validateCommandDefinition({ name: "hello", description: "" }), "description: must not be empty");
  refused(validateCommandDefinition({ name: "hello" }), "description: missing; expected a string");
});

test("FRAME-15: unknown command-definition members are ignored and not carried over", () => {
  const def = accepted(validateCommandDefinition({ ...SPEC_COMMAND, aliases: ["hi"] }));
  assert.deepEqual(def, SPEC_COMMAND);
});

test("validators never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.constantFrom("0.1", "0.2", "0.4" as const), (v, api) => {
      validateToolDefinition(v, api);
      validateToolDefinition(
        { name: "t", description: "d", parameters: {}, prompt_snippet: v, prompt_guidelines: v },
        api,
        PM,
      );
      validateToolDefinition(
        { name: "t", description: "d", parameters: { type: "object", properties: v }, output_schema: v },
        api,
      );
      validateCommandDefinition(v);
      return true;
    }),
    { numRuns: 300 },
  );
});
