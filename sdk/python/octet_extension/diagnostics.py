"""Typed diagnostics in tool results: the records, their wire profile and the text projection.

A result carries diagnostics in the reserved `metadata.octet_diagnostics_v1`: a JSON array of at
most 32 closed Diagnostic records, at most 64 KiB encoded (DIAG-01, DIAG-02). This module owns
- the author-facing records (Diagnostic and the location, source, fix and attachment records);
- turning records into wire dicts, checked by the one profile check (_diagnostics_profile.py)
  that also checks raw reserved metadata an author supplied (PY-24);
- the plain-text projection (first eight diagnostics, at most 4096 UTF-8 bytes) added once to the
  text content (DIAG-03), and the result helpers tool_result() and with_diagnostics().
It leaves out authority: references and fixes are data. The host checks blob and artifact
authority and never treats a fix as permission to edit (DIAG-04, DIAG-05).

The spec leaves per-field shapes and bounds to a "shared SDK contract" it does not include; the
GAP defaults used here (DIAG-06) are written down in docs/decisions.md.
"""
import dataclasses
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._diagnostics_profile import (DIAGNOSTICS_KEY, SEVERITIES, DiagnosticsError, check_diagnostics_wire,
                                   _check_attachment, _check_diagnostic, _check_edit, _check_fix,
                                   _check_location, _check_related, _check_source, _check_span)
from ._json_bounds import Limits, Problems, Violation, measure
from ._typed_bounds import (MAX_DIAGNOSTIC_LABEL_BYTES, MAX_DIAGNOSTICS_PROJECTED, MAX_DIAGNOSTICS_PROJECTION_BYTES,
                            MAX_METADATA_BYTES, MAX_METADATA_KEY_BYTES, MAX_VALUE_DEPTH, MAX_VALUE_NODES)

__all__ = ["DIAGNOSTICS_KEY", "SEVERITIES", "DiagnosticsError", "check_diagnostics_wire", "DiagnosticSpan",
           "WorkspaceSource", "BlobSource", "ArtifactSource", "DiagnosticLocation", "DiagnosticRelated",
           "DiagnosticEdit", "DiagnosticFix", "DiagnosticAttachment", "Diagnostic", "diagnostics_to_wire",
           "project_diagnostics", "tool_result", "with_diagnostics", "normalize_result"]

_ABSENT: Any = object()
_METADATA_LIMITS = Limits(MAX_METADATA_BYTES, MAX_VALUE_DEPTH, MAX_VALUE_NODES, max_key_bytes=MAX_METADATA_KEY_BYTES)


# --- Records (PY-23) -------------------------------------------------------------------------------

def _validated(record: Any, check: Any, name: str) -> None:
    p = Problems()
    check(p, name, record.to_wire())
    if p:
        raise DiagnosticsError(p.lines())


def _wire_of(v: Any, types: Any, path: str) -> Dict[str, Any]:
    if not isinstance(v, types):
        names = "/".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise TypeError("%s: expected %s, got %s" % (path, names, type(v).__name__))
    return v.to_wire()


@dataclasses.dataclass(frozen=True)
class DiagnosticSpan:
    """A range of UTF-8 byte offsets, start inclusive, end exclusive (start == end: a point)."""

    start: int
    end: int

    def to_wire(self) -> Dict[str, Any]:
        return {"start": self.start, "end": self.end}

    def __post_init__(self) -> None:
        _validated(self, _check_span, "DiagnosticSpan")


@dataclasses.dataclass(frozen=True)
class WorkspaceSource:
    """A workspace-relative file; `revision` only when the tool really knows it."""

    path: str
    revision: Optional[str] = None

    def to_wire(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"kind": "workspace", "path": self.path}
        if self.revision is not None:
            out["revision"] = self.revision
        return out

    def __post_init__(self) -> None:
        _validated(self, _check_source, "WorkspaceSource")


@dataclasses.dataclass(frozen=True)
class BlobSource:
    """An existing BlobRef (the closed bulk descriptor, or an object with to_wire())."""

    blob: Any

    def to_wire(self) -> Dict[str, Any]:
        blob = self.blob.to_wire() if hasattr(self.blob, "to_wire") else self.blob
        return {"kind": "blob", "blob": dict(blob) if isinstance(blob, Mapping) else blob}

    def __post_init__(self) -> None:
        _validated(self, _check_source, "BlobSource")


