"""Diagnostics: records, the octet_diagnostics_v1 profile, the text projection, result helpers.

Requirement IDs are in the test names and docstrings (DIAG-01, DIAG-02, DIAG-03, DIAG-06, PY-22,
PY-23, PY-24).
"""
import json
import random
import sys
import types
import unittest
from dataclasses import dataclass
from typing import Optional

import octet_extension
from octet_extension import diagnostics as diag_module
from octet_extension.diagnostics import (DIAGNOSTICS_KEY, ArtifactSource, BlobSource, Diagnostic,
                                         DiagnosticAttachment, DiagnosticEdit, DiagnosticFix,
                                         DiagnosticLocation, DiagnosticRelated, DiagnosticsError,
                                         DiagnosticSpan, WorkspaceSource, check_diagnostics_wire,
                                         normalize_result, project_diagnostics, tool_result,
                                         with_diagnostics)
from octet_extension.typed import TypedResult
from unittest import mock

from _typed_support import FakeExtension, text_of

BLOB = {"$blob": "tok-1", "bytes": 1024, "digest": {"algorithm": "sha256", "value": "0" * 64},
        "media_type": "application/octet-stream"}


def full_diagnostic():
    src = WorkspaceSource("src/solver.py", revision="abc123")
    return Diagnostic(
        "warning",
        "solver.slow",
        "Converged slowly.",
        primary=DiagnosticLocation(src, DiagnosticSpan(10, 14)),
        related=(DiagnosticRelated("Set here.", DiagnosticLocation(WorkspaceSource("cfg/a.toml"))),),
        fixes=(DiagnosticFix("Raise the limit", (DiagnosticEdit(src, DiagnosticSpan(10, 14), "2000"),)),),
        attachments=(
            DiagnosticAttachment(BlobSource(BLOB), title="trace"),
            DiagnosticAttachment(ArtifactSource("art-1")),
        ),
    )


def raw(severity="error", code="c.x", message="m", **extra):
    d = {"severity": severity, "code": code, "message": message}
    d.update(extra)
    return d


