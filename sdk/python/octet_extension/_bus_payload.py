"""Payload and name rules of the event bus: what a topic may declare and what a payload may carry.

Owns the bus's error types, its name and payload bounds, the topic grammar ``bus.<owner>.<name>``,
the authority-shaped field names, the PII/secret/private-path value rules, and validate_payload.
Pure functions over plain data; no state, no threads, no I/O. Public names are re-exported by
octet_extension.event_bus, which is where callers import them from.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import re
import unicodedata
from types import MappingProxyType
from typing import Any, Dict, Mapping, Optional, Tuple

# Bounds (all ASCII or UTF-8 bytes). Each has a test at the limit and one past it.
MAX_OWNER_BYTES = 64            # the manifest's extension-name grammar
MAX_TOPIC_NAME_BYTES = 64
MAX_TOPIC_BYTES = len("bus.") + MAX_OWNER_BYTES + 1 + MAX_TOPIC_NAME_BYTES
MAX_FIELDS = 32
MAX_FIELD_NAME_BYTES = 64
MAX_STRING_BYTES = 1024
MAX_PAYLOAD_BYTES = 16 * 1024   # compact JSON of the whole payload
MAX_SAFE_INTEGER = 2**53 - 1    # JSON numbers other runtimes read exactly
FIELD_TYPES = ("string", "integer", "number", "boolean")

_OWNER_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")
_FIELD_RE = re.compile(r"[a-z][a-z0-9_]*")


class EventBusError(Exception):
    """A refused bus operation. ``code`` is a stable local error code (never a wire code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class PayloadRejected(EventBusError):
    """A payload refused by validate_payload. ``rule`` says why; ``field`` is the declared field
    concerned, or None when the offending key was not declared (its text is not repeated, since
    an undeclared key is as much caller data as a value)."""

    def __init__(self, rule: str, field: Optional[str], detail: str) -> None:
        where = f"field {field!r}" if field is not None else "payload"
        super().__init__("payload_rejected", f"{where} refused by rule {rule}: {detail}")
        self.rule = rule
        self.field = field


# ---------------------------------------------------------------------------------------------
# Names: topics and fields

def check_segment(kind: str, text: Any, limit: int, code: str = "invalid_topic") -> str:
    if type(text) is not str:
        raise EventBusError(code, f"{kind} must be a string")
    if len(text) > limit:   # checked before the grammar so the message states the limit
        raise EventBusError(code, f"{kind} is longer than {limit} bytes")
    if not _OWNER_RE.fullmatch(text):
        raise EventBusError(code, f"{kind} must match [a-z0-9][a-z0-9_-]* (1..{limit} bytes)")
    return text


def parse_topic(topic: Any) -> Tuple[str, str]:
    """Split ``bus.<owner>.<name>``; neither part may contain a dot, so the split is unique."""
    if type(topic) is not str:
        raise EventBusError("invalid_topic", "topic must be a string")
    if len(topic) > MAX_TOPIC_BYTES:
        raise EventBusError("invalid_topic", f"topic is longer than {MAX_TOPIC_BYTES} bytes")
    parts = topic.split(".")
    if len(parts) != 3 or parts[0] != "bus":
        raise EventBusError("invalid_topic", "topic must have the form bus.<owner>.<name>")
    return (check_segment("topic owner", parts[1], MAX_OWNER_BYTES),
            check_segment("topic name", parts[2], MAX_TOPIC_NAME_BYTES))


# Authority-shaped field names: credentials, and claims the host alone makes (identity,
# generation, time, permissions). A payload that could carry them invites a subscriber to trust
# them; the envelope already says who published what and when.
_AUTHORITY_WORDS = frozenset((
    "token", "tokens", "password", "passwd", "passphrase", "pwd", "secret", "secrets",
    "credential", "credentials", "auth", "authn", "authz", "authorization", "bearer", "cookie",
    "cookies", "jwt", "apikey", "privkey", "otp", "csrf", "xsrf", "session", "sessionid", "sid",
    "owner", "owners", "publisher", "sender", "generation", "principal", "identity", "impersonate",
    "sudo", "admin", "role", "roles", "permission", "permissions", "scope", "scopes", "capability",
    "capabilities", "grant", "grants", "acl", "uid", "gid",
))
_AUTHORITY_PAIRS = frozenset((
    ("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("signing", "key"),
    ("instance", "id"), ("request", "id"), ("user", "id"), ("published", "at"), ("issued", "at"),
))
_AUTHORITY_NAMES = frozenset(("topic", "sequence", "timestamp", "source", "resource_owner"))
_AUTHORITY_INFIXES = ("password", "passwd", "secret", "apikey", "credential", "cookie", "bearer",
                      "authorization", "privatekey", "accesskey", "sessionid")


def _authority_term(name: str) -> Optional[str]:
    """The authority-shaped term in a field name, or None. Names are already [a-z][a-z0-9_]*."""
    if name in _AUTHORITY_NAMES:
        return name
    words = name.split("_")
    for word in words:
        if word in _AUTHORITY_WORDS:
            return word
    for pair in zip(words, words[1:]):
        if pair in _AUTHORITY_PAIRS:
            return "_".join(pair)
    joined = name.replace("_", "")
    return next((infix for infix in _AUTHORITY_INFIXES if infix in joined), None)


def check_fields(fields: Any) -> Dict[str, str]:
    """A topic's schema: a non-empty mapping of field name to one of FIELD_TYPES."""
    if not isinstance(fields, Mapping):
        raise EventBusError("invalid_schema", "fields must be a mapping of field name to type")
    checked: Dict[str, str] = {}
    for name, kind in fields.items():
        if len(checked) >= MAX_FIELDS:   # counted while iterating: len() of a Mapping may lie
            raise EventBusError("invalid_schema", f"a topic declares at most {MAX_FIELDS} fields")
        if type(name) is not str or len(name) > MAX_FIELD_NAME_BYTES or not _FIELD_RE.fullmatch(name):
            raise EventBusError("invalid_schema",
                                f"field names match [a-z][a-z0-9_]* (1..{MAX_FIELD_NAME_BYTES} bytes)")
        term = _authority_term(name)
        if term is not None:
            raise EventBusError("invalid_schema",
                                f"field {name!r} is authority-shaped ({term!r}); the host owns that")
        if type(kind) is not str or kind not in FIELD_TYPES:
            raise EventBusError("invalid_schema", f"field {name!r} type must be one of {FIELD_TYPES}")
        checked[name] = kind
    if not checked:
        raise EventBusError("invalid_schema", "a topic declares at least one field")
    return checked


# ---------------------------------------------------------------------------------------------
# Values: PII, secrets and private paths. Heuristics, biased to refuse: a publisher whose honest
# value trips one can reshape it; a leaked credential cannot be taken back.

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_PHONE_INTL = re.compile(r"(?<![\w+])\+\d[\d ().-]{6,22}\d(?!\w)")
_PHONE_NANP = re.compile(r"(?<!\w)(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\w)")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
# Issuer prefixes and lengths (Visa, Mastercard, Amex, Diners, Discover, JCB), so that ids and
# millisecond timestamps that happen to pass Luhn are not taken for cards.
_CARD_BRAND = re.compile(r"4\d{12}(?:\d{3}){0,2}|(?:5[1-5]|2[2-7])\d{14}|3[47]\d{13}"
                         r"|3(?:0[0-5]|[689]\d)\d{11}|6(?:011|5\d\d|4[4-9]\d)\d{12}|35\d{14}")
_NATIONAL_ID = re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY")
_BEARER = re.compile(r"(?i)\bbearer\s+(?=\S*[0-9._~+/=-])\S{8,}")
_BASIC = re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{4,}={0,2})")
_TOKEN_PREFIX = re.compile(
    r"(?<![A-Za-z0-9])(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}"
    r"|eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)")
_ASSIGNMENT = re.compile(
    r"(?i)(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth(?:orization)?)"
    r"[\"']?\s*[:=]\s*\S")
_URL_CREDENTIALS = re.compile(r"://[^/\s:@]+:[^/\s@]+@")
_RANDOM_RUN = re.compile(r"[A-Za-z0-9_+/=-]{24,}")
_WORDISH = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PRIVATE_PATH = re.compile(
    r"(?i)(?:(?<![\w.~])~[a-z0-9_-]*(?=[/\\])|\$HOME\b|%USERPROFILE%"
    r"|(?<![\w.-])/(?:home|Users)/[^/\s]|(?<![\w.-])/root(?![\w.-])|(?<![\w.-])/var/root\b"
    r"|\b[a-z]:\\Users\\|(?<![\w.-])/etc/(?:shadow|gshadow|passwd|sudoers)"
    r"|\.ssh(?![\w-])|\.gnupg\b|\.aws[/\\]|\.netrc\b|\.pgpass\b|\.kube[/\\]config|\.docker[/\\]config"
    r"|/proc/(?:\d+|self)/environ|(?:^|[/\\\s])\.env(?:\.[\w-]+)?(?=$|[\s/\\]))")
# C0 controls except TAB and LF, DEL, C1 controls, and bidirectional overrides/isolates (which
# make a rendered value read differently from what it is).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _is_card(digits: str) -> bool:
    return bool(_CARD_BRAND.fullmatch(digits)) and _luhn(digits)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _looks_random(run: str) -> bool:
    """Key-like: upper, lower and digits, high symbol entropy, and no word-sized pieces. Hex
    digests and UUIDs (two character classes) pass: they are ordinary ids in events."""
    if not (any(c.isupper() for c in run) and any(c.islower() for c in run)
            and any(c.isdigit() for c in run)):
        return False
    counts: Dict[str, int] = {}
    for c in run:
        counts[c] = counts.get(c, 0) + 1
    entropy = -sum(n / len(run) * math.log2(n / len(run)) for n in counts.values())
    pieces = _WORDISH.findall(run)
    return entropy >= 3.5 and sum(map(len, pieces)) / len(pieces) < 3.0


def _basic_credentials(encoded: str) -> bool:
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _text_rule(text: str) -> Optional[str]:
    """The first PII/secret/private-path rule a string breaks, or None."""
    if _PRIVATE_KEY.search(text):
        return "secret_private_key"
    if _TOKEN_PREFIX.search(text):
        return "secret_token"
    if _BEARER.search(text) or any(_basic_credentials(m.group(1)) for m in _BASIC.finditer(text)):
        return "secret_bearer"
    if _URL_CREDENTIALS.search(text):
        return "secret_url_credentials"
    if _ASSIGNMENT.search(text):
        return "secret_assignment"
    if any(_looks_random(m.group(0)) for m in _RANDOM_RUN.finditer(text)):
        return "secret_high_entropy"
    if _EMAIL.search(text):
        return "pii_email"
    if any(_is_card(re.sub(r"[ -]", "", m.group(0))) for m in _CARD.finditer(text)):
        return "pii_card"
    if _NATIONAL_ID.search(text):
        return "pii_national_id"
    if _PHONE_NANP.search(text) or any(
            8 <= sum(c.isdigit() for c in m.group(0)) <= 15 for m in _PHONE_INTL.finditer(text)):
        return "pii_phone"
    if _PRIVATE_PATH.search(text):
        return "private_path"
    return None


def _value_error(kind: str, value: Any) -> Optional[Tuple[str, str]]:
    """(rule, detail) when ``value`` is not exactly of ``kind`` within bounds, else None."""
    if kind == "boolean":
        return None if type(value) is bool else ("wrong_type", "expected a boolean")
    if kind == "integer" and type(value) is not int:   # bool, float 3.0 and int subclasses too
        return ("wrong_type", "expected an integer")
    if kind == "number":
        if type(value) not in (int, float):
            return ("wrong_type", "expected a number")
        if type(value) is float and not math.isfinite(value):
            return ("non_finite", "NaN and infinities are not JSON numbers")
    if kind in ("integer", "number"):
        if abs(value) > MAX_SAFE_INTEGER:
            return ("integer_range", f"magnitude above {MAX_SAFE_INTEGER}")
        if type(value) is int and _is_card(str(abs(value))):
            return ("pii_card", "looks like a payment card number")
        return None
    if type(value) is not str:
        return ("wrong_type", "expected a string")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        return ("invalid_unicode", "contains a lone surrogate")
    if size > MAX_STRING_BYTES:
        return ("string_too_long", f"longer than {MAX_STRING_BYTES} UTF-8 bytes")
    if _CONTROL.search(value):
        return ("control_character", "control and bidirectional characters are refused")
    # NFKC folds look-alikes (fullwidth @, digits, slashes) back onto what the rules match.
    rule = _text_rule(value) or _text_rule(unicodedata.normalize("NFKC", value))
    return (rule, "value matches a PII, secret or private-path pattern") if rule else None


def validate_payload(fields: Mapping[str, str], payload: Any) -> Mapping[str, Any]:
    """Check ``payload`` against a topic's ``fields`` and return an immutable copy of it.

    Fail closed: the payload is a plain dict (a flat JSON object) with exactly the declared
    fields (all required, none null), each of its declared type; unknown and authority-shaped
    keys, oversize values, and PII/secret/private-path values raise PayloadRejected.
    """
    schema = check_fields(fields)
    if type(payload) is not dict:   # a Mapping subclass could answer differently on each read
        raise PayloadRejected("not_an_object", None, "the payload must be a plain dict")
    if len(payload) > MAX_FIELDS:
        raise PayloadRejected("too_many_fields", None, f"at most {MAX_FIELDS} fields")
    for key in payload:
        if type(key) is not str or len(key) > MAX_FIELD_NAME_BYTES or not _FIELD_RE.fullmatch(key):
            raise PayloadRejected("field_name", None, "a key is not a valid field name")
        term = _authority_term(key)
        if term is not None:
            raise PayloadRejected("authority_field", None,
                                  f"authority-shaped key ({term!r}); identity and time are host-owned")
        if key not in schema:
            raise PayloadRejected("unknown_field", None, "a key is not declared for this topic")
    for name in schema:
        if name not in payload:
            raise PayloadRejected("missing_field", name, "every declared field is required")
    copy: Dict[str, Any] = {}
    for name, kind in schema.items():
        value = payload[name]
        problem = _value_error(kind, value)
        if problem is not None:
            raise PayloadRejected(problem[0], name, problem[1])
        copy[name] = value
    size = len(json.dumps(copy, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_PAYLOAD_BYTES:
        raise PayloadRejected("payload_too_large", None, f"encoded payload above {MAX_PAYLOAD_BYTES} bytes")
    return MappingProxyType(copy)