@dataclasses.dataclass(frozen=True)
class ArtifactSource:
    """An artifact this process published and the host verified."""

    artifact_id: str

    def to_wire(self) -> Dict[str, Any]:
        return {"kind": "artifact", "artifact_id": self.artifact_id}

    def __post_init__(self) -> None:
        _validated(self, _check_source, "ArtifactSource")


Source = Union[WorkspaceSource, BlobSource, ArtifactSource]
_SOURCES = (WorkspaceSource, BlobSource, ArtifactSource)


@dataclasses.dataclass(frozen=True)
class DiagnosticLocation:
    source: Source
    span: Optional[DiagnosticSpan] = None

    def to_wire(self) -> Dict[str, Any]:
        out = {"source": _wire_of(self.source, _SOURCES, "DiagnosticLocation.source")}
        if self.span is not None:
            out["span"] = _wire_of(self.span, DiagnosticSpan, "DiagnosticLocation.span")
        return out

    def __post_init__(self) -> None:
        _validated(self, _check_location, "DiagnosticLocation")


@dataclasses.dataclass(frozen=True)
class DiagnosticRelated:
    message: str
    location: DiagnosticLocation

    def to_wire(self) -> Dict[str, Any]:
        return {
            "message": self.message,
            "location": _wire_of(self.location, DiagnosticLocation, "DiagnosticRelated.location"),
        }

    def __post_init__(self) -> None:
        _validated(self, _check_related, "DiagnosticRelated")


@dataclasses.dataclass(frozen=True)
class DiagnosticEdit:
    """Replace `span` of a workspace file at `source.revision` with `new_text`: a suggestion only.

    Wire form (the shared profile): {"location": {"source": ..., "span": ...}, "new_text": ...}.
    """

    source: WorkspaceSource
    span: DiagnosticSpan
    new_text: str

    def to_wire(self) -> Dict[str, Any]:
        return {"location": {"source": _wire_of(self.source, WorkspaceSource, "DiagnosticEdit.source"),
                             "span": _wire_of(self.span, DiagnosticSpan, "DiagnosticEdit.span")},
                "new_text": self.new_text}

    def __post_init__(self) -> None:
        _validated(self, _check_edit, "DiagnosticEdit")


@dataclasses.dataclass(frozen=True)
class DiagnosticFix:
    title: str
    edits: Sequence[DiagnosticEdit]

    def to_wire(self) -> Dict[str, Any]:
        return {
            "title": self.title,
            "edits": [_wire_of(e, DiagnosticEdit, "DiagnosticFix.edits[]") for e in self.edits],
        }

    def __post_init__(self) -> None:
        object.__setattr__(self, "edits", tuple(self.edits))
        _validated(self, _check_fix, "DiagnosticFix")