class RecordsTest(unittest.TestCase):
    def test_PY_23_exports_and_full_wire_shape(self):
        """PY-23, DIAG-01: the records exist and produce closed wire records with severity/code/message and optional
        parts."""
        for name in (
            "Diagnostic",
            "DiagnosticLocation",
            "DiagnosticSpan",
            "WorkspaceSource",
            "BlobSource",
            "ArtifactSource",
            "DiagnosticRelated",
            "DiagnosticFix",
            "DiagnosticEdit",
            "DiagnosticAttachment",
            "tool_result",
            "with_diagnostics",
        ):
            self.assertTrue(hasattr(diag_module, name), name)
        wire = full_diagnostic().to_wire()
        self.assertEqual(
            wire,
            {
                "severity": "warning",
                "code": "solver.slow",
                "message": "Converged slowly.",
                "primary": {
                    "source": {"kind": "workspace", "path": "src/solver.py", "revision": "abc123"},
                    "span": {"start": 10, "end": 14},
                },
                "related": [
                    {"message": "Set here.", "location": {"source": {"kind": "workspace", "path": "cfg/a.toml"}}}
                ],
                "fixes": [
                    {
                        "title": "Raise the limit",
                        "edits": [
                            {
                                "location": {
                                    "source": {"kind": "workspace", "path": "src/solver.py", "revision": "abc123"},
                                    "span": {"start": 10, "end": 14},
                                },
                                "new_text": "2000",
                            }
                        ],
                    }
                ],
                "attachments": [
                    {"label": "trace", "source": {"kind": "blob", "blob": BLOB}},
                    {"label": "artifact art-1", "source": {"kind": "artifact", "artifact_id": "art-1"}},
                ],
            },
        )
        self.assertEqual(check_diagnostics_wire([wire]), [wire])
        self.assertEqual(Diagnostic("error", "a", "b").to_wire(), {"severity": "error", "code": "a", "message": "b"})

    def test_DIAG_01_required_members_and_closed_records(self):
        """DIAG-01, DIAG-06: severity, code and message are required; unknown members are refused at every level."""
        for missing in ("severity", "code", "message"):
            d = raw()
            del d[missing]
            with self.assertRaisesRegex(DiagnosticsError, r"\[0\]\.%s: missing" % missing):
                check_diagnostics_wire([d])
        full = full_diagnostic().to_wire()
        paths = [
            (),
            ("primary",),
            ("primary", "source"),
            ("primary", "span"),
            ("related", 0),
            ("fixes", 0),
            ("fixes", 0, "edits", 0),
            ("fixes", 0, "edits", 0, "location"),
            ("attachments", 0),
            ("attachments", 0, "source", "blob"),
            ("attachments", 0, "source", "blob", "digest"),
        ]
        for path in paths:
            with self.subTest(path=path):
                d = json.loads(json.dumps(full))
                node = d
                for key in path:
                    node = node[key]
                node["surprise"] = 1
                with self.assertRaisesRegex(DiagnosticsError, "surprise: unknown member"):
                    check_diagnostics_wire([d])

    def test_DIAG_06_field_rules(self):
        """DIAG-06: severity vocabulary, code and message bounds, spans as UTF-8 byte offsets, plain-text control
        handling."""
        for sev in ("error", "warning", "info", "hint"):
            Diagnostic(sev, "c", "m")
        with self.assertRaisesRegex(DiagnosticsError, "severity: expected one of error/warning/info/hint"):
            Diagnostic("fatal", "c", "m")
        Diagnostic("error", "c" * 128, "m")
        with self.assertRaisesRegex(DiagnosticsError, "129 bytes, over the 128-byte limit"):
            Diagnostic("error", "c" * 129, "m")
        for good_code in ("solver.nonconvergent", "ts/2322", "E:1-x_y", "0"):
            Diagnostic("error", good_code, "m")
        # The shared DIAGNOSTIC_CODE_PATTERN: a letter or digit first, then [A-Za-z0-9._:/-].
        for bad_code in ("has space", "tab\t", "é", "-lead", ".lead", "a!b", "a\n", "a#"):
            with self.subTest(code=bad_code), self.assertRaisesRegex(DiagnosticsError, "code: expected"):
                Diagnostic("error", bad_code, "m")
        with self.assertRaisesRegex(DiagnosticsError, "code: must not be empty"):
            Diagnostic("error", "", "m")
        Diagnostic("error", "c", "m" * 4096)
        Diagnostic("error", "c", "é" * 2048)
        with self.assertRaisesRegex(DiagnosticsError, "4097 bytes, over the 4096-byte limit"):
            Diagnostic("error", "c", "m" * 4097)
        with self.assertRaisesRegex(DiagnosticsError, "4097 bytes"):
            Diagnostic("error", "c", "é" * 2048 + "m")
        Diagnostic("error", "c", "line one\n\tline two")
        for bad in ("\x1b[31m", "cr\r", "\x85", "\ud800"):
            with self.assertRaises(DiagnosticsError):
                Diagnostic("error", "c", bad)
        with self.assertRaisesRegex(DiagnosticsError, "must not be empty"):
            Diagnostic("error", "c", "  ")
        DiagnosticSpan(0, 0)
        DiagnosticSpan(5, 2**53 - 1)
        for start, end, why in (
            (3, 2, "after end"),
            (-1, 2, "byte offset"),
            (True, 2, "byte offset"),
            (0, 2**53, "byte offset"),
            (0, 1.0, "byte offset"),
        ):
            with self.assertRaisesRegex(DiagnosticsError, why):
                DiagnosticSpan(start, end)

    def test_DIAG_06_sources_locations_and_fixes(self):
        """DIAG-06: workspace paths are relative, revisions bounded, edits revision-checked, attachments reference blobs
        or artifacts."""
        for bad in ("/etc/passwd", "../up", "a//b", "a/./b", "C:\\x", "a\\b", "", "tab\tname", "line\nname"):
            with self.subTest(path=bad), self.assertRaises(DiagnosticsError):
                WorkspaceSource(bad)
        WorkspaceSource("a" * 4096)
        with self.assertRaises(DiagnosticsError):
            WorkspaceSource("a" * 4097)
        WorkspaceSource("a", revision="r" * 256)
        with self.assertRaisesRegex(DiagnosticsError, "257 bytes"):
            WorkspaceSource("a", revision="r" * 257)
        with self.assertRaisesRegex(DiagnosticsError, "revision contains whitespace|contains whitespace"):
            WorkspaceSource("a", revision="r 1")
        with self.assertRaisesRegex(DiagnosticsError, "revision: missing"):
            DiagnosticEdit(WorkspaceSource("a.py"), DiagnosticSpan(0, 1), "x")
        DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "x" * 16384)
        with self.assertRaisesRegex(DiagnosticsError, "16385 bytes, over the 16384-byte limit"):
            DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "x" * 16385)
        # Raw wire edits use the shared shape {location: {source, span}, new_text}; the old flat
        # {source, span, new_text} is refused, as are an edit without a span or on an artifact.
        ws = {"kind": "workspace", "path": "a.py", "revision": "r1"}
        fix = lambda edit: [raw(fixes=[{"title": "t", "edits": [edit]}])]
        check_diagnostics_wire(fix({"location": {"source": ws, "span": {"start": 0, "end": 1}}, "new_text": "x"}))
        with self.assertRaisesRegex(DiagnosticsError, "source: unknown member"):
            check_diagnostics_wire(fix({"source": ws, "span": {"start": 0, "end": 1}, "new_text": "x"}))
        with self.assertRaisesRegex(DiagnosticsError, "span: missing; an edit replaces a span"):
            check_diagnostics_wire(fix({"location": {"source": ws}, "new_text": "x"}))
        with self.assertRaisesRegex(DiagnosticsError, "an edit applies to a workspace file only"):
            check_diagnostics_wire(fix({"location": {"source": {"kind": "artifact", "artifact_id": "a"},
                                                     "span": {"start": 0, "end": 1}}, "new_text": "x"}))
        # Attachments are {label, source}: label required (1..256 bytes of plain text), no title member.
        art = {"kind": "artifact", "artifact_id": "a"}
        check_diagnostics_wire([raw(attachments=[{"label": "l" * 256, "source": art}])])
        for bad_att, why in (({"source": art}, "label: missing"), ({"label": "l" * 257, "source": art}, "257 bytes"),
                             ({"label": "t", "title": "t", "source": art}, "title: unknown member"),
                             ({"label": "a\rb", "source": art}, "control character")):
            with self.subTest(att=bad_att), self.assertRaisesRegex(DiagnosticsError, why):
                check_diagnostics_wire([raw(attachments=[bad_att])])
        self.assertEqual(DiagnosticAttachment(BlobSource(BLOB)).to_wire()["label"], "blob 000000000000")
        self.assertEqual(
            DiagnosticAttachment(ArtifactSource("x" * 256)).to_wire()["label"], ("artifact " + "x" * 256)[:256]
        )
        with self.assertRaisesRegex(DiagnosticsError, "257 bytes"):
            DiagnosticAttachment(ArtifactSource("x"), title="t" * 257)
        DiagnosticFix("t" * 256, (DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "x"),))
        with self.assertRaisesRegex(DiagnosticsError, "257 bytes"):
            DiagnosticFix("t" * 257, (DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "x"),))
        with self.assertRaisesRegex(DiagnosticsError, "media_type"):
            BlobSource(dict(BLOB, media_type="Text/Plain"))
        DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "")  # deletion
        DiagnosticEdit(WorkspaceSource("a.py", "r1"), DiagnosticSpan(0, 1), "crlf\r\n")
        with self.assertRaisesRegex(DiagnosticsError, "edits: must not be empty"):
            DiagnosticFix("t", ())
        with self.assertRaisesRegex(DiagnosticsError, "digest.value: expected 64 lowercase hex"):
            BlobSource(dict(BLOB, digest={"algorithm": "sha256", "value": "A" * 64}))
        with self.assertRaises(TypeError):
            DiagnosticAttachment(WorkspaceSource("a.py"))
        with self.assertRaises(TypeError):
            DiagnosticLocation("src/a.py")
        ArtifactSource("a" * 256)
        with self.assertRaises(DiagnosticsError):
            ArtifactSource("a" * 257)

    def test_DIAG_06_per_diagnostic_list_bounds_at_limit_and_one_past(self):
        """DIAG-06: related at most 16, fixes 8, attachments 8 (the shared bounds.ts profile), edits per
        fix 32; one more is refused."""
        loc = DiagnosticLocation(WorkspaceSource("a.py"))
        rel = DiagnosticRelated("r", loc)
        edit = DiagnosticEdit(WorkspaceSource("a.py", "r"), DiagnosticSpan(0, 0), "x")
        fix = DiagnosticFix("t", (edit,))
        att = DiagnosticAttachment(ArtifactSource("x"))
        Diagnostic("info", "c", "m", related=(rel,) * 16, fixes=(fix,) * 8, attachments=(att,) * 8)
        DiagnosticFix("t", (edit,) * 32)
        for kwargs, n, limit in (
            ({"related": (rel,) * 17}, 17, 16),
            ({"fixes": (fix,) * 9}, 9, 8),
            ({"attachments": (att,) * 9}, 9, 8),
        ):
            with (
                self.subTest(kwargs=list(kwargs)),
                self.assertRaisesRegex(DiagnosticsError, f"{n} entries, over the limit of {limit}"),
            ):
                Diagnostic("info", "c", "m", **kwargs)
        with self.assertRaisesRegex(DiagnosticsError, "33 entries, over the limit of 32"):
            DiagnosticFix("t", (edit,) * 33)


