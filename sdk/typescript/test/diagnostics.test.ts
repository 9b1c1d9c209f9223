/**
 * Diagnostics on ordinary tool results: the diagnostics member and withDiagnostics become
 * metadata.octet_diagnostics_v1 plus one projection part, checked before anything is sent, and
 * read by the host's own validators.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateDiagnostics, validateToolResult } from "@octet/protocol";
import { withDiagnostics, type Diagnostic } from "../src/index.js";
import { toToolResult } from "../src/results.js";

const D: Diagnostic = { severity: "warning", code: "lint.unused", message: "x is unused" };

test(
  "PY-23, PY-24: withDiagnostics and the diagnostics member go to metadata.octet_diagnostics_v1, beside " +
    "the author's other metadata",
  () => {
    const result = toToolResult({ ...withDiagnostics({ content: "ok", metadata: { cache: "hit" } }, [D]) }, "0.4");
    assert.deepEqual(result["metadata"], { cache: "hit", octet_diagnostics_v1: [D] });
    assert.ok(validateToolResult(result, "0.4").ok);
    const twice = withDiagnostics(withDiagnostics("ok", [D]), [{ ...D, severity: "info" }]);
    assert.equal(twice.diagnostics?.length, 2, "withDiagnostics adds after the diagnostics already there");
    const artifact = toToolResult(
      {
        content: "ok",
        diagnostics: [
          {
            ...D,
            attachments: [{ label: "plot", source: { kind: "artifact", artifactId: "artifact-1" } }],
            fixes: [
              {
                title: "Remove",
                edits: [
                  {
                    location: {
                      source: { kind: "workspace", path: "a.ts", revision: "r2" },
                      span: { start: 3, end: 8 },
                    },
                    newText: "",
                  },
                ],
              },
            ],
          },
        ],
      },
      "0.4",
    );
    const wire = (artifact["metadata"] as Record<string, unknown>)["octet_diagnostics_v1"] as Record<string, unknown>[];
    assert.deepEqual(wire[0]!["attachments"], [
      { label: "plot", source: { kind: "artifact", artifact_id: "artifact-1" } },
    ]);
    assert.deepEqual((wire[0]!["fixes"] as { edits: unknown[] }[])[0]!.edits, [
      {
        location: { source: { kind: "workspace", path: "a.ts", revision: "r2" }, span: { start: 3, end: 8 } },
        new_text: "",
      },
    ]);
    assert.ok(validateDiagnostics(wire).ok);
  },
);

test(
  "PY-24: malformed diagnostics, a doubled profile, raw reserved metadata that is malformed, and " +
    "diagnostics before API 0.4 are refused, never sent",
  () => {
    assert.throws(
      () => toToolResult({ content: "x", diagnostics: [{ ...D, line: 3 } as never] }, "0.4"),
      /invalid diagnostics: diagnostics\[0\]\.line: unknown member/,
    );
    assert.throws(
      () => toToolResult({ content: "x", diagnostics: [D], metadata: { octet_diagnostics_v1: [] } }, "0.4"),
      /carries diagnostics and metadata\.octet_diagnostics_v1 both/,
    );
    assert.throws(
      () => toToolResult({ content: "x", metadata: { octet_diagnostics_v1: "oops" } }, "0.4"),
      /invalid metadata\.octet_diagnostics_v1: metadata\.octet_diagnostics_v1: expected an array/,
    );
    assert.throws(
      () => toToolResult({ content: "x", diagnostics: [D], metadata: "note" }, "0.4"),
      /metadata is not an object/,
    );
    assert.throws(() => toToolResult({ content: "x", diagnostics: [D] }, "0.2"), /diagnostics need API 0\.4/);
    assert.throws(() => toToolResult({ content: "x", diagnostics: [D] }, "0.1"), /diagnostics need API 0\.4/);
    // Well-formed raw reserved metadata is accepted and projected like the diagnostics member.
    const raw = toToolResult({ content: "x", metadata: { octet_diagnostics_v1: [{ ...D, primary: null }] } }, "0.4");
    assert.deepEqual(raw["metadata"], { octet_diagnostics_v1: [D] });
    assert.equal((raw["content"] as unknown[]).length, 2);
  },
);

test("DIAG-02: 32 diagnostics on a result are sent, a 33rd is refused", () => {
  const ok = toToolResult({ content: "x", diagnostics: new Array(32).fill(D) }, "0.4");
  assert.equal((ok["metadata"] as Record<string, unknown[]>)["octet_diagnostics_v1"]!.length, 32);
  assert.throws(
    () => toToolResult({ content: "x", diagnostics: new Array(33).fill(D) }, "0.4"),
    /33 diagnostics, over the 32-diagnostic limit/,
  );
});

test(
  "DIAG-03: the projection is one text part after the content, added once even when the text already " + "carries it",
  () => {
    const first = toToolResult({ content: "Checked.", diagnostics: [D] }, "0.4");
    const parts = first["content"] as { type: string; text: string }[];
    assert.deepEqual(parts, [
      { type: "text", text: "Checked." },
      { type: "text", text: "Diagnostics (1):\n- warning lint.unused: x is unused" },
    ]);
    const again = toToolResult({ content: parts as never, diagnostics: [D] }, "0.4");
    assert.deepEqual(again["content"], parts, "never duplicated");
    const inline = toToolResult({ content: `Checked.\n${parts[1]!.text}`, diagnostics: [D] }, "0.4");
    assert.equal((inline["content"] as unknown[]).length, 1);
    const none = toToolResult({ content: "x", diagnostics: [] }, "0.4");
    assert.deepEqual(none["content"], [{ type: "text", text: "x" }]);
  },
);
