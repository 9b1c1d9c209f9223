import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { RPI_CAPABILITIES, RPI_MAX_MANIFEST_ERRORS, RPI_UI_CAPABILITIES, parseRpiManifest } from "../src/index.js";
import type { RpiManifestError } from "../src/index.js";

const FILE = "/pkgs/pi-weather/pi-extension.json";

/** The spec's executable manifest. */
const PROCESS = {
  schemaVersion: 1,
  id: "pi-weather",
  executable: "./main",
  arguments: [],
  capabilities: ["tools"],
  uiCapabilities: [],
};
/** The spec's QuickJS manifest. */
const QUICKJS = {
  schemaVersion: 1,
  id: "pi-weather",
  runtime: "quickjs",
  entry: "./index.mjs",
  capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
  uiCapabilities: ["notify", "status"],
};

function errorsOf(doc: unknown): RpiManifestError[] {
  const r = parseRpiManifest(typeof doc === "string" ? doc : JSON.stringify(doc), FILE);
  assert.equal(r.ok, false, `expected ${JSON.stringify(doc)} to be refused`);
  return r.ok ? [] : r.errors;
}

/**
 * Asserts that `doc` is refused with an error on `key` whose message names the file and the key
 * and matches every pattern (the value and the rule).
 */
function refused(doc: unknown, key: string, ...patterns: RegExp[]): RpiManifestError {
  const errors = errorsOf(doc);
  const e = errors.find((x) => x.key === key);
  assert.ok(e, `no error on key ${JSON.stringify(key)} in ${JSON.stringify(errors.map((x) => x.message))}`);
  assert.equal(e.file, FILE);
  const where = key === "" ? `${FILE}: ` : `${FILE}: key ${JSON.stringify(key)}: `;
  assert.ok(e.message.startsWith(where), e.message);
  for (const p of patterns) assert.match(e.message, p);
  return e;
}

function accepted(doc: unknown) {
  const r = parseRpiManifest(JSON.stringify(doc), FILE);
  assert.ok(r.ok, r.ok ? "" : r.errors.map((e) => e.message).join("\n"));
  return r.manifest;
}

test("RPI-02, RPI-05, RPI-06: the spec's executable manifest is valid and omitting runtime means process", () => {
  assert.deepEqual(accepted(PROCESS), {
    schemaVersion: 1,
    id: "pi-weather",
    runtime: "process",
    executable: "./main",
    arguments: [],
    capabilities: ["tools"],
    uiCapabilities: [],
  });
});

test(
  'RPI-05, RPI-06: the explicit "runtime": "process" form is the same manifest; arguments and uiCapabilities may ' +
    "be omitted",
  () => {
    assert.deepEqual(accepted({ ...PROCESS, runtime: "process" }), accepted(PROCESS));
    const m = accepted({
      schemaVersion: 1,
      id: "x",
      runtime: "process",
      executable: "bin/run",
      arguments: ["--port", "", "a b"],
      capabilities: ["tools"],
    });
    assert.deepEqual(m.arguments, ["--port", "", "a b"]);
    assert.deepEqual(m.uiCapabilities, []);
    assert.equal("entry" in m, false);
    assert.deepEqual(
      accepted({ schemaVersion: 1, id: "x", executable: "main", capabilities: ["tools"] }).arguments,
      [],
    );
  },
);

test("RPI-05, RPI-07, RPI-10: the spec's QuickJS manifest is valid", () => {
  assert.deepEqual(accepted(QUICKJS), {
    schemaVersion: 1,
    id: "pi-weather",
    runtime: "quickjs",
    entry: "./index.mjs",
    arguments: [],
    capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
    uiCapabilities: ["notify", "status"],
  });
  assert.equal(accepted({ ...QUICKJS, entry: "lib/main.js" }).entry, "lib/main.js");
});

