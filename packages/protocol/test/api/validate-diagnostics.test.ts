/**
 * The metadata.octet_diagnostics_v1 profile: closed records, the severity vocabulary, every bound
 * at its limit and one past it, and the plain-text projection (first eight, at most 4096 bytes).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { diagnosticsProjection, validateDiagnostics, type WireDiagnostic } from "../../src/api/validate-diagnostics.js";
import {
  MAX_DIAGNOSTIC_ATTACHMENTS,
  MAX_DIAGNOSTIC_CODE_BYTES,
  MAX_DIAGNOSTIC_EDITS,
  MAX_DIAGNOSTIC_FIXES,
  MAX_DIAGNOSTIC_LABEL_BYTES,
  MAX_DIAGNOSTIC_MESSAGE_BYTES,
  MAX_DIAGNOSTIC_PATH_BYTES,
  MAX_DIAGNOSTIC_RELATED,
  MAX_DIAGNOSTIC_REVISION_BYTES,
  MAX_DIAGNOSTICS,
  MAX_DIAGNOSTICS_BYTES,
  MAX_DIAGNOSTIC_EDIT_TEXT_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";

const D = { severity: "error", code: "solver.nonconvergent", message: "did not converge" };
const WS = { kind: "workspace", path: "src/a.ts", revision: "r1" };
const BLOB = {
  $blob: "tok-1",
  bytes: 1024,
  digest: { algorithm: "sha256", value: "0".repeat(64) },
  media_type: "application/octet-stream",
};
const one = (extra: Record<string, unknown>) => [{ ...D, ...extra }];

test(
  "DIAG-01: a diagnostic needs severity, code and message; primary, related, fixes and attachments are " +
    "optional and closed",
  () => {
    const full = {
      ...D,
      primary: { source: WS, span: { start: 0, end: 4 } },
      related: [{ location: { source: { kind: "artifact", artifact_id: "artifact-1" } }, message: "see plot" }],
      fixes: [{ title: "Rename", edits: [{ location: { source: WS, span: { start: 0, end: 4 } }, new_text: "next" }] }],
      attachments: [{ label: "waveform", source: { kind: "blob", blob: BLOB } }],
    };
    assert.deepEqual(accepted(validateDiagnostics([full])), [full]);
    assert.deepEqual(
      accepted(validateDiagnostics([{ ...D, primary: null, related: null }])),
      [D],
      "null optional members read as absent",
    );
    refused(validateDiagnostics([{ code: "c", message: "m" }]), "[0].severity: missing");
    refused(validateDiagnostics([{ severity: "error", message: "m" }]), "[0].code: missing; expected a string");
    refused(validateDiagnostics([{ severity: "error", code: "c" }]), "[0].message: missing; expected a string");
    refused(validateDiagnostics(one({ extra: 1 })), "[0].extra: unknown member");
    refused(validateDiagnostics(one({ primary: { source: WS, line: 3 } })), "primary.line: unknown member");
    refused(
      validateDiagnostics(one({ primary: { source: { ...WS, url: "x" } } })),
      "primary.source.url: unknown member",
    );
    refused(
      validateDiagnostics(one({ primary: { source: { kind: "blob", blob: { ...BLOB, locator: "/tmp/x" } } } })),
      "blob.locator: unknown member",
    );
    refused(
      validateDiagnostics(one({ related: [{ location: { source: WS }, message: "m", why: 1 }] })),
      "related[0].why: unknown member",
    );
    refused(
      validateDiagnostics(
        one({
          fixes: [
            { title: "t", edits: [{ location: { source: WS, span: { start: 0, end: 1 } }, new_text: "", mode: "x" }] },
          ],
        }),
      ),
      "edits[0].mode: unknown member",
    );
    refused(validateDiagnostics({}), "expected an array, got object");
  },
);

test(
  "DIAG-01: sources are workspace-relative paths, sha256 blob descriptors or artifact ids; attachments " +
    "name blobs or artifacts only",
  () => {
    for (const path of ["/etc/passwd", "C:/x", "a/../b", "./a", "a//b", "a\\b", "a\u0000b"]) {
      refused(validateDiagnostics(one({ primary: { source: { kind: "workspace", path } } })), "primary.source.path");
    }
    refused(
      validateDiagnostics(
        one({
          primary: {
            source: { kind: "blob", blob: { ...BLOB, digest: { algorithm: "sha256", value: "A".repeat(64) } } },
          },
        }),
      ),
      "is not 64 lowercase hex digits",
    );
    refused(
      validateDiagnostics(
        one({
          primary: { source: { kind: "blob", blob: { ...BLOB, digest: { algorithm: "md5", value: "0".repeat(64) } } } },
        }),
      ),
      "digest.algorithm",
    );
    refused(
      validateDiagnostics(one({ primary: { source: { kind: "blob", blob: { ...BLOB, bytes: -1 } } } })),
      "blob.bytes",
      "below the minimum 0",
    );
    refused(
      validateDiagnostics(one({ primary: { source: { kind: "file", path: "a" } } })),
      "source.kind",
      '"file" is not one of',
    );
    refused(
      validateDiagnostics(one({ attachments: [{ label: "l", source: WS }] })),
      "attachments[0].source.kind",
      "not a workspace file",
    );
    refused(validateDiagnostics(one({ primary: { source: { ...WS, revision: "a b" } } })), "contains whitespace");
  },
);

test("DIAG-02: at most 32 diagnostics and 64 KiB encoded: at the limits accepted, one past refused", () => {
  accepted(validateDiagnostics(new Array(MAX_DIAGNOSTICS).fill(D)));
  refused(validateDiagnostics(new Array(MAX_DIAGNOSTICS + 1).fill(D)), "33 diagnostics, over the 32-diagnostic limit");
  // 16 diagnostics whose messages fill the encoded array to exactly 64 KiB.
  const shell = JSON.stringify(new Array(16).fill({ ...D, message: "" })).length;
  const total = MAX_DIAGNOSTICS_BYTES - shell;
  const per = Math.floor(total / 16);
  const list = new Array(16).fill(0).map((_, i) => ({ ...D, message: bytes(i === 0 ? total - per * 15 : per) }));
  assert.equal(JSON.stringify(list).length, MAX_DIAGNOSTICS_BYTES);
  accepted(validateDiagnostics(list));
  list[0] = { ...D, message: `${list[0]!.message}x` };
  refused(validateDiagnostics(list), "65536-byte limit");
});

test(
  "DIAG-06: severity is error, warning, info or hint; code at most 128 bytes of an identifier; message at " +
    "most 4 KiB of plain text",
  () => {
    for (const severity of ["error", "warning", "info", "hint"]) accepted(validateDiagnostics(one({ severity })));
    refused(
      validateDiagnostics(one({ severity: "fatal" })),
      '"fatal" is not one of "error", "warning", "info", "hint"',
    );
    accepted(validateDiagnostics(one({ code: bytes(MAX_DIAGNOSTIC_CODE_BYTES, "c") })));
    refused(
      validateDiagnostics(one({ code: bytes(MAX_DIAGNOSTIC_CODE_BYTES + 1, "c") })),
      "[0].code: 129 bytes, over the 128-byte limit",
    );
    refused(validateDiagnostics(one({ code: "has space" })), "does not match");
    accepted(validateDiagnostics(one({ message: bytes(MAX_DIAGNOSTIC_MESSAGE_BYTES) })));
    refused(
      validateDiagnostics(one({ message: bytes(MAX_DIAGNOSTIC_MESSAGE_BYTES + 1) })),
      "4097 bytes, over the 4096-byte limit",
    );
    accepted(validateDiagnostics(one({ message: "two\nlines\tand a tab" })));
    refused(validateDiagnostics(one({ message: "bell\u0007" })), "control character U+0007");
    refused(validateDiagnostics(one({ message: "cr\r" })), "control character U+000D");
  },
);

test(
  "DIAG-06: spans are [start, end] UTF-8 byte offsets with start <= end; a fix edit names a revision " + "and a span",
  () => {
    accepted(validateDiagnostics(one({ primary: { source: WS, span: { start: 5, end: 5 } } })));
    refused(
      validateDiagnostics(one({ primary: { source: WS, span: { start: 6, end: 5 } } })),
      "end 5 is before start 6",
    );
    refused(
      validateDiagnostics(one({ primary: { source: WS, span: { start: 1.5, end: 5 } } })),
      "span.start: expected an integer",
    );
    refused(validateDiagnostics(one({ primary: { source: WS, span: { start: 0, end: 2 ** 53 } } })), "above 2^53-1");
    const edit = (location: unknown) => one({ fixes: [{ title: "t", edits: [{ location, new_text: "x" }] }] });
    refused(
      validateDiagnostics(edit({ source: { kind: "workspace", path: "a.ts" }, span: { start: 0, end: 1 } })),
      "revision: missing; an edit must name the revision",
    );
    refused(validateDiagnostics(edit({ source: WS })), "span: missing; an edit replaces a span");
    refused(
      validateDiagnostics(edit({ source: { kind: "artifact", artifact_id: "a" }, span: { start: 0, end: 1 } })),
      "an edit applies to a workspace file only",
    );
    refused(validateDiagnostics(one({ fixes: [{ title: "t", edits: [] }] })), "must not be empty");
  },
);

test("DIAG-06: per-record bounds at the limit accepted and one past refused", () => {
  const loc = { source: WS };
  const span = { start: 0, end: 1 };
  const edit = { location: { source: WS, span }, new_text: "x" };
  const cases: [string, (n: number) => unknown, number, string][] = [
    [
      "related",
      (n) => one({ related: new Array(n).fill({ location: loc, message: "m" }) }),
      MAX_DIAGNOSTIC_RELATED,
      "related location limit",
    ],
    [
      "fixes",
      (n) => one({ fixes: new Array(n).fill({ title: "t", edits: [edit] }) }),
      MAX_DIAGNOSTIC_FIXES,
      "fix limit",
    ],
    [
      "edits",
      (n) => one({ fixes: [{ title: "t", edits: new Array(n).fill(edit) }] }),
      MAX_DIAGNOSTIC_EDITS,
      "edit limit",
    ],
    [
      "attachments",
      (n) => one({ attachments: new Array(n).fill({ label: "l", source: { kind: "artifact", artifact_id: "a" } }) }),
      MAX_DIAGNOSTIC_ATTACHMENTS,
      "attachment limit",
    ],
    [
      "path",
      (n) => one({ primary: { source: { kind: "workspace", path: bytes(n, "p") } } }),
      MAX_DIAGNOSTIC_PATH_BYTES,
      "byte limit",
    ],
    [
      "revision",
      (n) => one({ primary: { source: { ...WS, revision: bytes(n, "r") } } }),
      MAX_DIAGNOSTIC_REVISION_BYTES,
      "byte limit",
    ],
    [
      "title",
      (n) => one({ fixes: [{ title: bytes(n, "t"), edits: [edit] }] }),
      MAX_DIAGNOSTIC_LABEL_BYTES,
      "byte limit",
    ],
    [
      "new_text",
      (n) => one({ fixes: [{ title: "t", edits: [{ ...edit, new_text: bytes(n) }] }] }),
      MAX_DIAGNOSTIC_EDIT_TEXT_BYTES,
      "byte limit",
    ],
  ];
  for (const [, make, max, words] of cases) {
    accepted(validateDiagnostics(make(max)));
    refused(validateDiagnostics(make(max + 1)), `${max + 1}`, words);
  }
});

test(
  "DIAG-03: the projection lists the first eight diagnostics, counts the rest, and stays within 4096 " + "UTF-8 bytes",
  () => {
    const diag = (i: number): WireDiagnostic => ({
      severity: i % 2 ? "warning" : "error",
      code: `c.${i}`,
      message: `m${i}\nnext`,
    });
    const text = diagnosticsProjection(new Array(10).fill(0).map((_, i) => diag(i)));
    const lines = text.split("\n");
    assert.equal(lines[0], "Diagnostics (10):");
    assert.equal(lines.length, 1 + 8 + 1);
    assert.equal(lines[1], "- error c.0: m0 next", "a message's LF becomes a space: one line per diagnostic");
    assert.equal(lines[9], "- +2 more in metadata.octet_diagnostics_v1");
    assert.equal(diagnosticsProjection([]), "");
    const long = diagnosticsProjection(new Array(8).fill({ severity: "info", code: "c", message: "é".repeat(2000) }));
    assert.ok(Buffer.byteLength(long) <= 4096 && Buffer.byteLength(long) >= 4094, `${Buffer.byteLength(long)} bytes`);
    assert.ok(long.endsWith("..."));
    // Exactly 4096 bytes is kept whole.
    const header = "Diagnostics (1):\n- info c: ";
    const exact = diagnosticsProjection([{ severity: "info", code: "c", message: bytes(4096 - header.length) }]);
    assert.equal(Buffer.byteLength(exact), 4096);
    assert.ok(!exact.endsWith("..."));
    assert.ok(
      diagnosticsProjection([{ severity: "info", code: "c", message: bytes(4097 - header.length) }]).endsWith("..."),
    );
  },
);
