"""Typed tools at call time: decoding, defaults, value bounds, output publication, the spec example.

Requirement IDs are in the test names and docstrings (PY-11..PY-16, PY-18..PY-21).
"""
import enum
import json
import random
import threading
import sys
import types
import unittest
from dataclasses import dataclass, field
from typing import List, Literal, Optional
from unittest import mock

import octet_extension
from octet_extension.diagnostics import DIAGNOSTICS_KEY
from octet_extension.typed import TypedInputError, TypedResult

from _typed_support import Cancelled, FakeExtension, schema_accepts, text_of

SAFE = 2**53 - 1

# The typed example of the Python SDK spec, verbatim; run with a stand-in Extension.
SPEC_ECHO_EXAMPLE = '''
from dataclasses import dataclass
from typing import Optional
from octet_extension import Extension

ext = Extension(api_version="0.4")

@dataclass
class Record:
    name: str
    enabled: bool
    samples: list[float]
    note: Optional[str] = None

@ext.typed_tool(name="echo", description="Echo a typed record",
                summary=lambda value: "Echoed typed record.")
def echo(value: Record) -> Record:
    ext.cancellation.raise_if_cancelled()
    return value

ext.run()
'''


def run_spec_example(source, name="spec_example"):
    # A real module in sys.modules, as a script run by python3 is (__main__): typing.get_type_hints
    # resolves a dataclass's annotations in its module, and Python 3.9 fails without one.
    module = types.ModuleType(name)
    sys.modules[name] = module
    with mock.patch.object(octet_extension, "Extension", FakeExtension, create=True):
        exec(compile(source, "<spec example>", "exec"), module.__dict__)
    return module.__dict__


class Shade(str, enum.Enum):
    LIGHT = "light"
    DARK = "dark"


@dataclass
class Inner:
    label: str
    weight: float = 1.0


@dataclass
class Args:
    count: int
    ratio: float
    flag: bool
    tags: List[str]
    inner: Inner
    shade: Shade
    speed: Literal["fast", "slow"]
    maybe: Optional[int]
    opt_default: Optional[str] = "x"
    items: List[Inner] = field(default_factory=list)
    level: int = 3


VALID = {"count": 1, "ratio": 0.5, "flag": True, "tags": ["a"], "inner": {"label": "l"},
         "shade": "dark", "speed": "fast", "maybe": None}


@dataclass
class Strings:
    xs: List[str]


@dataclass
class Ints:
    xs: List[int]


@dataclass
class Text:
    s: str


class SpecExampleTest(unittest.TestCase):
    def test_PY_12_spec_echo_example_round_trips_its_record(self):
        """PY-11, PY-12: the spec's echo example runs unmodified and round-trips its Record as structured_content."""
        ns = run_spec_example(SPEC_ECHO_EXAMPLE)
        ext = ns["ext"]
        self.assertTrue(ext.ran)
        record = {"name": "probe", "enabled": True, "samples": [1.5, -2.0, 3], "note": None}
        result = ext.call("echo", record)
        self.assertEqual(result["content"], [{"type": "text", "text": "Echoed typed record."}])
        self.assertFalse(result["is_error"])
        self.assertEqual(
            result["structured_content"], {"name": "probe", "enabled": True, "samples": [1.5, -2.0, 3.0], "note": None}
        )
        self.assertNotIn("metadata", result)
        # Omitted note takes its default; the text is the summary, never JSON.
        result = ext.call("echo", {"name": "n", "enabled": False, "samples": []})
        self.assertEqual(result["structured_content"]["note"], None)
        self.assertNotIn("{", text_of(result))
        self.assertTrue(schema_accepts(ext.definition("echo")["output_schema"], result["structured_content"]))

    def test_PY_21_spec_echo_example_reuses_cancellation(self):
        """PY-21: the example's ext.cancellation.raise_if_cancelled() works; the runtime's cancellation exception
        propagates unchanged."""
        ext = run_spec_example(SPEC_ECHO_EXAMPLE)["ext"]
        ext.cancellation.cancelled = True
        with self.assertRaises(Cancelled):
            ext.call("echo", {"name": "n", "enabled": False, "samples": []})