test("RPI-02: text that is not a JSON object is refused", () => {
  refused('{ "schemaVersion": 1,', "", /is not valid JSON/);
  refused("", "", /is not valid JSON/);
  refused("[1]", "", /must be a JSON object, got array of 1/);
  refused("null", "", /must be a JSON object, got null/);
  refused('"pi"', "", /must be a JSON object, got string "pi"/);
});

test("RPI-02: duplicate top-level keys are refused (JSON.parse would keep the last)", () => {
  const text = `{"schemaVersion":1,"id":"a","executable":"./main","id":"b","capabilities":["tools"]}`;
  refused(text, "id", /appears more than once/, /duplicate keys are refused/);
  // An escaped spelling of the same name is the same key.
  refused(
    `{"schemaVersion":1,"id":"a","executable":"./main","\\u0069d":"b","capabilities":["tools"]}`,
    "id",
    /appears more than once/,
  );
  // Equal strings in values or nested arrays are not keys.
  assert.equal(
    parseRpiManifest(
      `{"schemaVersion":1,"id":"id","executable":"id","arguments":["id","id:"],"capabilities":["tools"]}`,
      FILE,
    ).ok,
    true,
  );
  // A duplicate inside a nested object is not a top-level key (the object is refused for its type).
  const nested = errorsOf(
    `{"schemaVersion":1,"id":"a","executable":"./main","capabilities":["tools"],"uiCapabilities":{"x":1,"x":2}}`,
  );
  assert.deepEqual(
    nested.map((e) => e.key),
    ["uiCapabilities"],
  );
});

test("RPI-03: schemaVersion must be exactly 1", () => {
  const { schemaVersion: _, ...rest } = PROCESS;
  refused(rest, "schemaVersion", /is required and must be 1/);
  refused({ ...PROCESS, schemaVersion: 2 }, "schemaVersion", /must be the number 1, got number 2/);
  refused({ ...PROCESS, schemaVersion: "1" }, "schemaVersion", /must be the number 1, got string "1"/);
  refused({ ...PROCESS, schemaVersion: 0 }, "schemaVersion", /got number 0/);
});

test("RPI-04: ids are ASCII letters, digits, _, - and .; at most 64 characters; not . or ..", () => {
  for (const id of ["a", "pi-weather", "A_b-c.d", "1", "...", ".hidden", "x".repeat(64)])
    assert.equal(accepted({ ...PROCESS, id }).id, id);
  refused(
    { ...PROCESS, id: "pi weather" },
    "id",
    /"pi weather" must contain only ASCII letters, digits, "_", "-" and "\."/,
  );
  refused({ ...PROCESS, id: "pi/weather" }, "id", /"pi\/weather" must contain only ASCII letters/);
  refused({ ...PROCESS, id: "café" }, "id", /"café" must contain only ASCII letters/);
  refused({ ...PROCESS, id: "a\u0000b" }, "id", /must contain only ASCII letters/);
  refused({ ...PROCESS, id: "" }, "id", /must be a non-empty string/);
  refused({ ...PROCESS, id: 5 }, "id", /must be a string, got number 5/);
  refused({ ...PROCESS, id: "." }, "id", /"\." is not allowed: it names a directory/);
  refused({ ...PROCESS, id: ".." }, "id", /"\.\." is not allowed: it names a directory/);
  refused({ ...PROCESS, id: "x".repeat(65) }, "id", /is 65 characters, over the 64-character limit/);
  const { id: _, ...noId } = PROCESS;
  refused(noId, "id", /is required/);
});

