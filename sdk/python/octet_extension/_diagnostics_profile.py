"""The octet_diagnostics_v1 profile check: raw JSON in, normalized JSON out.

One checker for every path (records, raw dicts, raw reserved metadata an author supplied, PY-24):
closed records (DIAG-01), the aggregate bounds (DIAG-02) and the per-field GAP defaults of DIAG-06
(docs/decisions.md, "Python typed tools and diagnostics"). Authority over referenced blobs,
artifacts and workspace files is the host's (DIAG-04); these checks only bound the shapes.
"""
import re
from typing import Any, Dict, List, Optional, Sequence

from ._json_bounds import (
    Limits,
    Problems,
    Violation,
    at,
    compact_json,
    describe,
    index,
    lone_surrogate_at,
    measure,
    plain_text_problem,
    quote,
    utf8_len,
)
from ._typed_bounds import (MAX_BLOB_TOKEN_BYTES,
                            MAX_DIAGNOSTIC_ATTACHMENTS, MAX_DIAGNOSTIC_CODE_BYTES,
                            MAX_DIAGNOSTIC_EDIT_TEXT_BYTES, MAX_DIAGNOSTIC_EDITS, MAX_DIAGNOSTIC_FIXES,
                            MAX_DIAGNOSTIC_LABEL_BYTES, MAX_DIAGNOSTIC_MESSAGE_BYTES,
                            MAX_DIAGNOSTIC_PATH_BYTES, MAX_DIAGNOSTIC_RELATED,
                            MAX_DIAGNOSTIC_REVISION_BYTES,
                            MAX_DIAGNOSTICS, MAX_DIAGNOSTICS_BYTES, MAX_MEDIA_TYPE_BYTES,
                            MAX_SAFE_JSON_INTEGER, MAX_VALUE_DEPTH, MAX_VALUE_NODES)

DIAGNOSTICS_KEY = "octet_diagnostics_v1"
"""The reserved metadata member."""

SEVERITIES = ("error", "warning", "info", "hint")

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The shared profile's DIAGNOSTIC_CODE_PATTERN, e.g. "solver.nonconvergent" or "ts/2322" (fullmatch).
_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*")
# The shared profile's MEDIA_TYPE: lowercase type/subtype (fullmatch).
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")
# JavaScript's \s (the TS validator refuses a revision with any of these).
_JS_SPACE = re.compile(r"[\s\ufeff]")
# Unicode Cc: C0, DEL and C1; a workspace path carries none, not even LF or TAB.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class DiagnosticsError(ValueError):
    """Diagnostics (or raw reserved metadata) that do not fit the profile; `problems` says where."""

    def __init__(self, problems: List[str]):
        super().__init__("invalid diagnostics: " + "; ".join(problems))
        self.problems = problems


def _closed(
    p: Problems, path: str, raw: Any, required: Sequence[str], optional: Sequence[str]
) -> Optional[Dict[str, Any]]:
    if not isinstance(raw, dict):
        p.add(path, "expected an object, got %s" % describe(raw))
        return None
    for key in raw:
        if key not in required and key not in optional:
            p.add(at(path, str(key)), "unknown member (the record is closed)")
    for key in required:
        if raw.get(key) is None:
            p.add(at(path, key), "missing")
    # An optional member sent as null reads as absent, as everywhere on the wire.
    return {k: v for k, v in raw.items() if v is not None}


def _text(p: Problems, path: str, v: Any, max_bytes: int, plain: bool = True) -> None:
    if not isinstance(v, str):
        p.add(path, "expected a string, got %s" % describe(v))
        return
    if v.strip() == "":
        p.add(path, "must not be empty")
        return
    n = utf8_len(v)
    if n > max_bytes:
        p.add(path, "%d bytes, over the %d-byte limit" % (n, max_bytes))
        return
    why = plain_text_problem(v) if plain else None
    if why is None and not plain:
        i = lone_surrogate_at(v)
        why = None if i is None else "lone surrogate at index %d; text must be valid UTF-8" % i
    if why is not None:
        p.add(path, why)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_SAFE_JSON_INTEGER


def _check_span(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("start", "end"), ())
    if obj is None:
        return
    for key in ("start", "end"):
        if key in obj and not _count(obj[key]):
            p.add(at(path, key), "expected a UTF-8 byte offset (integer 0..2^53-1), got %r" % (obj[key],))
    if _count(obj.get("start")) and _count(obj.get("end")) and obj["start"] > obj["end"]:
        p.add(path, "start %d is after end %d" % (obj["start"], obj["end"]))


def _check_path(p: Problems, path: str, v: Any) -> None:
    before = p.count
    _text(p, path, v, MAX_DIAGNOSTIC_PATH_BYTES)
    if p.count != before:
        return
    # Workspace-relative, POSIX separators, no way out: the host checks authority again.
    if v.startswith("/") or re.match(r"^[A-Za-z]:", v):
        p.add(path, "%s is absolute; expected a workspace-relative path" % quote(v))
    elif "\\" in v:
        p.add(path, '%s contains a backslash; use "/" separators' % quote(v))
    elif _CONTROL.search(v):
        p.add(path, "%s contains a control character" % quote(v))
    elif any(part in ("", ".", "..") for part in v.split("/")):
        p.add(path, "%s has an empty, \".\" or \"..\" segment" % quote(v))


