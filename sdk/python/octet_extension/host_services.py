"""``ext.policy`` and ``ext.secrets`` (W 2.9, W 2.10), mirroring sdk/typescript/src/host-services.ts:
asking the host whether an operation may happen, and for a secret the manifest declares. Both are
operation-scoped reverse requests from the active tool/call or command/execute handler (found
through the ambient request) carrying its id as parent_request_id.

Each refuses locally, before anything is sent, when the feature was not negotiated (the host did
not bind the service, or, for secrets, the manifest declares none), so an author sees "not
offered" rather than a wire error. Selecting a feature grants nothing; the host decides.
"""
import re
from typing import Any, Callable, Dict, Optional, Sequence

from ._bounds import (
    APPROVAL_TOKEN_HEX_CHARS,
    MAX_POLICY_DATA_CLASS_BYTES,
    MAX_POLICY_DATA_CLASSES,
    MAX_POLICY_LABEL_BYTES,
    MAX_POLICY_OPERATION_BYTES,
    MAX_POLICY_ORIGIN_BYTES,
    MAX_SECRET_NAME_BYTES,
    MAX_SECRET_VALUE_BYTES,
)
from .errors import ErrorCode, WireError
from .peer import Link
from .reverse import parent_of, send
from .scope import RequestScope, current_scope

__all__ = ["Policy", "Secrets"]

_DECISIONS = ("allow", "deny", "ask")
_TOKEN = re.compile(r"^[0-9a-f]{%d}$" % APPROVAL_TOKEN_HEX_CHARS)


def _active(link: Optional[Link], what: str):
    if link is None:
        raise RuntimeError(f"{what}() is available only after the host initialized the extension")
    if link.api == "0.1":
        raise RuntimeError(f"{what}() needs API 0.2 or later")
    scope = current_scope()
    if scope is None:
        raise RuntimeError(
            f"{what}() must be called from a tool/call or command/execute handler (no request is running here)"
        )
    return scope, link


def _bounded(what: str, value: Any, limit: int) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{what} must be a non-empty str, got {value!r}")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"{what} is {n} bytes, over the {limit}-byte limit")
    return value


def _intent(
    operation: str, target: Dict[str, str], data_classes: Sequence[str], read_only: bool, destructive: bool
) -> Dict[str, Any]:
    _bounded("policy.evaluate() operation", operation, MAX_POLICY_OPERATION_BYTES)
    if not isinstance(target, dict):
        raise TypeError("policy.evaluate() target must be a dict with origin and label")
    classes = list(data_classes)
    if len(classes) > MAX_POLICY_DATA_CLASSES:
        raise ValueError(
            f"policy.evaluate() data_classes has {len(classes)} entries, over the limit of {MAX_POLICY_DATA_CLASSES}"
        )
    for c in classes:
        _bounded("policy.evaluate() data class", c, MAX_POLICY_DATA_CLASS_BYTES)
    return {
        "kind": "external_side_effect",
        "operation": operation,
        "target": {"origin": _bounded("policy.evaluate() target origin", target.get("origin"), MAX_POLICY_ORIGIN_BYTES),
                   "label": _bounded("policy.evaluate() target label", target.get("label"), MAX_POLICY_LABEL_BYTES)},
        "data_classes": classes,
        "adapter_hints": {"read_only": bool(read_only), "destructive": bool(destructive)},
    }