test("RPI-04: property: a random id is accepted iff it matches the grammar", () => {
  const grammar = (s: string) => /^[A-Za-z0-9_.-]{1,64}$/.test(s) && s !== "." && s !== "..";
  const chars = [..."aZ09_.-", " ", "/", "\\", "é", "\u0000", ":", "\n", "😀"];
  const ids = fc.oneof(
    fc.string({ unit: fc.constantFrom(...chars), maxLength: 70 }),
    fc.string({ unit: fc.constantFrom(..."abcXYZ019_.-"), minLength: 60, maxLength: 68 }),
    fc.string({ unit: "grapheme", maxLength: 8 }),
  );
  fc.assert(
    fc.property(ids, (id) => {
      const r = parseRpiManifest(JSON.stringify({ ...PROCESS, id }), FILE);
      assert.equal(r.ok, grammar(id), JSON.stringify(id));
      if (!r.ok)
        assert.deepEqual(
          r.errors.map((e) => e.key),
          ["id"],
        );
    }),
    { numRuns: 500 },
  );
});

test('RPI-05: runtime is "process" or "quickjs"; a script entry needs "quickjs"', () => {
  refused(
    { ...PROCESS, runtime: "deno" },
    "runtime",
    /must be "process" \(or omitted\) for an executable or "quickjs" for a script entry, got string "deno"/,
  );
  refused({ ...QUICKJS, runtime: "QuickJS" }, "runtime", /got string "QuickJS"/);
  refused({ ...PROCESS, runtime: null }, "runtime", /got null/);
  const { runtime: _, ...noRuntime } = QUICKJS;
  refused(
    noRuntime,
    "entry",
    /is QuickJS-only but runtime is omitted, which means "process"; a script entry needs "runtime": "quickjs"/,
  );
  refused({ ...QUICKJS, runtime: "process" }, "entry", /is QuickJS-only but runtime is "process"/);
});

test("RPI-06: executable is a process-only relative path; a process manifest needs one", () => {
  const { executable: _, ...noExe } = PROCESS;
  refused(noExe, "executable", /is required: runtime is omitted, which means "process", which launches an executable/);
  refused({ ...noExe, runtime: "process" }, "executable", /is required: runtime is "process"/);
  refused({ ...PROCESS, executable: 7 }, "executable", /must be a relative path string, got number 7/);
  refused({ ...PROCESS, executable: "" }, "executable", /must be a non-empty relative path/);
  const { entry: __, ...qNoEntry } = QUICKJS;
  refused({ ...qNoEntry, executable: "./main" }, "executable", /is process-only but runtime is "quickjs"/);
});

test(
  "RPI-06: arguments is an optional array of NUL-free strings, and QuickJS manifests reject it even when " + "empty",
  () => {
    refused({ ...PROCESS, arguments: "--flag" }, "arguments", /must be an array of strings, got string "--flag"/);
    refused({ ...PROCESS, arguments: ["ok", 3] }, "arguments[1]", /must be a string, got number 3/);
    refused({ ...PROCESS, arguments: ["a\u0000b"] }, "arguments[0]", /"a\\u0000b" must not contain a NUL character/);
    refused(
      { ...QUICKJS, arguments: [] },
      "arguments",
      /is process-only and QuickJS manifests reject it \(even an empty array\), got array of 0/,
    );
    refused({ ...QUICKJS, arguments: ["--x"] }, "arguments", /QuickJS manifests reject it/);
  },
);

test("RPI-07: entry must end in .js or .mjs; TypeScript and other extensions are refused", () => {
  refused(
    { ...QUICKJS, entry: "./index.ts" },
    "entry",
    /"\.\/index\.ts" is a TypeScript file \(\.ts\)/,
    /TypeScript is not supported by the in-process runtime/,
  );
  refused(
    { ...QUICKJS, entry: "src/main.mts" },
    "entry",
    /is a TypeScript file \(\.mts\)/,
    /TypeScript is not supported/,
  );
  for (const entry of ["./index.cjs", "./main.py", "./index", "./INDEX.MJS", "./index.js.map", "./main.jsx"]) {
    const e = refused({ ...QUICKJS, entry }, "entry", /TypeScript is not supported by the in-process runtime/);
    assert.ok(e.message.includes(`${JSON.stringify(entry)} does not end in .js or .mjs`), e.message);
  }
  const { entry: _, ...noEntry } = QUICKJS;
  refused(noEntry, "entry", /is required: runtime is "quickjs", which runs a \.js or \.mjs entry/);
  refused({ ...QUICKJS, entry: ["./index.mjs"] }, "entry", /must be a relative path string, got array of 1/);
});

