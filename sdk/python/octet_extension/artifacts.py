"""Publishing image or audio bytes to the host (W 2.8, artifact/publish), mirroring
sdk/typescript/src/artifacts.ts. The SDK computes size and SHA-256 itself and picks the source:
bytes up to the 256 KiB inline bound travel inline as base64; larger bytes are written to a
private file in OCTET_EXTENSION_SCRATCH, published by path and removed once the host answered
(it keeps its own snapshot). A path source is a file the extension already wrote under the
scratch directory, given relative to it.

Refused here, before anything is sent, with an error naming the value and the limit: API 0.1, a
host that did not negotiate `artifacts`, a non-canonical MIME type, an oversized artifact, a bad
path, or a call outside an active tool/call or command/execute.
"""
import base64
import hashlib
import os
import secrets as _random
from typing import Any, Dict, Optional, Union

from ._bounds import MAX_ARTIFACT_BYTES, MAX_ARTIFACT_ID_BYTES, MAX_ARTIFACT_INLINE_BYTES, MAX_ARTIFACT_PATH_BYTES
from .errors import ErrorCode, WireError
from .peer import Link
from .reverse import parent_of, send
from .scope import RequestScope

__all__ = ["publish_artifact", "MIME_TYPES"]

#: Canonical MIME type -> kind (ART-10); aliases are refused with the canonical name.
MIME_TYPES = {
    "image/png": "image", "image/jpeg": "image", "image/gif": "image", "image/webp": "image",
    "audio/wav": "audio", "audio/mpeg": "audio", "audio/flac": "audio", "audio/opus": "audio",
    "audio/aac": "audio", "audio/mp4": "audio",
}
_ALIASES = {
    "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png", "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav", "audio/mp3": "audio/mpeg", "audio/x-mp3": "audio/mpeg",
    "audio/mpeg3": "audio/mpeg", "audio/x-flac": "audio/flac", "audio/ogg": "audio/opus", "audio/x-aac": "audio/aac",
    "audio/aacp": "audio/aac", "audio/x-m4a": "audio/mp4", "audio/m4a": "audio/mp4",
}


def _scratch() -> str:
    scratch = os.environ.get("OCTET_EXTENSION_SCRATCH")
    if not scratch:
        raise RuntimeError(
            "publish_artifact() needs OCTET_EXTENSION_SCRATCH, which the host sets for every extension process; it "
            "is not set"
        )
    return scratch


def _check_size(n: int) -> None:
    if n > MAX_ARTIFACT_BYTES:
        raise ValueError(f"publish_artifact(): {n} bytes, over the {MAX_ARTIFACT_BYTES}-byte artifact limit")


def _check_path(path: str) -> str:
    if not isinstance(path, str) or not path:
        raise TypeError("publish_artifact() path must be a non-empty str relative to OCTET_EXTENSION_SCRATCH")
    n = len(path.encode("utf-8", "surrogatepass"))
    if n > MAX_ARTIFACT_PATH_BYTES:
        raise ValueError(f"publish_artifact() path is {n} bytes, over the {MAX_ARTIFACT_PATH_BYTES}-byte limit")
    if path.startswith("/") or any(part in ("", ".", "..") for part in path.split("/")):
        raise ValueError(
            f"publish_artifact() path {path[:64]!r} must be relative to OCTET_EXTENSION_SCRATCH, without empty, . or "
            ".. components"
        )
    return path


async def publish_artifact(
    scope: RequestScope,
    link: Link,
    source: Union[bytes, bytearray, memoryview, Dict[str, str]],
    mime_type: str,
    *,
    alt: Optional[str] = None,
    transcript: Optional[str] = None,
) -> Dict[str, Any]:
    """Returns {"artifact_id", "mime_type", "part"}: `part` is the content part that names the
    artifact in a tool result."""
    if link.api == "0.1":
        raise RuntimeError("publish_artifact() needs API 0.2 or later (artifact/publish is not part of API 0.1)")
    if "artifacts" not in link.features:
        raise RuntimeError(
            "publish_artifact() needs the artifacts feature, which this host did not offer (a host offers it when "
            "its embedder binds an artifacts service)"
        )
    parent = parent_of(scope, "publish_artifact")
    kind = MIME_TYPES.get(mime_type) if isinstance(mime_type, str) else None
    if kind is None:
        hint = _ALIASES.get(mime_type.lower()) if isinstance(mime_type, str) else None
        advice = f'; use the canonical "{hint}"' if hint else f"; expected one of {', '.join(MIME_TYPES)}"
        raise ValueError(f"publish_artifact(): mime_type {mime_type!r} is not a supported artifact type{advice}")
    temp: Optional[str] = None
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            _check_size(len(data))
            if len(data) <= MAX_ARTIFACT_INLINE_BYTES:
                where: Dict[str, Any] = {"data": {"encoding": "base64", "data": base64.b64encode(data).decode("ascii")}}
            else:
                name = f".octet-artifact-{_random.token_hex(12)}"
                # O_EXCL: never write through a file someone else put there; 0o600: nobody else reads it.
                fd = os.open(os.path.join(_scratch(), name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                temp = name
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                where = {"path": name}
        elif isinstance(source, dict) and isinstance(source.get("path"), str):
            path = _check_path(source["path"])
            with open(os.path.join(_scratch(), path), "rb") as f:
                data = f.read(MAX_ARTIFACT_BYTES + 1)
            _check_size(len(data))
            where = {"path": path}
        else:
            raise TypeError("publish_artifact() takes the bytes, or {'path': ...} relative to OCTET_EXTENSION_SCRATCH")
        params = {"parent_request_id": parent, "mime_type": mime_type, "size": len(data),
                  "sha256": hashlib.sha256(data).hexdigest(), **where}
        try:
            answer = await send(scope, link, "artifact/publish", params)
        except WireError as err:
            if err.code == ErrorCode.INVALID_PARAMS:
                raise RuntimeError(f"the host refused artifact/publish: {err.message}") from err
            raise
        artifact_id = answer.get("artifact_id") if isinstance(answer, dict) else None
        if (
            not isinstance(answer, dict)
            or set(answer) != {"artifact_id"}
            or not isinstance(artifact_id, str)
            or not artifact_id.strip()
            or len(artifact_id.encode("utf-8", "surrogatepass")) > MAX_ARTIFACT_ID_BYTES
        ):
            raise RuntimeError("the host answered artifact/publish with an invalid result: expected {artifact_id}")
        part: Dict[str, Any] = {"type": kind, "artifact_id": artifact_id, "mime_type": mime_type}
        if kind == "image" and alt is not None:
            part["alt"] = alt
        if kind == "audio" and transcript is not None:
            part["transcript"] = transcript
        return {"artifact_id": artifact_id, "mime_type": mime_type, "part": part}
    finally:
        if temp is not None:
            try:
                os.unlink(os.path.join(_scratch(), temp))
            except OSError:
                pass