class Policy:
    """policy/evaluate for the running request (API 0.2+, when the host offers policy_intents)."""

    def __init__(self, link: Callable[[], Optional[Link]]) -> None:
        self._link = link

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "policy_intents" in link.features

    @property
    def approvals(self) -> bool:
        link = self._link()
        return link is not None and "approvals" in link.features

    def evaluate(
        self,
        operation: str,
        target: Dict[str, str],
        *,
        data_classes: Sequence[str] = (),
        read_only: bool = False,
        destructive: bool = False,
        approval_token: Optional[str] = None,
    ) -> Any:
        """One policy/evaluate: {"decision": "allow"|"deny"|"ask", "approval_token"?}. Hints can
        only make the host more cautious. Blocking in a synchronous handler; awaitable in an
        `async def` one."""
        scope, link = _active(self._link(), "policy.evaluate")
        if "policy_intents" not in link.features:
            raise RuntimeError(
                "policy.evaluate() needs the policy_intents feature, which the host did not offer (the host binds no "
                "policy service)"
            )
        params: Dict[str, Any] = {"parent_request_id": parent_of(scope, "policy.evaluate"),
                                  "intent": _intent(operation, target, data_classes, read_only, destructive)}
        if approval_token is not None:
            if "approvals" not in link.features:
                raise RuntimeError(
                    "policy.evaluate() with an approval_token needs the approvals feature, which was not negotiated"
                )
            if not isinstance(approval_token, str) or not _TOKEN.match(approval_token):
                raise ValueError(
                    f"policy.evaluate() approval_token must be {APPROVAL_TOKEN_HEX_CHARS} lowercase hex characters"
                )
            params["approval_token"] = approval_token
        return link.call(lambda: _evaluate(scope, link, params))

    def authorize(self, operation: str, target: Dict[str, str], **options: Any) -> Any:
        """evaluate(), and when the answer is an approved "ask", the one retry with its token:
        True only when the host finally says "allow"."""
        scope, link = _active(self._link(), "policy.authorize")

        async def run() -> bool:
            first = await _maybe(self.evaluate(operation, target, **options))
            token = first.get("approval_token")
            if first["decision"] != "ask" or token is None:
                return first["decision"] == "allow"
            second = await _maybe(self.evaluate(operation, target, approval_token=token, **options))
            return second["decision"] == "allow"
        return link.call(run)


async def _maybe(value: Any) -> Any:
    return await value if hasattr(value, "__await__") else value


async def _evaluate(scope: RequestScope, link: Link, params: Dict[str, Any]) -> Dict[str, Any]:
    answer = await send(scope, link, "policy/evaluate", params)
    ok = (
        isinstance(answer, dict)
        and answer.get("decision") in _DECISIONS
        and set(answer) <= {"decision", "approval_token"}
    )
    token = answer.get("approval_token") if ok else None
    if not ok or (token is not None and (not isinstance(token, str) or not _TOKEN.match(token))):
        raise RuntimeError("the host's policy/evaluate answer is invalid: expected {decision, approval_token?}")
    return (
        {"decision": answer["decision"]} if token is None else {"decision": answer["decision"], "approval_token": token}
    )


class Secrets:
    """secret/get for the running request (API 0.2+, when the host offers secrets)."""

    def __init__(self, link: Callable[[], Optional[Link]]) -> None:
        self._link = link

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "secrets" in link.features

    def get(self, name: str) -> Any:
        """The value of a secret named in the manifest's [capabilities].secrets. Raises
        WireError -32004 (ErrorCode.SECRET_UNAVAILABLE) when the host has none for it."""
        scope, link = _active(self._link(), "secrets.get")
        if "secrets" not in link.features:
            raise RuntimeError(
                "secrets.get() needs the secrets feature, which the host did not offer (it binds no secret broker, "
                "or the manifest declares no [capabilities].secrets)"
            )
        if not isinstance(name, str) or not name or not name.isascii() or len(name) > MAX_SECRET_NAME_BYTES:
            raise ValueError(
                f"secrets.get() name must be a non-empty ASCII str of at most {MAX_SECRET_NAME_BYTES} bytes, got "
                f"{name!r}"
            )
        params = {"parent_request_id": parent_of(scope, "secrets.get"), "name": name}

        async def run() -> str:
            answer = await send(scope, link, "secret/get", params)
            value = answer.get("value") if isinstance(answer, dict) else None
            # Never quote the answer: it is (or contains) the secret.
            if (not isinstance(answer, dict) or set(answer) != {"value"} or not isinstance(value, str)
                    or len(value.encode("utf-8", "surrogatepass")) > MAX_SECRET_VALUE_BYTES):
                raise WireError(
                    ErrorCode.SECRET_UNAVAILABLE, "secret_unavailable the host's secret/get answer is malformed"
                )
            return value
        return link.call(run)