def _check_blob_ref(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("$blob", "bytes", "digest", "media_type"), ())
    if obj is None:
        return
    if "$blob" in obj:
        _text(p, at(path, "$blob"), obj["$blob"], MAX_BLOB_TOKEN_BYTES)
    if "bytes" in obj and not _count(obj["bytes"]):
        p.add(at(path, "bytes"), "expected a byte count, got %r" % (obj["bytes"],))
    if "media_type" in obj:
        before = p.count
        _text(p, at(path, "media_type"), obj["media_type"], MAX_MEDIA_TYPE_BYTES)
        if p.count == before and not _MEDIA_TYPE.fullmatch(obj["media_type"]):
            p.add(at(path, "media_type"), "%s is not a lowercase type/subtype media type" % quote(obj["media_type"]))
    digest = _closed(p, at(path, "digest"), obj.get("digest", {}), ("algorithm", "value"), ())
    if digest is not None:
        if "algorithm" in digest and digest["algorithm"] != "sha256":
            p.add(at(path, "digest.algorithm"), 'expected "sha256"')
        if "value" in digest and not (isinstance(digest["value"], str) and _HEX64.match(digest["value"])):
            p.add(at(path, "digest.value"), "expected 64 lowercase hex digits")


def _check_source(p: Problems, path: str, raw: Any, kinds: Sequence[str] = ("workspace", "blob", "artifact")) -> None:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind not in kinds:
        if isinstance(raw, dict):
            p.add(at(path, "kind"), "expected one of %s, got %r" % ("/".join(kinds), kind))
        else:
            p.add(path, "expected a source object, got %s" % describe(raw))
        return
    if kind == "workspace":
        obj = _closed(p, path, raw, ("kind", "path"), ("revision",))
        if obj is not None and "path" in obj:
            _check_path(p, at(path, "path"), obj["path"])
        if obj is not None and "revision" in obj:
            before = p.count
            _text(p, at(path, "revision"), obj["revision"], MAX_DIAGNOSTIC_REVISION_BYTES)
            if p.count == before and _JS_SPACE.search(obj["revision"]):
                p.add(at(path, "revision"), "%s contains whitespace; a revision is one token" % quote(obj["revision"]))
    elif kind == "blob":
        obj = _closed(p, path, raw, ("kind", "blob"), ())
        if obj is not None and "blob" in obj:
            _check_blob_ref(p, at(path, "blob"), obj["blob"])
    else:
        obj = _closed(p, path, raw, ("kind", "artifact_id"), ())
        if obj is not None and "artifact_id" in obj:
            _text(p, at(path, "artifact_id"), obj["artifact_id"], MAX_BLOB_TOKEN_BYTES)


def _check_location(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("source",), ("span",))
    if obj is None:
        return
    if "source" in obj:
        _check_source(p, at(path, "source"), obj["source"])
    if "span" in obj:
        _check_span(p, at(path, "span"), obj["span"])


def _check_list(p: Problems, path: str, raw: Any, limit: int, item: Any, non_empty: bool = False) -> None:
    if not isinstance(raw, list):
        p.add(path, "expected an array, got %s" % describe(raw))
    elif len(raw) > limit:
        p.add(path, "%d entries, over the limit of %d" % (len(raw), limit))
    elif non_empty and not raw:
        p.add(path, "must not be empty")
    else:
        for i, entry in enumerate(raw):
            item(p, index(path, i), entry)


def _check_related(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("message", "location"), ())
    if obj is not None:
        if "message" in obj:
            _text(p, at(path, "message"), obj["message"], MAX_DIAGNOSTIC_MESSAGE_BYTES)
        if "location" in obj:
            _check_location(p, at(path, "location"), obj["location"])


def _check_edit(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("location", "new_text"), ())
    if obj is None:
        return
    if "location" in obj:
        loc_path = at(path, "location")
        before = p.count
        _check_location(p, loc_path, obj["location"])
        loc = obj["location"]
        if p.count == before and isinstance(loc, dict):
            src = loc["source"]
            # A suggested edit is revision-checked: without the revision and span it was computed
            # against, nobody could tell whether it still applies.
            if src.get("kind") != "workspace":
                p.add(at(loc_path, "source.kind"), "an edit applies to a workspace file only")
            elif src.get("revision") is None:
                p.add(
                    at(loc_path, "source.revision"), "missing; an edit must name the revision it was computed against"
                )
            if loc.get("span") is None:
                p.add(at(loc_path, "span"), "missing; an edit replaces a span")
    if "new_text" in obj:
        v = obj["new_text"]
        # Replacement text is file content: any characters (CR, NUL...) but valid UTF-8, and
        # empty means deletion; at most MAX_DIAGNOSTIC_EDIT_TEXT_BYTES.
        if not isinstance(v, str):
            p.add(at(path, "new_text"), "expected a string, got %s" % describe(v))
        elif lone_surrogate_at(v) is not None:
            p.add(at(path, "new_text"), "lone surrogate; text must be valid UTF-8")
        elif utf8_len(v) > MAX_DIAGNOSTIC_EDIT_TEXT_BYTES:
            p.add(
                at(path, "new_text"), "%d bytes, over the %d-byte limit" % (utf8_len(v), MAX_DIAGNOSTIC_EDIT_TEXT_BYTES)
            )


