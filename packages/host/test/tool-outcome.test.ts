/**
 * What a tool call returns to the embedder (issue 14.3): each result is checked before it is
 * believed, and one that fails becomes a tool error with a diagnostic (CALL-23).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ResourceOwner, ToolDefinition } from "@octet/protocol";
import type { HostEvent } from "../src/events.js";
import type { MediaResolver } from "../src/modules/artifacts/artifacts-service.js";
import { CompileBudget, compileToolSchemas } from "../src/schema-check/tool-schemas.js";
import { toolOutcome, type OutcomeGeneration } from "../src/generation/tool-outcome.js";

const OWNER: ResourceOwner = { session_id: "s", extension_instance_id: "i", process_generation: 3 };
const TOOL: ToolDefinition = {
  name: "shape",
  description: "d",
  parameters: { type: "object", properties: {} },
  output_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
};

function gen(o: { features?: string[]; media?: MediaResolver } = {}): OutcomeGeneration {
  return {
    name: "ext",
    api: "0.4",
    number: 3,
    features: o.features ?? [],
    media: o.media,
    owner: () => OWNER,
    schemas: compileToolSchemas([TOOL], new CompileBudget(), true),
  };
}

function run(g: OutcomeGeneration, raw: unknown) {
  const events: HostEvent[] = [];
  const outcome = toolOutcome(g, TOOL, raw, (e) => events.push(e));
  const said = events.flatMap((e) => (e.type === "diagnostic" ? [`${e.level}: ${e.message}`] : []));
  return { outcome, said };
}

const text = (t: string) => ({ type: "text", text: t });

test("CALL-12: a valid result is passed on with the extension's name and no diagnostic", () => {
  const { outcome, said } = run(gen(), { content: [text("hi")], structured_content: { n: 1 } });
  assert.equal(outcome.extension, "ext");
  assert.equal(outcome.text, "hi");
  assert.equal(outcome.is_error, false);
  assert.deepEqual(said, []);
});

test("CALL-23: a result of the wrong shape becomes a tool error naming the problem, with an error diagnostic", () => {
  const { outcome, said } = run(gen(), { content: "hi" });
  assert.equal(outcome.is_error, true);
  assert.match(outcome.text, /^Tool shape returned an invalid result: .*content/);
  assert.equal(said.length, 1);
  assert.match(said[0]!, /^error: invalid tool\/call result for shape: .*content/);
});

test("CALL-18: a media part needs the artifacts feature, and with it a bound artifacts service", () => {
  const image = { type: "image", artifact_id: "art_1", mime_type: "image/png" };
  const ok = { structured_content: { n: 1 } };
  const without = run(gen(), { content: [text("see"), image], ...ok });
  const needs = 'content part of type "image" needs the artifacts feature, which was not negotiated';
  assert.equal(without.outcome.text, `Tool shape returned an invalid result: ${needs}`);
  const unbound = run(gen({ features: ["artifacts"] }), { content: [text("see"), image], ...ok });
  assert.equal(unbound.outcome.text, "Tool shape returned an invalid result: no artifacts service is bound");
  let askedFor: ResourceOwner | undefined;
  const media: MediaResolver = {
    resolve: (_parts, owner) => {
      askedFor = owner;
      return { ok: false, problem: 'content[0]: unknown artifact "art_1"' };
    },
    get: () => undefined,
  };
  const unknown = run(gen({ features: ["artifacts"], media }), { content: [text("see"), image], ...ok });
  assert.equal(unknown.outcome.text, 'Tool shape returned an invalid result: content[0]: unknown artifact "art_1"');
  assert.deepEqual(askedFor, OWNER, "resolved for the generation's own owner (ART-14)");
});

test("CALL-20: structured_content is checked against the tool's output_schema of the call's epoch", () => {
  const { outcome } = run(gen(), { content: [text("x")], structured_content: { n: "one" } });
  assert.equal(outcome.is_error, true);
  assert.match(outcome.text, /structured_content\.n: must be integer/);
});

test(
  "DIAG-04, DIAG-05: typed diagnostics are checked: an unknown artifact and any reference from an error " +
    "result are refused",
  () => {
    const diagnostic = (source: Record<string, unknown>) => ({
      octet_diagnostics_v1: [{ severity: "error", code: "E1", message: "bad", primary: { source } }],
    });
    const x = { content: [text("x")], structured_content: { n: 1 } };
    const workspace = run(gen(), { ...x, metadata: diagnostic({ kind: "workspace", path: "a.ts" }) });
    assert.equal(workspace.outcome.is_error, false, workspace.outcome.text);
    const artifact = { kind: "artifact", artifact_id: "art_9" };
    const unbound = run(gen(), { ...x, metadata: diagnostic(artifact) });
    const cannot = /primary\.source: artifact "art_9" cannot be resolved: no artifacts service is bound/;
    assert.match(unbound.outcome.text, cannot);
    const media: MediaResolver = { resolve: () => ({ ok: true, media: [] }), get: () => undefined };
    const unknown = run(gen({ media }), { ...x, metadata: diagnostic(artifact) });
    assert.match(unknown.outcome.text, /unknown artifact "art_9"; an artifact is valid only for the session owner/);
    const failed = run(gen({ media }), { ...x, is_error: true, metadata: diagnostic(artifact) });
    assert.match(failed.outcome.text, /an error result cannot publish artifact references through diagnostics/);
  },
);

test("CALL-12: an outcome carries the result's members in the wire's order, then the extension", () => {
  const metadata = { note: "m" };
  const { outcome } = run(gen(), { content: [text("a"), text("b")], structured_content: { n: 2 }, metadata });
  assert.deepEqual(Object.keys(outcome), ["parts", "text", "is_error", "structured_content", "metadata", "extension"]);
  assert.deepEqual(outcome.structured_content, { n: 2 });
  assert.equal(outcome.metadata, metadata, "the metadata value as it came, not a copy");
  assert.equal(outcome.text, "a\nb");
  // Without the optional members there are none, not members set to undefined.
  const bare = toolOutcome(
    { ...gen(), schemas: compileToolSchemas([], new CompileBudget(), true) },
    {
      name: "plain",
      description: "d",
      parameters: { type: "object", properties: {} },
    },
    { content: [text("x")] },
    () => {},
  );
  assert.deepEqual(Object.keys(bare), ["parts", "text", "is_error", "extension"]);
});