class ProfileBoundsTest(unittest.TestCase):
    def test_DIAG_02_count_at_limit_and_one_past(self):
        """DIAG-02: at most 32 diagnostics per result."""
        self.assertEqual(len(check_diagnostics_wire([raw()] * 32)), 32)
        with self.assertRaisesRegex(DiagnosticsError, "33 diagnostics, over the limit of 32"):
            check_diagnostics_wire([raw()] * 33)
        tool_result("x", diagnostics=[Diagnostic("info", "c", "m")] * 32)
        with self.assertRaises(DiagnosticsError):
            tool_result("x", diagnostics=[Diagnostic("info", "c", "m")] * 33)

    def test_DIAG_02_total_bytes_at_limit_and_one_past(self):
        """DIAG-02: at most 64 KiB encoded in total (compact JSON of the list)."""
        def listing(total):
            items = [raw(message="m" * 4000) for _ in range(16)]
            base = len(json.dumps(items, separators=(",", ":")))
            items.append(
                raw(message="m" * (total - base - len(json.dumps(raw(message=""), separators=(",", ":"))) - 1))
            )
            return items
        at = listing(65536)
        self.assertEqual(len(json.dumps(at, separators=(",", ":"))), 65536)
        check_diagnostics_wire(at)
        with self.assertRaisesRegex(DiagnosticsError, "65537 bytes encoded, over the 65536-byte limit"):
            check_diagnostics_wire(listing(65537))

    def test_DIAG_02_result_metadata_bound_at_limit_and_one_past(self):
        """DIAG-02: in a result the whole metadata (diagnostics plus other members) stays within its 64 KiB bound."""
        diags = [Diagnostic("info", "c", "m" * 4000) for _ in range(8)]
        base = {"octet_diagnostics_v1": [d.to_wire() for d in diags], "pad": ""}
        pad = 65536 - len(json.dumps(base, separators=(",", ":")))
        result = tool_result("x", metadata={"pad": "p" * pad}, diagnostics=diags)
        self.assertEqual(len(json.dumps(result["metadata"], separators=(",", ":"))), 65536)
        with self.assertRaisesRegex(DiagnosticsError, "over the 65536-byte limit"):
            tool_result("x", metadata={"pad": "p" * (pad + 1)}, diagnostics=diags)