def _check_fix(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("title", "edits"), ())
    if obj is not None:
        if "title" in obj:
            _text(p, at(path, "title"), obj["title"], MAX_DIAGNOSTIC_LABEL_BYTES)
        if "edits" in obj:
            _check_list(p, at(path, "edits"), obj["edits"], MAX_DIAGNOSTIC_EDITS, _check_edit, non_empty=True)


def _check_attachment(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("label", "source"), ())
    if obj is not None:
        if "label" in obj:
            _text(p, at(path, "label"), obj["label"], MAX_DIAGNOSTIC_LABEL_BYTES)
        if "source" in obj:
            _check_source(p, at(path, "source"), obj["source"], kinds=("blob", "artifact"))


def _check_diagnostic(p: Problems, path: str, raw: Any) -> None:
    obj = _closed(p, path, raw, ("severity", "code", "message"), ("primary", "related", "fixes", "attachments"))
    if obj is None:
        return
    if "severity" in obj and obj["severity"] not in SEVERITIES:
        p.add(at(path, "severity"), "expected one of %s, got %r" % ("/".join(SEVERITIES), obj["severity"]))
    if "code" in obj:
        code = obj["code"]
        if isinstance(code, str) and code.strip() == "":
            p.add(at(path, "code"), "must not be empty")
        elif not isinstance(code, str) or not _CODE.fullmatch(code):
            p.add(at(path, "code"), "expected %s, got %s" % (_CODE.pattern,
                  quote(code) if isinstance(code, str) else describe(code)))
        elif len(code) > MAX_DIAGNOSTIC_CODE_BYTES:
            p.add(at(path, "code"), "%d bytes, over the %d-byte limit" % (len(code), MAX_DIAGNOSTIC_CODE_BYTES))
    if "message" in obj:
        _text(p, at(path, "message"), obj["message"], MAX_DIAGNOSTIC_MESSAGE_BYTES)
    if "primary" in obj:
        _check_location(p, at(path, "primary"), obj["primary"])
    if "related" in obj:
        _check_list(p, at(path, "related"), obj["related"], MAX_DIAGNOSTIC_RELATED, _check_related)
    if "fixes" in obj:
        _check_list(p, at(path, "fixes"), obj["fixes"], MAX_DIAGNOSTIC_FIXES, _check_fix)
    if "attachments" in obj:
        _check_list(p, at(path, "attachments"), obj["attachments"], MAX_DIAGNOSTIC_ATTACHMENTS, _check_attachment)


def _strip_nulls(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_strip_nulls(x) for x in v]
    return v


def check_diagnostics_wire(raw: Any, path: str = "metadata." + DIAGNOSTICS_KEY) -> List[Dict[str, Any]]:
    """The profile check of a raw `octet_diagnostics_v1` value; returns it normalized.

    Raises DiagnosticsError naming each problem. Shape is checked first, then the 64 KiB bound
    on the value as given (nulls included, as the TS validateDiagnostics measures it); the
    normalized value drops nulls (they read as absent and are not sent).
    """
    p = Problems()
    if not isinstance(raw, list):
        raise DiagnosticsError(["%s: expected an array of diagnostics, got %s" % (path, describe(raw))])
    if len(raw) > MAX_DIAGNOSTICS:
        raise DiagnosticsError(["%s: %d diagnostics, over the limit of %d" % (path, len(raw), MAX_DIAGNOSTICS)])
    # Depth first, so a hostile nesting cannot make the recursive checks below go deep.
    bounded = measure(raw, Limits(MAX_DIAGNOSTICS_BYTES * 4, MAX_VALUE_DEPTH, MAX_VALUE_NODES), path)
    if isinstance(bounded, Violation):
        raise DiagnosticsError(["%s: %s" % (bounded.path, bounded.message)])
    for i, entry in enumerate(raw):
        _check_diagnostic(p, index(path, i), entry)
    if p:
        raise DiagnosticsError(p.lines())
    normalized = _strip_nulls(raw)
    size = utf8_len(compact_json(raw))
    if size > MAX_DIAGNOSTICS_BYTES:
        raise DiagnosticsError(["%s: %d bytes encoded, over the %d-byte limit" % (path, size, MAX_DIAGNOSTICS_BYTES)])
    return normalized