class CallTest(unittest.TestCase):
    def setUp(self):
        self.ext = FakeExtension()
        self.seen = []

        @self.ext.typed_tool(name="args", description="Typed args", summary=lambda v: "Got %d." % v.count)
        def handler(value: Args) -> Args:
            self.seen.append(value)
            return value

    def call(self, **overrides):
        args = dict(VALID)
        args.update(overrides)
        return self.ext.call("args", {k: v for k, v in args.items() if v is not ...})

    def refused(self, **overrides):
        before = len(self.seen)
        with self.assertRaises(TypedInputError) as caught:
            self.call(**overrides)
        self.assertEqual(len(self.seen), before, "the handler ran on refused input")
        self.assertEqual(caught.exception.code, -32602)
        self.assertEqual(caught.exception.to_wire()["code"], -32602)
        return caught.exception.message

    def test_PY_13_values_decode_to_python_types(self):
        """PY-13: decoded values are the annotated Python types (Enum members, dataclasses, lists)."""
        self.call()
        v = self.seen[-1]
        self.assertIsInstance(v, Args)
        self.assertIsInstance(v.inner, Inner)
        self.assertIs(v.shade, Shade.DARK)
        self.assertEqual(v.speed, "fast")
        self.assertEqual((v.level, v.opt_default, v.items), (3, "x", []))

    def test_PY_14_int_becomes_float_and_bools_are_not_numbers(self):
        """PY-14: an int for a float field becomes a float; bools are refused for int and float."""
        result = self.call(ratio=2)
        self.assertIsInstance(self.seen[-1].ratio, float)
        self.assertEqual(result["structured_content"]["ratio"], 2.0)
        self.assertIn("arguments.ratio: expected a number, got a boolean", self.refused(ratio=True))
        self.assertIn("arguments.count: expected an integer, got a boolean", self.refused(count=False))
        self.assertIn(
            "arguments.inner.weight: expected a number, got a string", self.refused(inner={"label": "l", "weight": "1"})
        )
        self.assertIn("expected an integer, got a number", self.refused(count=1.5))
        self.call(count=2.0)  # JSON cannot tell 2 from 2.0
        self.assertEqual(self.seen[-1].count, 2)
        self.assertIs(type(self.seen[-1].count), int)

    def test_PY_14_nan_and_infinity_refused(self):
        """PY-14, PY-13: NaN and Infinity are not finite floats and are refused."""
        for bad in (float("nan"), float("inf"), float("-inf")):
            self.assertIn("not a JSON number", self.refused(ratio=bad))

    def test_PY_14_records_are_closed(self):
        """PY-14: unknown fields are refused, at the root and in nested records."""
        self.assertIn("arguments.extra: unknown field", self.refused(extra=1))
        self.assertIn("arguments.inner.other: unknown field", self.refused(inner={"label": "l", "other": 2}))
        self.assertIn("expected an object", self.refused(inner=["l"]))

    def test_PY_13_enum_literal_and_string_rules(self):
        """PY-13: Enum and Literal take exactly their string values; strings must be valid UTF-8."""
        self.assertIn('expected one of ["light", "dark"]', self.refused(shade="DARK"))
        self.assertIn('expected one of ["fast", "slow"]', self.refused(speed="medium"))
        self.assertIn("expected a string", self.refused(tags=[1]))
        self.assertIn("lone surrogate", self.refused(tags=["\ud800"]))
        self.assertIn("expected an array", self.refused(tags="a"))

    def test_PY_13_portable_integers_at_limit_and_one_past(self):
        """PY-13, PY-18: integers of +-(2^53-1) are accepted, +-2^53 refused, on input and output."""
        self.call(count=SAFE)
        self.call(count=-SAFE)
        self.assertIn("outside the portable range", self.refused(count=SAFE + 1))
        self.assertIn("outside the portable range", self.refused(count=-SAFE - 1))

        @self.ext.typed_tool(name="big", description="d", summary=lambda v: "ok")
        def big(value: Ints) -> int:
            return value.xs[0]
        self.assertEqual(self.ext.call("big", {"xs": [SAFE]})["structured_content"], SAFE)
        out = self.ext.call("big", {"xs": [SAFE]})
        self.assertFalse(out["is_error"])
        # An out-of-range output value is never published.
        self.ext.tools.pop("big")

        @self.ext.typed_tool(name="big", description="d", summary=lambda v: "ok")
        def bigger(value: Ints) -> int:
            return value.xs[0] + 1
        out = self.ext.call("big", {"xs": [SAFE]})
        self.assertTrue(out["is_error"])
        self.assertNotIn("structured_content", out)

    def test_PY_15_optional_permits_null_not_omission(self):
        """PY-15: Optional permits explicit null; omitting it without a default is refused; null never replaces a
        non-null default."""
        self.call(maybe=None)
        self.assertIsNone(self.seen[-1].maybe)
        self.assertIn("arguments.maybe: missing required field", self.refused(maybe=...))
        self.call(opt_default=None)  # Optional with a non-null default: null is a value
        self.assertIsNone(self.seen[-1].opt_default)
        self.assertIn("arguments.level: expected an integer, got null", self.refused(level=None))
        self.assertIn("arguments.items: expected an array, got null", self.refused(items=None))

    def test_PY_16_defaults_decoded_afresh_for_each_call(self):
        """PY-16: omitted fields get their registration-time default, decoded afresh per call (no shared mutable
        state)."""
        self.call()
        self.seen[-1].items.append(Inner("mutated"))
        self.call()
        self.assertEqual(self.seen[-1].items, [])
        self.assertIsNot(self.seen[-2].items, self.seen[-1].items)

        counter = []

        def factory():
            counter.append(1)
            return [Inner("d", 2)]

        @dataclass
        class Fact:
            inners: List[Inner] = field(default_factory=factory)

        @self.ext.typed_tool(name="fact", description="d", summary=lambda v: "ok")
        def fact(value: Fact) -> Fact:
            value.inners[0].label = "changed"
            return value

        first = self.ext.call("fact", {})
        second = self.ext.call("fact", {})
        self.assertEqual(len(counter), 1, "the factory runs once, at registration")
        self.assertEqual(first["structured_content"], second["structured_content"])
        self.assertEqual(second["structured_content"]["inners"], [{"label": "changed", "weight": 2.0}])

    def test_PY_20_invalid_input_refused_before_handler(self):
        """PY-20: input that does not match is refused with -32602 before the handler runs."""
        message = self.refused(count="1", flag="yes")
        self.assertIn("invalid arguments for tool 'args'", message)
        self.assertIn("arguments.count", message)
        with self.assertRaises(TypedInputError) as caught:
            self.ext.call("args", ["not", "an", "object"])
        self.assertIn("expected an object", caught.exception.message)
        self.assertEqual(caught.exception.data["problems"], ["arguments: expected an object, got an array"])
        self.assertEqual(self.seen, [])

    def test_PY_20_invalid_output_never_published_as_success(self):
        """PY-20: a result that does not match its annotation becomes a tool error with diagnostics and no
        structured_content."""
        cases = {
            "wrong_type": lambda v: "not an Args",
            "bool_for_int": lambda v: Args(**dict(vars(v), count=True)),
            "nan": lambda v: Args(**dict(vars(v), ratio=float("nan"))),
            "bad_enum": lambda v: Args(**dict(vars(v), shade="dark")),
            "bad_literal": lambda v: Args(**dict(vars(v), speed="medium")),
            "tuple_for_list": lambda v: Args(**dict(vars(v), tags=("a",))),
            "typed_result_unannotated": lambda v: TypedResult(v, "s"),
        }
        def handler_for(make):
            def handler(value: Args) -> Args:
                return make(value)
            return handler

        for name, make in cases.items():
            with self.subTest(name):
                self.ext.typed_tool(handler_for(make), name=name, description="d", summary=lambda v: "Fine.")
                result = self.ext.call(name, VALID)
                self.assertTrue(result["is_error"])
                self.assertNotIn("structured_content", result)
                self.assertNotIn("Fine.", text_of(result))
                diags = result["metadata"][DIAGNOSTICS_KEY]
                self.assertTrue(all(d["severity"] == "error" for d in diags))
                self.assertIn(diags[0]["code"], ("octet.typed.invalid_output", "octet.typed.invalid_result"))
                self.assertIn("returned an invalid result", text_of(result))
                self.assertIn(diags[0]["code"], text_of(result))  # projected to text (DIAG-03)

    def test_PY_19_summary_bounds_at_limit_and_one_past(self):
        """PY-19: summaries are non-empty plain text of at most 4096 UTF-8 bytes; anything else is not published."""
        cases = [
            ("a" * 4096, True),
            ("é" * 2048, True),
            ("line\n\ttab", True),
            ("a" * 4097, False),
            ("é" * 2048 + "a", False),
            ("", False),
            ("   ", False),
            ("bell\x07", False),
            ("cr\r", False),
            (None, False),
        ]
        for i, (summary, ok) in enumerate(cases):
            with self.subTest(i=i):
                def h(value: Strings) -> int:
                    return 1
                self.ext.typed_tool(h, name="s%d" % i, description="d", summary=lambda v, s=summary: s)
                result = self.ext.call("s%d" % i, {"xs": []})
                self.assertEqual(result["is_error"], not ok)
                if ok:
                    self.assertEqual(text_of(result), summary)
                else:
                    self.assertEqual(result["metadata"][DIAGNOSTICS_KEY][0]["code"], "octet.typed.invalid_summary")
                    self.assertNotIn("structured_content", result)

    def test_PY_21_handler_runs_synchronously_and_exceptions_propagate(self):
        """PY-21: the sync handler runs in the caller's thread within the call; what it raises reaches the runtime
        unchanged."""
        threads = []

        @self.ext.typed_tool(name="where", description="d", summary=lambda v: "ok")
        def where(value: Strings) -> int:
            threads.append(threading.get_ident())
            raise Cancelled("stop")

        with self.assertRaises(Cancelled):
            self.ext.call("where", {"xs": []})
        self.assertEqual(threads, [threading.get_ident()])

        @self.ext.typed_tool(name="summary_raises", description="d", summary=lambda v: 1 / 0)
        def fine(value: Strings) -> int:
            return 1
        with self.assertRaises(ZeroDivisionError):
            self.ext.call("summary_raises", {"xs": []})