class ProjectionTest(unittest.TestCase):
    def test_DIAG_03_projection_lists_first_eight(self):
        """DIAG-03: the projection shows the first eight diagnostics and counts the rest."""
        wire = [raw(code="c.%d" % i, message="message %d" % i) for i in range(11)]
        text = project_diagnostics(wire)
        lines = text.split("\n")
        self.assertEqual(lines[0], "Diagnostics (11):")
        self.assertEqual(lines[1], "- error c.0: message 0")
        self.assertEqual(len([ln for ln in lines if ln.startswith("- ") and not ln.startswith("- +")]), 8)
        self.assertNotIn("c.8", text)
        self.assertEqual(lines[-1], "- +3 more in metadata.octet_diagnostics_v1")
        self.assertEqual(project_diagnostics([]), "")
        located = full_diagnostic().to_wire()
        self.assertEqual(project_diagnostics([located]).split("\n")[1],
                         "- warning solver.slow: Converged slowly. [src/solver.py@abc123 bytes 10-14]")
        places = [{"source": {"kind": "workspace", "path": "a.py"}},
                  {"source": {"kind": "artifact", "artifact_id": "art-9"}, "span": {"start": 0, "end": 3}},
                  {"source": {"kind": "blob", "blob": BLOB}}]
        self.assertEqual(
            project_diagnostics([raw(code="c", message="one\ntwo\tthree", primary=pl) for pl in places]).split("\n")[
                1:
            ],
            [
                "- error c: one two three [a.py]",
                "- error c: one two three [artifact art-9 bytes 0-3]",
                "- error c: one two three [blob 000000000000]",
            ],
        )

    def test_DIAG_03_projection_at_most_4096_bytes(self):
        """DIAG-03: the projection is at most 4096 UTF-8 bytes, cut on a character boundary."""
        for ch in ("m", "é", "€", "😀"):
            wire = [raw(message=ch * (4096 // len(ch.encode()))) for _ in range(8)]
            text = project_diagnostics(wire)
            self.assertLessEqual(len(text.encode("utf-8")), 4096)
            self.assertGreater(len(text.encode("utf-8")), 4090)
            self.assertTrue(text.endswith("..."))
        short = project_diagnostics([raw(message="m" * 100)])
        self.assertFalse(short.endswith("..."))

    def test_DIAG_03_projection_appended_once(self):
        """DIAG-03: the projection is appended to the text content and never duplicated."""
        d = [Diagnostic("error", "solver.nonconvergent", "Operating point did not converge.")]
        r = tool_result("Validation failed.", is_error=True, diagnostics=d)
        expected = project_diagnostics([d[0].to_wire()])
        self.assertEqual(r["content"], "Validation failed.\n\n" + expected)
        self.assertEqual(normalize_result(r), r)
        self.assertEqual(normalize_result(normalize_result(r)), r)
        parts = tool_result([{"type": "text", "text": "Failed."}], is_error=True, diagnostics=d)
        self.assertEqual(parts["content"], [{"type": "text", "text": "Failed."}, {"type": "text", "text": expected}])
        self.assertEqual(normalize_result(parts), parts)
        # Adding more rebuilds the one projection rather than stacking a second.
        more = with_diagnostics(r, [Diagnostic("hint", "solver.tip", "Try a smaller step.")])
        self.assertEqual(more["content"].count("Diagnostics ("), 1)
        self.assertIn("Diagnostics (2):", more["content"])
        self.assertTrue(more["content"].startswith("Validation failed.\n\nDiagnostics (2):"))
        more_parts = with_diagnostics(parts, [Diagnostic("hint", "solver.tip", "Try a smaller step.")])
        self.assertEqual(len(more_parts["content"]), 2)
        self.assertEqual(len(more_parts["metadata"][DIAGNOSTICS_KEY]), 2)

    def test_DIAG_03_random_diagnostics_project_within_bounds(self):
        """DIAG-03, DIAG-02: random diagnostic lists (seeded) check, project within 4096 bytes, and normalize
        idempotently."""
        rng = random.Random(1234)
        alphabet = ["a", "é", "€", "😀", " ", "\n", "\t"]
        for _ in range(200):
            n = rng.randint(0, 40)
            wire = [
                raw(
                    severity=rng.choice(["error", "warning", "info", "hint"]),
                    code="c.%d" % i,
                    message="x" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 1500))),
                )
                for i in range(n)
            ]
            try:
                checked = check_diagnostics_wire(wire)
            except DiagnosticsError:
                self.assertTrue(
                    n > 32 or len(json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode()) > 65536
                )
                continue
            text = project_diagnostics(checked)
            self.assertLessEqual(len(text.encode("utf-8")), 4096)
            lines = 0 if n == 0 else min(n, 8) + (1 if n > 8 else 0)
            if text.endswith("..."):  # cut at 4096 bytes: fewer lines, never more
                self.assertLessEqual(text.count("\n"), lines)
            else:
                self.assertEqual(text.count("\n"), lines)
            try:
                r = tool_result("body", diagnostics=checked)
            except DiagnosticsError:
                continue  # the whole metadata passed 64 KiB
            self.assertEqual(normalize_result(r), r)