test("RPI-08: a manifest with both executable and entry is refused, whatever its runtime", () => {
  refused(
    { ...QUICKJS, executable: "./main" },
    "entry",
    /either "executable" \(runtime "process"\) or "entry" \(runtime "quickjs"\), not both/,
  );
  refused({ ...PROCESS, entry: "./index.mjs" }, "entry", /not both/);
  refused({ ...PROCESS, runtime: "process", entry: "./index.mjs" }, "entry", /not both/);
});

test("RPI-09: capabilities is a non-empty list of unique known values", () => {
  assert.deepEqual(
    accepted({ ...PROCESS, capabilities: [...RPI_CAPABILITIES], uiCapabilities: ["notify"] }).capabilities,
    [...RPI_CAPABILITIES],
  );
  const { capabilities: _, ...noCaps } = PROCESS;
  refused(noCaps, "capabilities", /is required: one or more of commands, tools, event_hooks/);
  refused({ ...PROCESS, capabilities: [] }, "capabilities", /is empty; list one or more of commands, tools/);
  refused({ ...PROCESS, capabilities: "tools" }, "capabilities", /must be an array of strings, got string "tools"/);
  refused(
    { ...PROCESS, capabilities: ["tools", "widgets"] },
    "capabilities[1]",
    new RegExp(
      /unknown value "widgets" \(allowed: commands, tools, event_hooks, message_renderers, /.source +
        /provider_metadata, session_actions, ui, overlays\)/.source,
    ),
  );
  refused(
    { ...PROCESS, capabilities: ["tools", "tools"] },
    "capabilities[1]",
    /duplicate value "tools" \(values must be unique\)/,
  );
  refused({ ...PROCESS, capabilities: [true] }, "capabilities[0]", /must be a string, got boolean true/);
});

