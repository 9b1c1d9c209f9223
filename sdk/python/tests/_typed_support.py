"""Test support for typed tools and diagnostics: a stand-in for the runtime's Extension.

Only what typed.py relies on: `_register_tool(definition, handler)` (recorded), `typed_tool`
delegating to octet_extension.typed.typed_tool as the real Extension will, a `cancellation`
object, and a `run()` that does nothing. Handlers are driven directly with argument dicts.
"""
import inspect
import json

from octet_extension.typed import typed_tool


class Cancelled(Exception):
    """What the fake cancellation raises; the runtime's own exception plays this role."""


class FakeCancellation:
    def __init__(self):
        self.cancelled = False

    def raise_if_cancelled(self):
        if self.cancelled:
            raise Cancelled("cancelled")


class FakeExtension:
    def __init__(self, api_version="0.4", max_concurrent_requests=1):
        self.api_version = api_version
        self.tools = {}
        self.cancellation = FakeCancellation()
        self.ran = False

    def _register_tool(self, definition, handler):
        assert definition["name"] not in self.tools, "duplicate tool " + definition["name"]
        # Exactly what would go on the wire: JSON-serializable, NaN-free.
        json.dumps(definition, allow_nan=False)
        self.tools[definition["name"]] = (definition, handler)

    def typed_tool(self, *args, **kwargs):
        return typed_tool(self, *args, **kwargs)

    def run(self):
        self.ran = True

    def definition(self, name):
        return self.tools[name][0]

    def call(self, name, arguments, ctx=None):
        """Calls the registered handler as the runtime would, through a JSON round trip. It must
        be a plain function: the runtime then runs it on a worker thread like any `def` handler,
        where the author's blocking code and helpers belong (issue 13.1)."""
        arguments = json.loads(json.dumps(arguments))
        handler = self.tools[name][1]
        assert not inspect.iscoroutinefunction(handler), "a typed tool's handler must not run on the event loop"
        result = handler(arguments, ctx)
        json.dumps(result, allow_nan=False)  # the result must be sendable as is
        return result


def text_of(result):
    content = result["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part.get("type") == "text")


def schema_accepts(schema, value):
    """A small checker of the keyword subset typed schemas use, to test values against them."""
    if "anyOf" in schema:
        if not any(schema_accepts(s, value) for s in schema["anyOf"]):
            return False
    t = schema.get("type")
    if t == "string" and not isinstance(value, str):
        return False
    if t == "boolean" and not isinstance(value, bool):
        return False
    if t == "null" and value is not None:
        return False
    if t == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
        return False
    if t == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return False
    if "minimum" in schema and value < schema["minimum"]:
        return False
    if "maximum" in schema and value > schema["maximum"]:
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if t == "array":
        if not isinstance(value, list):
            return False
        return all(schema_accepts(schema["items"], v) for v in value)
    if t == "object":
        if not isinstance(value, dict):
            return False
        props = schema.get("properties", {})
        if any(k not in value for k in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and any(k not in props for k in value):
            return False
        return all(schema_accepts(props[k], v) for k, v in value.items() if k in props)
    return True


OUTPUT_SCHEMA_KEYWORDS = {
    "$schema", "title", "description", "default", "examples", "type", "properties", "required",
    "additionalProperties", "items", "enum", "const", "allOf", "anyOf", "oneOf", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
    "uniqueItems", "minProperties", "maxProperties",
}  # copied from packages/protocol/src/api/validate-schema.ts


def schema_keywords(schema, out=None):
    out = set() if out is None else out
    out.update(schema)
    for sub in schema.get("properties", {}).values():
        schema_keywords(sub, out)
    for sub in schema.get("anyOf", []):
        schema_keywords(sub, out)
    if isinstance(schema.get("items"), dict):
        schema_keywords(schema["items"], out)
    return out
