"""Typed tools at registration: decorator forms, generated schemas, refusals, schema bounds.

Requirement IDs are in the test names and docstrings (PY-11, PY-12, PY-13, PY-16, PY-17, PY-18).
"""
import dataclasses
import enum
import json
import sys
import typing
import unittest
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from octet_extension.typed import TypedResult, TypedToolError

from _typed_support import OUTPUT_SCHEMA_KEYWORDS, FakeExtension, schema_keywords

SAFE = 2**53 - 1


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1


class Empty(enum.Enum):
    pass


@dataclass
class Point:
    x: float
    y: float


@dataclass
class Everything:
    s: str
    b: bool
    i: int
    f: float
    xs: List[int]
    p: Point
    maybe: Optional[str]
    color: Color
    mode: Literal["fast", "slow"]
    nested: list[list[Point]] = field(default_factory=list)
    note: Optional[str] = "hi"


@dataclass
class Node:
    value: int
    next: Optional["Node"] = None


@dataclass
class A:
    b: Optional["B"] = None


@dataclass
class B:
    a: Optional[A] = None


@dataclass
class Args:
    n: int


def compact_size(schema):
    return len(json.dumps(schema, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class RegistrationTest(unittest.TestCase):
    def setUp(self):
        self.ext = FakeExtension()

    def refuse(self, fn_factory, *fragments):
        with self.assertRaises(TypedToolError) as caught:
            fn_factory()
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))
        return str(caught.exception)

    def test_PY_11_decorator_with_arguments_and_plain_form(self):
        """PY-11: @ext.typed_tool(name, description, summary=) and bare @ext.typed_tool both register and return the
        function."""

        def handler(args: Args) -> int:
            return args.n

        decorated = self.ext.typed_tool(name="count", description="Count", summary=lambda v: "Counted %d." % v)(handler)
        self.assertIs(decorated, handler)
        self.assertEqual(self.ext.definition("count")["description"], "Count")

        @self.ext.typed_tool
        def plain(args: Args) -> TypedResult[int]:
            """Return n as a typed result."""
            return TypedResult(args.n, "Done.")

        self.assertEqual(self.ext.definition("plain")["description"], "Return n as a typed result.")
        self.assertEqual(plain(Args(3)), TypedResult(3, "Done."))  # still an ordinary function

    def test_PY_11_context_is_optional_second_parameter(self):
        """PY-11: a handler may take the ambient context as a second parameter; the runtime's ctx is passed through."""
        seen = []

        @self.ext.typed_tool(name="ctx", description="d", summary=lambda v: "ok")
        def with_ctx(args: Args, ctx) -> int:
            seen.append(ctx)
            return args.n

        marker = object()
        result = self.ext.tools["ctx"][1]({"n": 1}, marker)
        self.assertEqual(result["structured_content"], 1)
        self.assertIs(seen[0], marker)

    def test_PY_12_definition_carries_both_generated_schemas(self):
        """PY-12: the input schema and output schema are generated at registration into the wire definition."""
        @self.ext.typed_tool(name="all", description="All types", summary=lambda v: "ok")
        def all_types(value: Everything) -> Everything:
            return value

        d = self.ext.definition("all")
        self.assertEqual(set(d), {"name", "description", "parameters", "output_schema"})
        params, out = d["parameters"], d["output_schema"]
        self.assertEqual(params["type"], "object")
        self.assertFalse(params["additionalProperties"])
        self.assertEqual(params["required"], ["s", "b", "i", "f", "xs", "p", "maybe", "color", "mode"])
        # Output always carries every field.
        self.assertEqual(out["required"], [f.name for f in dataclasses.fields(Everything)])
        self.assertLessEqual(schema_keywords(out), OUTPUT_SCHEMA_KEYWORDS)
        self.assertLessEqual(schema_keywords(params), OUTPUT_SCHEMA_KEYWORDS)

    def test_PY_13_schema_of_each_supported_type(self):
        """PY-13: str, bool, portable int, finite float, list[T], dataclass, Optional[T], string Enum, string
        Literal."""

        @self.ext.typed_tool(name="all", description="All types", summary=lambda v: "ok")
        def all_types(value: Everything) -> Everything:
            return value

        props = self.ext.definition("all")["parameters"]["properties"]
        self.assertEqual(props["s"], {"type": "string"})
        self.assertEqual(props["b"], {"type": "boolean"})
        self.assertEqual(props["i"], {"type": "integer", "minimum": -SAFE, "maximum": SAFE})
        self.assertEqual(props["f"], {"type": "number"})
        self.assertEqual(props["xs"], {"type": "array", "items": props["i"]})
        self.assertEqual(props["p"]["properties"], {"x": {"type": "number"}, "y": {"type": "number"}})
        self.assertFalse(props["p"]["additionalProperties"])
        self.assertEqual(props["maybe"], {"anyOf": [{"type": "string"}, {"type": "null"}]})
        self.assertEqual(props["color"], {"type": "string", "enum": ["red", "green"]})
        self.assertEqual(props["mode"], {"type": "string", "enum": ["fast", "slow"]})
        self.assertEqual(props["nested"]["default"], [])
        self.assertEqual(props["note"]["default"], "hi")

    @unittest.skipIf(sys.version_info < (3, 10), "X | None needs Python 3.10")
    def test_PY_13_pipe_none_is_optional(self):
        """PY-13: `T | None` (Python 3.10+) is Optional[T]."""
        ns: Dict[str, Any] = {}
        exec("from dataclasses import dataclass\n@dataclass\nclass P:\n    s: 'str | None'\n", ns)

        def h(value: ns["P"]) -> int:  # type: ignore[valid-type]
            return 1

        self.ext.typed_tool(h, name="pipe", description="d", summary=lambda v: "ok")
        self.assertEqual(self.ext.definition("pipe")["parameters"]["properties"]["s"],
                         {"anyOf": [{"type": "string"}, {"type": "null"}]})

    def test_PY_16_defaults_evaluated_and_validated_at_registration(self):
        """PY-16: defaults and factories run once at registration, and an invalid default fails registration."""
        calls = []

        def factory():
            calls.append(1)
            return [Point(1, 2)]

        @dataclass
        class WithFactory:
            points: List[Point] = field(default_factory=factory)


        def h(value: WithFactory) -> int:
            return len(value.points)

        self.ext.typed_tool(h, name="f", description="d", summary=lambda v: "ok")
        self.assertEqual(len(calls), 1)
        self.assertEqual(
            self.ext.definition("f")["parameters"]["properties"]["points"]["default"], [{"x": 1.0, "y": 2.0}]
        )

        @dataclass
        class BadDefault:
            n: int = "three"  # type: ignore[assignment]

        def bad(value: BadDefault) -> int:
            return 1
        self.refuse(lambda: self.ext.typed_tool(bad, name="bad", description="d", summary=lambda v: "ok"),
                    "invalid default", "BadDefault.n", "expected an integer")

        @dataclass
        class BoolForInt:
            n: int = True

        def bad2(value: BoolForInt) -> int:
            return 1

        self.refuse(
            lambda: self.ext.typed_tool(bad2, name="bad2", description="d", summary=lambda v: "ok"), "invalid default"
        )

        def boom():
            raise RuntimeError("no")

        @dataclass
        class Raising:
            xs: List[int] = field(default_factory=boom)

        def bad3(value: Raising) -> int:
            return 1

        self.refuse(
            lambda: self.ext.typed_tool(bad3, name="bad3", description="d", summary=lambda v: "ok"),
            "default_factory raised",
        )
        self.assertNotIn("bad", self.ext.tools)

    def test_PY_17_unsupported_annotations_fail_loudly(self):
        """PY-17: maps, tuples, recursive types, general unions, unannotated types fail registration, naming parameter
        and type."""
        cases = [
            (Dict[str, int], "maps are not typed values"),
            (dict, "maps"),
            (typing.Mapping[str, int], "maps"),
            (Tuple[int, int], "tuples"),
            (tuple, "tuples"),
            (Union[int, str], "general union"),
            (Optional[Union[int, str]], "general union"),
            (Any, "Any"),
            (set, "not a supported typed value"),
            (bytes, "not a supported typed value"),
            (list, "write list[T]"),
            (Level, "string values"),
            (Empty, "string values"),
            (Literal[1, 2], "Literal values must all be strings"),
            (Literal["a", True], "Literal values must all be strings"),
            (type(None), "Optional[T]"),
        ]
        for i, (tp, why) in enumerate(cases):
            with self.subTest(tp=tp):
                rec = dataclasses.make_dataclass("Rec%d" % i, [("field_%d" % i, tp)])

                def h(value: rec) -> int:  # type: ignore[valid-type]
                    return 1

                message = self.refuse(
                    lambda: self.ext.typed_tool(h, name="t%d" % i, description="d", summary=lambda v: "ok"),
                    why,
                    "parameter 'value'",
                    "Rec%d.field_%d" % (i, i),
                )
                self.assertIn("typed tool 't%d'" % i, message)
        self.assertEqual(self.ext.tools, {})

    def test_PY_17_recursive_records_fail(self):
        """PY-17: directly and mutually recursive dataclasses fail registration."""
        def h(value: Node) -> int:
            return 1

        self.refuse(
            lambda: self.ext.typed_tool(h, name="r", description="d", summary=lambda v: "ok"), "recursive", "Node"
        )

        def h2(value: A) -> int:
            return 1

        self.refuse(lambda: self.ext.typed_tool(h2, name="r2", description="d", summary=lambda v: "ok"), "recursive")

    def test_PY_17_handler_shapes_that_fail(self):
        """PY-17: async handlers, unannotated parameters or returns, non-dataclass arguments and odd signatures fail."""
        reg = lambda fn, **kw: self.ext.typed_tool(fn, name="x", description="d", **({"summary": lambda v: "ok"} | kw))

        async def async_handler(value: Args) -> int:
            return 1
        self.refuse(lambda: reg(async_handler), "async")

        def gen(value: Args) -> int:
            yield 1
        self.refuse(lambda: reg(gen), "generators")

        def unannotated(value) -> int:
            return 1
        self.refuse(lambda: reg(unannotated), "parameter 'value'", "unannotated")

        def no_return(value: Args):
            return 1
        self.refuse(lambda: reg(no_return), "return value is unannotated")

        def returns_none(value: Args) -> None:
            return None
        self.refuse(lambda: reg(returns_none), "return", "Optional[T]")

        def returns_dict(value: Args) -> dict:
            return {}
        self.refuse(lambda: reg(returns_dict), "return", "maps")

        def returns_optional(value: Args) -> Optional[int]:
            return 1
        self.refuse(lambda: reg(returns_optional), "cannot be null")

        def takes_int(value: int) -> int:
            return 1
        self.refuse(lambda: reg(takes_int), "parameter 'value'", "int is not a dataclass")

        def takes_list(value: List[Args]) -> int:
            return 1
        self.refuse(lambda: reg(takes_list), "not a dataclass")

        def three(value: Args, ctx, extra) -> int:
            return 1
        self.refuse(lambda: reg(three), "one dataclass argument")

        def kwonly(value: Args, *, ctx=None) -> int:
            return 1
        self.refuse(lambda: reg(kwonly), "one dataclass argument")

        def no_summary(value: Args) -> int:
            return 1
        self.refuse(lambda: self.ext.typed_tool(no_summary, name="x", description="d"), "summary=")

        def typed_result_and_summary(value: Args) -> TypedResult[int]:
            return TypedResult(1, "s")
        self.refuse(lambda: reg(typed_result_and_summary), "omit summary=")

        def bare_typed_result(value: Args) -> TypedResult:
            return TypedResult(1, "s")
        self.refuse(lambda: self.ext.typed_tool(bare_typed_result, name="x", description="d"), "TypedResult[T]")

        @dataclass
        class NoInit:
            a: int
            b: int = field(init=False, default=0)

        def no_init(value: NoInit) -> int:
            return 1
        self.refuse(lambda: reg(no_init), "init=False")

        @dataclass
        class WithInitVar:
            a: int
            scale: dataclasses.InitVar[int] = 1

        def initvar(value: WithInitVar) -> int:
            return 1
        self.refuse(lambda: reg(initvar), "InitVar")

        self.refuse(
            lambda: self.ext.typed_tool(no_summary, name="bad name", description="d", summary=lambda v: "ok"),
            "name must match",
        )
        self.refuse(
            lambda: self.ext.typed_tool(no_summary, name="x", description="  ", summary=lambda v: "ok"), "description"
        )
        self.assertEqual(self.ext.tools, {})

    def test_PY_18_schema_bytes_at_limit_and_one_past(self):
        """PY-18: a generated schema of exactly 64 KiB registers; one byte more fails."""
        def build(n):
            rec = dataclasses.make_dataclass("Big", [("v", Literal[("x" * n,)])])

            def h(value: rec) -> int:  # type: ignore[valid-type]
                return 1
            return h

        base_ext = FakeExtension()
        base_ext.typed_tool(build(0), name="b", description="d", summary=lambda v: "ok")
        base = compact_size(base_ext.definition("b")["parameters"])
        self.ext.typed_tool(build(65536 - base), name="at", description="d", summary=lambda v: "ok")
        self.assertEqual(compact_size(self.ext.definition("at")["parameters"]), 65536)
        self.refuse(
            lambda: self.ext.typed_tool(build(65537 - base), name="past", description="d", summary=lambda v: "ok"),
            "schema of 65537 bytes, over the 65536-byte limit",
        )

    def test_PY_18_schema_depth_at_limit_and_one_past(self):
        """PY-18: schema nesting of 32 levels registers; 33 fails (the TDEF-05 schema depth)."""
        def chain(records):
            cls = dataclasses.make_dataclass("L0", [("v", int)])
            for k in range(1, records):
                cls = dataclasses.make_dataclass("L%d" % k, [("c", cls)])

            def h(value: cls) -> int:  # type: ignore[valid-type]
                return 1
            return h

        self.ext.typed_tool(
            chain(31), name="at", description="d", summary=lambda v: "ok"
        )  # 31 records + the int: 32 levels
        self.refuse(lambda: self.ext.typed_tool(chain(32), name="past", description="d", summary=lambda v: "ok"),
                    "33 levels, over the 32-level limit")

    def test_PY_18_property_name_bytes_at_limit_and_one_past(self):
        """PY-18: field names (schema property names) of 256 bytes register; 257 fail."""
        for name, ok in (("a" * 256, True), ("é" * 128, True), ("a" * 257, False), ("é" * 128 + "a", False)):
            rec = dataclasses.make_dataclass("Named", [(name, int)])

            def h(value: rec) -> int:  # type: ignore[valid-type]
                return 1
            ext = FakeExtension()
            with self.subTest(bytes=len(name.encode())):
                if ok:
                    ext.typed_tool(h, name="n", description="d", summary=lambda v: "ok")
                    self.assertIn(name, ext.definition("n")["parameters"]["properties"])
                else:
                    with self.assertRaisesRegex(TypedToolError, "field name is 257 bytes, over the 256-byte limit"):
                        ext.typed_tool(h, name="n", description="d", summary=lambda v: "ok")


if __name__ == "__main__":
    unittest.main()
