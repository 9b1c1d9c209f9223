/**
 * One profile for both SDKs (DIAG-06, DIAG-03): diagnostics built through the Python SDK's public
 * API (tool_result(..., diagnostics=...)) with every record kind are accepted by the shared TS
 * validateDiagnostics unchanged, and the Python projection is diagnosticsProjection() word for word.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { validateDiagnostics, diagnosticsProjection, DIAGNOSTICS_METADATA_KEY } from "@octet/protocol";
import { ROOT } from "./helpers.js";

const SDK = join(ROOT, "sdk", "python");

// Every record kind: primary with span and revision, related (workspace, artifact, blob), fixes
// with several edits, attachments with artifact and blob sources (titled and untitled), and
// enough diagnostics for the "+N more" line; `long` adds one whose projection is cut at 4096 bytes.
const SCRIPT = String.raw`
import json, sys
from octet_extension import (tool_result, Diagnostic, DiagnosticLocation, DiagnosticSpan, WorkspaceSource,
                             BlobSource, ArtifactSource, DiagnosticRelated, DiagnosticFix, DiagnosticEdit,
                             DiagnosticAttachment)
from octet_extension.diagnostics import project_diagnostics

blob = {"$blob": "tok-1", "bytes": 2048, "digest": {"algorithm": "sha256", "value": "ab" * 32},
        "media_type": "text/plain"}
src = WorkspaceSource("src/solver.py", revision="abc123")
full = Diagnostic(
    "error", "solver.nonconvergent", "Operating point did not converge.\nTry a smaller step.",
    primary=DiagnosticLocation(src, DiagnosticSpan(10, 14)),
    related=(DiagnosticRelated("Limit set here.", DiagnosticLocation(WorkspaceSource("cfg/a.toml"))),
             DiagnosticRelated("Trace\tof the run.", DiagnosticLocation(ArtifactSource("art-1"), DiagnosticSpan(0, 5))),
             DiagnosticRelated("Raw dump.", DiagnosticLocation(BlobSource(blob)))),
    fixes=(DiagnosticFix("Raise the limit",
                         (DiagnosticEdit(src, DiagnosticSpan(10, 14), "2000"),
                          DiagnosticEdit(WorkspaceSource("cfg/a.toml", "r2"), DiagnosticSpan(3, 3), ""))),
           DiagnosticFix("Use the default", (DiagnosticEdit(src, DiagnosticSpan(0, 0), "# default\n"),))),
    attachments=(DiagnosticAttachment(ArtifactSource("art-1"), title="Solver trace"),
                 DiagnosticAttachment(BlobSource(blob)),
                 DiagnosticAttachment(ArtifactSource("art-2"))),
)
diags = [full,
         Diagnostic("warning", "ts/2322", "Type mismatch.", primary=DiagnosticLocation(ArtifactSource("art-3"))),
         Diagnostic("info", "blob.note", "In the blob.",
                    primary=DiagnosticLocation(BlobSource(blob), DiagnosticSpan(1, 2))),
         Diagnostic("hint", "h:1", "No location.")]
diags += [Diagnostic("info", "extra.%d" % i, "Extra %d." % i) for i in range(7)]
if sys.argv[1] == "long":
    diags = [Diagnostic("warning", "long.%d" % i, "\u00e9" * 2000) for i in range(4)]
r = tool_result("Validation failed.", is_error=True, diagnostics=diags)
wire = r["metadata"]["octet_diagnostics_v1"]
print(json.dumps({"result": r, "projection": project_diagnostics(wire)}))
`;

function runPython(mode: string): {
  result: { content: string; is_error: boolean; metadata: Record<string, unknown> };
  projection: string;
} {
  const r = spawnSync("python3", ["-c", SCRIPT, mode], { encoding: "utf8", env: { ...process.env, PYTHONPATH: SDK } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test(
  "DIAG-06, DIAG-01: diagnostics built with every record kind by the Python SDK pass the shared TS " +
    "validateDiagnostics unchanged",
  () => {
    const { result } = runPython("full");
    const raw = result.metadata[DIAGNOSTICS_METADATA_KEY];
    const checked = validateDiagnostics(raw);
    assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("\n"));
    // Nothing was dropped or renamed on the way: the validator's normalized value is the wire value.
    assert.deepEqual(checked.value, raw);
    const first = checked.value[0]!;
    assert.deepEqual(first.fixes?.[0]?.edits[0], {
      location: {
        source: { kind: "workspace", path: "src/solver.py", revision: "abc123" },
        span: { start: 10, end: 14 },
      },
      new_text: "2000",
    });
    assert.deepEqual(
      first.attachments?.map((a) => [a.label, a.source.kind]),
      [
        ["Solver trace", "artifact"],
        [`blob ${"ab".repeat(6)}`, "blob"],
        ["artifact art-2", "artifact"],
      ],
    );
    assert.equal(first.related?.length, 3);
    assert.equal(checked.value.length, 11);
  },
);

test(
  "DIAG-06, DIAG-03: the Python projection is diagnosticsProjection() " +
    "of the same records, in the result text once",
  () => {
    for (const mode of ["full", "long"]) {
      const { result, projection } = runPython(mode);
      const checked = validateDiagnostics(result.metadata[DIAGNOSTICS_METADATA_KEY]);
      assert.ok(checked.ok);
      const expected = diagnosticsProjection(checked.value);
      assert.equal(projection, expected, mode);
      assert.equal(result.content, `Validation failed.\n\n${expected}`);
      assert.equal(result.content.split("Diagnostics (").length, 2);
      if (mode === "full") {
        assert.match(
          expected,
          new RegExp(
            String.raw`^- error solver\.nonconvergent: Operating point did not converge\. Try a ` +
              String.raw`smaller step\. \[src\/solver\.py@abc123 bytes 10-14\]$`,
            "m",
          ),
        );
        assert.match(expected, /^- \+3 more in metadata\.octet_diagnostics_v1$/m);
      } else {
        assert.ok(Buffer.byteLength(expected) <= 4096 && expected.endsWith("..."));
      }
    }
  },
);