class ValueBoundsTest(unittest.TestCase):
    def setUp(self):
        self.ext = FakeExtension()

        @self.ext.typed_tool(name="strings", description="d", summary=lambda v: "ok")
        def strings(value: Strings) -> Strings:
            return value

        @self.ext.typed_tool(name="ints", description="d", summary=lambda v: "ok")
        def ints(value: Ints) -> Ints:
            return value

        @self.ext.typed_tool(name="text", description="d", summary=lambda v: "ok")
        def text(value: Text) -> Text:
            return value

    def test_PY_18_value_bytes_at_limit_and_one_past(self):
        """PY-18: a value of exactly 256 KiB (compact JSON) is accepted; one byte more is refused."""
        def args(total):
            first = "a" * 131072
            base = len(json.dumps({"xs": [first, ""], }, separators=(",", ":")))
            return {"xs": [first, "b" * (total - base)]}

        at = args(262144)
        self.assertEqual(len(json.dumps(at, separators=(",", ":"))), 262144)
        self.assertFalse(self.ext.call("strings", at)["is_error"])
        with self.assertRaisesRegex(TypedInputError, "over the 262144-byte limit"):
            self.ext.call("strings", args(262145))

    def test_PY_18_string_bytes_at_limit_and_one_past(self):
        """PY-18: each string at most 128 KiB of UTF-8: 131072 bytes pass, 131073 are refused (multi-byte counted as
        bytes)."""
        for s, ok in (("a" * 131072, True), ("é" * 65536, True), ("a" * 131073, False), ("é" * 65536 + "a", False)):
            with self.subTest(bytes=len(s.encode())):
                if ok:
                    self.assertEqual(self.ext.call("text", {"s": s})["structured_content"]["s"], s)
                else:
                    with self.assertRaisesRegex(TypedInputError, "string of 131073 bytes, over the 131072-byte limit"):
                        self.ext.call("text", {"s": s})

    def test_PY_18_value_nodes_at_limit_and_one_past(self):
        """PY-18: 16,384 nodes (record + list + 16,382 ints) pass; 16,385 are refused."""
        self.assertFalse(self.ext.call("ints", {"xs": [0] * 16382})["is_error"])
        with self.assertRaisesRegex(TypedInputError, "over the 16384-node limit"):
            self.ext.call("ints", {"xs": [0] * 16383})

    def test_PY_18_value_depth_at_limit_and_one_past(self):
        """PY-18: depth is measured before decoding: 32 levels get a type error, 33 levels the depth error."""
        def nested(levels):
            v = []
            for _ in range(levels - 3):  # the record, xs and v itself are three levels
                v = [v]
            return {"xs": [v]}
        with self.assertRaises(TypedInputError) as at:
            self.ext.call("strings", nested(32))
        self.assertIn("expected a string, got an array", at.exception.message)
        with self.assertRaisesRegex(TypedInputError, "33 levels of nesting, over the 32-level limit"):
            self.ext.call("strings", nested(33))

    def test_PY_18_output_bounds_are_enforced(self):
        """PY-18, PY-20: an output over the value bounds is a tool error, not a published success."""
        @self.ext.typed_tool(name="grow", description="d", summary=lambda v: "ok")
        def grow(value: Ints) -> Ints:
            return Ints(value.xs * 2)
        self.assertFalse(self.ext.call("grow", {"xs": [0] * 8191})["is_error"])  # 1 + 1 + 16382 nodes
        result = self.ext.call("grow", {"xs": [0] * 8192})
        self.assertTrue(result["is_error"])
        self.assertIn("16384-node limit", result["metadata"][DIAGNOSTICS_KEY][0]["message"])
        self.assertNotIn("structured_content", result)