test("RPI-10: uiCapabilities is required and non-empty when ui is listed, with known unique values", () => {
  assert.deepEqual(
    accepted({ ...PROCESS, capabilities: ["ui"], uiCapabilities: [...RPI_UI_CAPABILITIES] }).uiCapabilities,
    [...RPI_UI_CAPABILITIES],
  );
  const { uiCapabilities: _, ...noUi } = QUICKJS;
  refused(
    noUi,
    "uiCapabilities",
    new RegExp(
      /must list one or more of select, confirm, input, editor, notify, status, widget, title, /.source +
        /set_editor_text, overlay because capabilities lists "ui", got nothing/.source,
    ),
  );
  refused({ ...QUICKJS, uiCapabilities: [] }, "uiCapabilities", /because capabilities lists "ui", got array of 0/);
  refused(
    { ...QUICKJS, uiCapabilities: ["notify", "toast"] },
    "uiCapabilities[1]",
    /unknown value "toast" \(allowed: select, confirm/,
  );
  refused({ ...QUICKJS, uiCapabilities: ["notify", "notify"] }, "uiCapabilities[1]", /duplicate value "notify"/);
  refused(
    { ...QUICKJS, uiCapabilities: "notify" },
    "uiCapabilities",
    /must be an array of strings, got string "notify"/,
  );
});

test("RPI-11: non-empty uiCapabilities without ui, unknown keys and any environment field are refused", () => {
  refused(
    { ...PROCESS, uiCapabilities: ["notify"] },
    "uiCapabilities",
    /is not empty \(array of 1\) but capabilities does not list "ui"/,
  );
  assert.ok(accepted({ ...PROCESS, uiCapabilities: [] }));
  const { uiCapabilities: _, ...noUi } = PROCESS;
  assert.ok(accepted(noUi));
  refused(
    { ...PROCESS, name: "Weather" },
    "name",
    /unknown key \(allowed: schemaVersion, id, runtime, executable, arguments, entry, capabilities, uiCapabilities\)/,
  );
  refused(
    { ...PROCESS, environment: { KEY: "v" } },
    "environment",
    /unknown key/,
    /there is no environment field: the child gets only the PI_EXTENSION_\* variables/,
  );
  refused({ ...PROCESS, env: ["HOME"] }, "env", /there is no environment field/);
  refused(
    `{"schemaVersion":1,"id":"a","executable":"./main","capabilities":["tools"],"__proto__":{}}`,
    "__proto__",
    /unknown key/,
  );
});

test("RPI-12: QuickJS manifests refuse message_renderers, keep provider_metadata (data); process: both", () => {
  refused(
    { ...QUICKJS, capabilities: ["tools", "message_renderers"] },
    "capabilities[1]",
    /"message_renderers" is not available to QuickJS entries: its factories cannot cross the extension protocol/,
  );
  // pi's registerProvider crosses as data (the prelude refuses streamSimple, which is code).
  assert.deepEqual(
    accepted({ ...QUICKJS, capabilities: ["provider_metadata", "ui"], uiCapabilities: ["notify"] }).capabilities,
    ["provider_metadata", "ui"],
  );
  assert.deepEqual(accepted({ ...PROCESS, capabilities: ["message_renderers", "provider_metadata"] }).capabilities, [
    "message_renderers",
    "provider_metadata",
  ]);
});

test(
  "RPI-13, RPI-14: absolute, traversing, backslashed, NUL-carrying and empty-segment paths are refused before any " +
    "filesystem access",
  () => {
    const cases: [string, RegExp][] = [
      ["/usr/bin/env", /is an absolute path; it must be relative to the manifest directory/],
      ["../main", /contains a "\.\." segment; parent traversal out of the manifest directory is not allowed/],
      ["bin/../../main", /contains a "\.\." segment/],
      ["bin/../main", /contains a "\.\." segment/],
      ["bin\\main", /must not contain a backslash/],
      ["..\\main", /must not contain a backslash/],
      ["ma\u0000in", /must not contain a NUL character/],
      ["C:/tools/main", /starts with a drive letter \(an absolute Windows path\)/],
      ["bin//main", /contains an empty segment \("\/\/" or a trailing "\/"\)/],
      ["bin/", /contains an empty segment/],
    ];
    for (const [p, rule] of cases) {
      const entry = p.endsWith("/") ? p : `${p}.mjs`;
      for (const [doc, key, value] of [
        [{ ...PROCESS, executable: p }, "executable", p],
        [{ ...QUICKJS, entry }, "entry", entry],
      ] as const) {
        const e = refused(doc, key, rule);
        assert.ok(e.message.includes(`: ${JSON.stringify(value)} `), e.message);
      }
    }
  },
);

test("RPI-03, RPI-04, RPI-09, RPI-11: every problem of a manifest is reported, not only the first", () => {
  const errors = errorsOf({
    schemaVersion: 3,
    id: "a b",
    runtime: "process",
    executable: "/abs",
    capabilities: ["nope"],
    extra: 1,
  });
  assert.deepEqual(errors.map((e) => e.key).sort(), ["capabilities[0]", "executable", "extra", "id", "schemaVersion"]);
});

test("RPI-09: a flood of bad values reports at most RPI_MAX_MANIFEST_ERRORS problems plus a count of the rest", () => {
  const errors = errorsOf({ ...PROCESS, capabilities: Array.from({ length: 100 }, (_, i) => `bad${i}`) });
  assert.equal(errors.length, RPI_MAX_MANIFEST_ERRORS + 1);
  assert.match(
    errors.at(-1)?.message ?? "",
    new RegExp(
      `: ${100 - RPI_MAX_MANIFEST_ERRORS} more problem\\(s\\) not shown \\(at most ${RPI_MAX_MANIFEST_ERRORS} are ` +
        `reported\\)`,
    ),
  );
});