class ReservedMetadataTest(unittest.TestCase):
    def test_PY_24_malformed_raw_reserved_metadata_rejected(self):
        """PY-24: raw metadata.octet_diagnostics_v1 supplied by the author is checked; malformed is rejected."""
        bad_values = [
            "not a list", {"severity": "error"}, [raw(severity="fatal")], [raw(code="")], [raw(extra=1)],
            [raw(primary={"source": {"kind": "web", "url": "http://x"}})], [raw()] * 33, [1],
        ]
        for bad in bad_values:
            with self.subTest(bad=str(bad)[:40]):
                with self.assertRaises(DiagnosticsError):
                    normalize_result({"content": "x", "metadata": {DIAGNOSTICS_KEY: bad}})
                with self.assertRaises(DiagnosticsError):
                    tool_result("x", metadata={DIAGNOSTICS_KEY: bad})
        with self.assertRaisesRegex(DiagnosticsError, "reserved"):
            tool_result("x", metadata={DIAGNOSTICS_KEY: [raw()]}, diagnostics=[Diagnostic("error", "c", "m")])

    def test_PY_24_wellformed_raw_reserved_metadata_accepted_and_projected(self):
        """PY-24, DIAG-03: well-formed raw reserved metadata is accepted (nulls read as absent) and projected once."""
        r = normalize_result({"content": "x", "metadata": {DIAGNOSTICS_KEY: [raw(primary=None)], "other": 1}})
        self.assertEqual(r["metadata"], {DIAGNOSTICS_KEY: [raw()], "other": 1})
        self.assertIn("- error c.x: m", r["content"])
        plain = {"content": "x", "metadata": {"other": 1}}
        self.assertIs(normalize_result(plain), plain)  # no reserved member: untouched
        self.assertEqual(normalize_result("text"), "text")

    def test_PY_23_tool_result_and_with_diagnostics(self):
        """PY-23: tool_result(..., diagnostics=) and with_diagnostics(result, diagnostics) build checked results."""
        r = tool_result("ok", structured_content={"a": 1}, metadata={"cache": "miss"}, diagnostics=[full_diagnostic()])
        self.assertEqual(r["structured_content"], {"a": 1})
        self.assertEqual(r["metadata"]["cache"], "miss")
        self.assertEqual(r["metadata"][DIAGNOSTICS_KEY], [full_diagnostic().to_wire()])
        self.assertIs(r["is_error"], False)
        w = with_diagnostics("plain text", [Diagnostic("info", "c", "m")])
        self.assertEqual(w["metadata"][DIAGNOSTICS_KEY], [raw(severity="info", code="c")])
        self.assertTrue(w["content"].startswith("plain text\n\nDiagnostics (1):"))
        original = {"content": [{"type": "text", "text": "t"}], "is_error": False}
        with_diagnostics(original, [Diagnostic("info", "c", "m")])
        self.assertEqual(original, {"content": [{"type": "text", "text": "t"}], "is_error": False})  # not mutated
        self.assertEqual(tool_result("x"), {"content": "x", "is_error": False})
        with self.assertRaises(TypeError):
            tool_result("x", diagnostics=Diagnostic("info", "c", "m"))  # one record, not a sequence