def random_value(rng, depth=0):
    """A random JSON-ish value, including the near misses (bools, floats, NaN-free)."""
    kinds = (
        ["str", "int", "float", "bool", "null", "list", "dict"]
        if depth < 3
        else ["str", "int", "float", "bool", "null"]
    )
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(["", "a", "dark", "light", "fast", "slow", "l", "é", "x" * rng.randint(0, 5)])
    if kind == "int":
        return rng.choice([0, 1, -1, SAFE, SAFE + 1, rng.randint(-1000, 1000)])
    if kind == "float":
        return rng.choice([0.5, -2.25, 1e300, 3.0])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["label", "weight", "x"]): random_value(rng, depth + 1) for _ in range(rng.randint(0, 2))}


def random_args(rng):
    """Valid arguments, then a random mutation in about half the cases."""
    args = {"count": rng.randint(-SAFE, SAFE), "ratio": rng.choice([rng.uniform(-1e9, 1e9), rng.randint(-5, 5)]),
            "flag": rng.random() < 0.5, "tags": [rng.choice(["a", "é", "\t"]) for _ in range(rng.randint(0, 3))],
            "inner": {"label": "l"} if rng.random() < 0.5 else {"label": "m", "weight": rng.uniform(0, 1)},
            "shade": rng.choice(["light", "dark"]), "speed": rng.choice(["fast", "slow"]),
            "maybe": rng.choice([None, rng.randint(0, 9)])}
    if rng.random() < 0.5:
        args["items"] = [{"label": "i%d" % i} for i in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        key = rng.choice(list(args) + ["unknown"])
        args[key] = random_value(rng)
    return args


class PropertyTest(unittest.TestCase):
    def test_PY_13_PY_14_random_arguments_decode_or_refuse_consistently(self):
        """PY-13, PY-14, PY-20: over random arguments (seeded), the decoder accepts exactly what the schema accepts,
        and every accepted value is echoed back as structured content the output schema accepts."""
        ext = FakeExtension()

        @ext.typed_tool(name="args", description="d", summary=lambda v: "ok")
        def echo(value: Args) -> Args:
            return value

        params, out = ext.definition("args")["parameters"], ext.definition("args")["output_schema"]
        rng = random.Random(20240601)
        accepted = refused = 0
        for _ in range(1500):
            args = random_args(rng)
            # Inputs as JSON carries them; the schema checker is the oracle (integral floats are integers).
            expected = schema_accepts(params, args) or schema_accepts(params, _integral(args))
            try:
                result = ext.call("args", args)
            except TypedInputError:
                refused += 1
                self.assertFalse(expected, args)
                continue
            accepted += 1
            self.assertTrue(expected, args)
            self.assertFalse(result["is_error"])
            self.assertTrue(schema_accepts(out, result["structured_content"]))
            again = ext.call("args", result["structured_content"])  # output is valid input: a fixed point
            self.assertEqual(again["structured_content"], result["structured_content"])
        self.assertGreater(accepted, 300)
        self.assertGreater(refused, 300)

    def test_PY_18_random_sizes_agree_with_the_encoder(self):
        """PY-18: for random string lists (seeded) near the 256 KiB bound, acceptance matches the compact JSON size."""
        ext = FakeExtension()

        @ext.typed_tool(name="strings", description="d", summary=lambda v: "ok")
        def strings(value: Strings) -> int:
            return len(value.xs)

        rng = random.Random(7)
        alphabet = ["a", "é", "€", "😀", '"', "\\", "\n", "\x01"]
        for _ in range(40):
            xs = [
                "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40000))) for _ in range(rng.randint(1, 12))
            ]
            size = len(json.dumps({"xs": xs}, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            too_long = any(len(s.encode("utf-8")) > 131072 for s in xs)
            try:
                ext.call("strings", {"xs": xs})
                self.assertTrue(size <= 262144 and not too_long, size)
            except TypedInputError:
                self.assertTrue(size > 262144 or too_long, size)


def _integral(v):
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [_integral(x) for x in v]
    if isinstance(v, dict):
        return {k: _integral(x) for k, x in v.items()}
    return v


if __name__ == "__main__":
    unittest.main()