@dataclasses.dataclass(frozen=True)
class DiagnosticAttachment:
    """A blob or artifact attached to a diagnostic. Wire form: {"label": ..., "source": ...}.

    The profile requires a label: `title` when given, else one named after the source
    ("artifact <id>" or "blob <first 12 digest hex digits>", as the projection names places),
    cut to the label bound on a character boundary.
    """

    source: Union[BlobSource, ArtifactSource]
    title: Optional[str] = None

    @property
    def label(self) -> str:
        if self.title is not None:
            return self.title
        src = _wire_of(self.source, (BlobSource, ArtifactSource), "DiagnosticAttachment.source")
        if src["kind"] == "artifact":
            name = "artifact " + str(src.get("artifact_id"))
        else:
            blob = src.get("blob")
            digest = blob.get("digest") if isinstance(blob, Mapping) else None
            value = digest.get("value") if isinstance(digest, Mapping) else None
            name = "blob " + value[:12] if isinstance(value, str) else "blob"
        return name.encode("utf-8")[:MAX_DIAGNOSTIC_LABEL_BYTES].decode("utf-8", "ignore")

    def to_wire(self) -> Dict[str, Any]:
        return {"label": self.label,
                "source": _wire_of(self.source, (BlobSource, ArtifactSource), "DiagnosticAttachment.source")}

    def __post_init__(self) -> None:
        _validated(self, _check_attachment, "DiagnosticAttachment")


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: Diagnostic("error", "solver.nonconvergent", "Operating point did not converge.")."""

    severity: str
    code: str
    message: str
    primary: Optional[DiagnosticLocation] = None
    related: Sequence[DiagnosticRelated] = ()
    fixes: Sequence[DiagnosticFix] = ()
    attachments: Sequence[DiagnosticAttachment] = ()

    def to_wire(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"severity": self.severity, "code": self.code, "message": self.message}
        if self.primary is not None:
            out["primary"] = _wire_of(self.primary, DiagnosticLocation, "Diagnostic.primary")
        for key, typ in (
            ("related", DiagnosticRelated),
            ("fixes", DiagnosticFix),
            ("attachments", DiagnosticAttachment),
        ):
            items = getattr(self, key)
            if items:
                out[key] = [_wire_of(x, typ, "Diagnostic.%s[]" % key) for x in items]
        return out

    def __post_init__(self) -> None:
        for key in ("related", "fixes", "attachments"):
            object.__setattr__(self, key, tuple(getattr(self, key)))
        _validated(self, _check_diagnostic, "Diagnostic")


def diagnostics_to_wire(diagnostics: Iterable[Union[Diagnostic, Mapping[str, Any]]]) -> List[Dict[str, Any]]:
    """Records (or raw wire dicts) to the checked `octet_diagnostics_v1` array."""
    if isinstance(diagnostics, (str, bytes, Mapping, Diagnostic)):
        raise TypeError("diagnostics must be a sequence of Diagnostic records, got %s" % type(diagnostics).__name__)
    raw = [
        d.to_wire() if isinstance(d, Diagnostic) else (dict(d) if isinstance(d, Mapping) else d) for d in diagnostics
    ]
    return check_diagnostics_wire(raw, "diagnostics")


# --- Projection (DIAG-03) --------------------------------------------------------------------------

def _place(location: Dict[str, Any]) -> str:
    """locationText() of the shared profile: path[@revision], "blob <12 hex>" or "artifact <id>",
    then " bytes start-end" when there is a span."""
    src = location["source"]
    if src["kind"] == "workspace":
        text = src["path"] + ("@" + src["revision"] if src.get("revision") is not None else "")
    elif src["kind"] == "blob":
        text = "blob " + src["blob"]["digest"]["value"][:12]
    else:
        text = "artifact " + src["artifact_id"]
    span = location.get("span")
    if span is not None:
        text += " bytes %d-%d" % (span["start"], span["end"])
    return text


def project_diagnostics(wire: Sequence[Dict[str, Any]]) -> str:
    """The plain-text projection of checked diagnostics, word for word diagnosticsProjection() of
    the shared profile (DIAG-03): "Diagnostics (N):", then "- severity code: message [place]" for
    the first eight (LF and TAB become spaces), then "- +K more in metadata.octet_diagnostics_v1";
    cut to at most 4096 UTF-8 bytes on a character boundary, ending "...". Empty for none."""
    if not wire:
        return ""
    lines = ["Diagnostics (%d):" % len(wire)]
    for d in wire[:MAX_DIAGNOSTICS_PROJECTED]:
        where = " [%s]" % _place(d["primary"]) if d.get("primary") else ""
        line = "- %s %s: %s%s" % (d["severity"], d["code"], d["message"], where)
        lines.append(line.replace("\n", " ").replace("\t", " "))
    rest = len(wire) - MAX_DIAGNOSTICS_PROJECTED
    if rest > 0:
        lines.append("- +%d more in metadata.%s" % (rest, DIAGNOSTICS_KEY))
    text = "\n".join(lines)
    encoded = text.encode("utf-8")
    if len(encoded) <= MAX_DIAGNOSTICS_PROJECTION_BYTES:
        return text
    cut = encoded[:MAX_DIAGNOSTICS_PROJECTION_BYTES - len("...")].decode("utf-8", "ignore")
    return cut + "..."


# --- Results ------------------------------------------------------------------------------------------

def _parts(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return [dict(part) if isinstance(part, Mapping) else part for part in content]
    raise TypeError("content must be a str or a list of content parts, got %s" % type(content).__name__)


def _ends_with(content: Any, projection: str) -> bool:
    if isinstance(content, str):
        return content.endswith(projection)
    last = content[-1] if content else None
    return isinstance(last, dict) and last.get("type") == "text" and isinstance(last.get("text"), str) \
        and last["text"].endswith(projection)


def _without(content: Any, projection: str) -> Any:
    """`content` with a trailing projection removed (the one a previous call added)."""
    if not projection or not _ends_with(content, projection):
        return content
    if isinstance(content, str):
        return content[: len(content) - len(projection)].rstrip("\n")
    last = content[-1]
    if last["text"] == projection:
        return content[:-1]
    return content[:-1] + [dict(last, text=last["text"][: len(last["text"]) - len(projection)].rstrip("\n"))]


def _with(content: Any, projection: str) -> Any:
    """`content` with the projection added once at its end."""
    if not projection or _ends_with(content, projection):
        return content
    if isinstance(content, str):
        return projection if content == "" else content + "\n\n" + projection
    return content + [{"type": "text", "text": projection}]


def _check_metadata(metadata: Dict[str, Any]) -> None:
    bounded = measure(metadata, _METADATA_LIMITS, "metadata")
    if isinstance(bounded, Violation):
        raise DiagnosticsError(["%s: %s" % (bounded.path, bounded.message)])


def tool_result(content: Any, *, is_error: bool = False, structured_content: Any = _ABSENT,
                metadata: Optional[Mapping[str, Any]] = None,
                diagnostics: Iterable[Union[Diagnostic, Mapping[str, Any]]] = ()) -> Dict[str, Any]:
    """An explicit tool result dict, with diagnostics in reserved metadata and projected to text.

    `metadata` may carry other members; it may carry `octet_diagnostics_v1` itself only when
    `diagnostics` is empty (then it is checked like any raw reserved metadata, PY-24).
    """
    if not isinstance(is_error, bool):
        raise TypeError("is_error must be a bool, got %s" % type(is_error).__name__)
    result: Dict[str, Any] = {"content": _parts(content), "is_error": is_error}
    if structured_content is not _ABSENT:
        result["structured_content"] = structured_content
    if metadata is not None:
        if not isinstance(metadata, Mapping):
            raise TypeError("metadata must be a mapping, got %s" % type(metadata).__name__)
        result["metadata"] = dict(metadata)
    wire = diagnostics_to_wire(diagnostics)
    if wire:
        if DIAGNOSTICS_KEY in result.get("metadata", {}):
            raise DiagnosticsError(
                ["metadata.%s is reserved; pass diagnostics= or the raw member, not both" % DIAGNOSTICS_KEY]
            )
        result.setdefault("metadata", {})[DIAGNOSTICS_KEY] = wire
    return normalize_result(result)


def with_diagnostics(result: Any, diagnostics: Iterable[Union[Diagnostic, Mapping[str, Any]]]) -> Dict[str, Any]:
    """A copy of `result` (a str or a result dict) with `diagnostics` added after any it has.

    The projection is rebuilt, never stacked: one projection of all diagnostics ends the text.
    """
    if isinstance(result, str):
        result = {"content": result}
    if not isinstance(result, Mapping):
        raise TypeError("result must be a str or a result dict, got %s" % type(result).__name__)
    out = dict(result)
    out["content"] = _parts(out.get("content", ""))
    metadata = dict(out.get("metadata") or {})
    existing: List[Dict[str, Any]] = []
    if metadata.get(DIAGNOSTICS_KEY) is not None:
        existing = check_diagnostics_wire(metadata[DIAGNOSTICS_KEY])
        out["content"] = _without(out["content"], project_diagnostics(existing))
    combined = check_diagnostics_wire(existing + diagnostics_to_wire(diagnostics))
    if combined:
        metadata[DIAGNOSTICS_KEY] = combined
    if metadata:
        out["metadata"] = metadata
    return normalize_result(out)


def normalize_result(result: Any) -> Any:
    """What every tool result passes before it is sent (the runtime calls this).

    A result without reserved metadata is returned as is. Otherwise the raw reserved member is
    checked (malformed raises DiagnosticsError, PY-24), nulls dropped, the projection added once
    (DIAG-03), and the whole metadata checked against its bounds (64 KiB, 32 levels, 16,384
    nodes, 256-byte keys).
    """
    if not isinstance(result, Mapping):
        return result
    metadata = result.get("metadata")
    if not isinstance(metadata, Mapping) or DIAGNOSTICS_KEY not in metadata:
        return result
    out = dict(result)
    metadata = dict(metadata)
    raw = metadata[DIAGNOSTICS_KEY]
    if raw is None:
        del metadata[DIAGNOSTICS_KEY]
        out["metadata"] = metadata
        return out
    wire = check_diagnostics_wire(raw)
    metadata[DIAGNOSTICS_KEY] = wire
    out["metadata"] = metadata
    _check_metadata(metadata)
    out["content"] = _with(_parts(out.get("content", "")), project_diagnostics(wire))
    return out