# The diagnostics example of the spec, inside a handler annotated -> TypedResult[Record].
SPEC_DIAGNOSTICS_EXAMPLE = '''
from dataclasses import dataclass
from typing import Optional
from octet_extension import Extension, Diagnostic, TypedResult

ext = Extension(api_version="0.4")

@dataclass
class Record:
    name: str
    enabled: bool
    samples: list[float]
    note: Optional[str] = None

@ext.typed_tool(name="solve", description="Solve a record")
def solve(value: Record) -> TypedResult[Record]:
    if not value.enabled:
        # Inside an annotated typed handler:
        return TypedResult(None, "Validation failed.", is_error=True, diagnostics=(
            Diagnostic("error", "solver.nonconvergent", "Operating point did not converge."),
        ))
    return TypedResult(value, "Solved.")
'''


@dataclass
class Rec:
    n: int
    note: Optional[str] = None


class TypedResultTest(unittest.TestCase):
    def run_example(self):
        # A real module in sys.modules (see test_typed_calls.run_spec_example: Python 3.9 needs it).
        module = types.ModuleType("spec_diag_example")
        sys.modules["spec_diag_example"] = module
        ns = module.__dict__
        with mock.patch.object(octet_extension, "Extension", FakeExtension, create=True), \
                mock.patch.object(octet_extension, "Diagnostic", Diagnostic, create=True), \
                mock.patch.object(octet_extension, "TypedResult", TypedResult, create=True):
            exec(compile(SPEC_DIAGNOSTICS_EXAMPLE, "<spec diagnostics example>", "exec"), ns)
        return ns["ext"]

    def test_PY_22_error_without_value_carries_diagnostics(self):
        """PY-22, PY-24, DIAG-03: the spec's TypedResult error omits its value; diagnostics go to reserved metadata and
        the text."""
        ext = self.run_example()
        result = ext.call("solve", {"name": "n", "enabled": False, "samples": []})
        self.assertTrue(result["is_error"])
        self.assertNotIn("structured_content", result)
        self.assertEqual(
            result["metadata"][DIAGNOSTICS_KEY],
            [{"severity": "error", "code": "solver.nonconvergent", "message": "Operating point did not converge."}],
        )
        self.assertEqual(
            text_of(result),
            "Validation failed.\nDiagnostics (1):\n- error solver.nonconvergent: Operating point did not converge.",
        )
        ok = ext.call("solve", {"name": "n", "enabled": True, "samples": [1]})
        self.assertEqual(ok, {"content": [{"type": "text", "text": "Solved."}], "is_error": False,
                              "structured_content": {"name": "n", "enabled": True, "samples": [1.0], "note": None}})

    def test_PY_22_typed_result_rules(self):
        """PY-22, PY-20: success needs a valid value; an error's value, if given, is checked; summary and diagnostics
        are checked."""
        ext = FakeExtension()
        behaviours = {
            "success_none": lambda v: TypedResult(None, "s"),
            "error_with_value": lambda v: TypedResult(Rec(1), "failed", is_error=True),
            "error_bad_value": lambda v: TypedResult(Rec("x"), "failed", is_error=True),
            "not_typed_result": lambda v: Rec(1),
            "bad_summary": lambda v: TypedResult(Rec(1), ""),
            "bad_is_error": lambda v: TypedResult(Rec(1), "s", is_error="yes"),
            "raw_bad_diag": lambda v: TypedResult(
                Rec(1), "s", diagnostics=({"severity": "fatal", "code": "c", "message": "m"},)
            ),
            "warning": lambda v: TypedResult(Rec(1), "done", diagnostics=(Diagnostic("warning", "w.1", "careful"),)),
        }
        for name, make in behaviours.items():
            ext.typed_tool(_handler(make), name=name, description="d")
        r = {name: ext.call(name, {"n": 1}) for name in behaviours}
        self.assertEqual(r["success_none"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_output")
        self.assertEqual(r["error_with_value"]["structured_content"], {"n": 1, "note": None})
        self.assertTrue(r["error_with_value"]["is_error"])
        self.assertEqual(r["error_bad_value"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_output")
        self.assertEqual(r["not_typed_result"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_result")
        self.assertEqual(r["bad_summary"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_summary")
        self.assertEqual(r["bad_is_error"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_result")
        self.assertEqual(r["raw_bad_diag"]["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_diagnostics")
        for name in (
            "success_none",
            "error_bad_value",
            "not_typed_result",
            "bad_summary",
            "bad_is_error",
            "raw_bad_diag",
        ):
            self.assertTrue(r[name]["is_error"], name)
            self.assertNotIn("structured_content", r[name])
        self.assertFalse(r["warning"]["is_error"])
        self.assertEqual(r["warning"]["structured_content"], {"n": 1, "note": None})
        self.assertEqual(text_of(r["warning"]), "done\nDiagnostics (1):\n- warning w.1: careful")


def _handler(make):
    def handler(value: Rec) -> TypedResult[Rec]:
        return make(value)
    return handler


if __name__ == "__main__":
    unittest.main()
