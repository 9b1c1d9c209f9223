"""The bounded JSON walk shared by typed values and diagnostics (PY-18, DIAG-02 measuring rules).

The expected numbers were cross-checked against packages/protocol/src/validate/json-bounds.ts.
"""
import json
import random
import unittest

from octet_extension._json_bounds import Limits, Violation, measure, plain_text_problem, string_token_bytes

BIG = 10**9


class MeasureTest(unittest.TestCase):
    def test_PY_18_counts_match_the_protocol_definitions(self):
        """PY-18: bytes, depth and nodes are counted as json-bounds.ts counts them (lone surrogates as 6-byte
        escapes)."""
        limits = Limits(BIG, 100, BIG)
        self.assertEqual(measure("a\ud800b", limits), (10, 0, 1))
        self.assertEqual(measure({"k\u00e9": [1, 2.5, None, True, "\x01\"\\"]}, limits), (38, 2, 7))
        self.assertEqual(measure([[[[]]]], limits), (8, 4, 4))
        self.assertEqual(measure("é😀", limits), (8, 0, 1))

    def test_PY_18_depth_at_limit_and_one_past(self):
        """PY-18: 32 levels of nesting pass, 33 are refused."""
        def nested(n):
            v = []
            for _ in range(n - 1):
                v = [v]
            return v
        limits = Limits(BIG, 32, BIG)
        self.assertEqual(measure(nested(32), limits)[1], 32)
        r = measure(nested(33), limits)
        self.assertIsInstance(r, Violation)
        self.assertEqual(r.rule, "depth")

    def test_PY_18_nodes_and_bytes_at_limit_and_one_past(self):
        """PY-18: node and byte limits are inclusive."""
        self.assertEqual(measure([0] * 9, Limits(BIG, 32, 10))[2], 10)
        self.assertEqual(measure([0] * 10, Limits(BIG, 32, 10)).rule, "nodes")
        self.assertEqual(measure("abcd", Limits(6, 32, 10))[0], 6)
        self.assertEqual(measure("abcde", Limits(6, 32, 10)).rule, "bytes")

    def test_PY_18_keys_and_non_json_refused(self):
        """PY-18: key bytes are bounded when asked; NaN, Infinity, tuples and non-string keys are not JSON."""
        self.assertIsInstance(measure({"a" * 256: 1}, Limits(BIG, 32, BIG, max_key_bytes=256)), tuple)
        self.assertEqual(measure({"a" * 257: 1}, Limits(BIG, 32, BIG, max_key_bytes=256)).rule, "key")
        for bad in (float("nan"), float("inf"), (1,), {1: 2}, b"x", object()):
            self.assertEqual(measure(bad, Limits(BIG, 32, BIG)).rule, "type", bad)

    def test_PY_18_random_strings_token_bytes_match_json(self):
        """PY-18: over random strings (seeded) without surrogates, token bytes equal the compact UTF-8 JSON encoding."""
        rng = random.Random(99)
        alphabet = ["a", "é", "€", "😀", '"', "\\", "\n", "\x01", "\x7f", "\u2028"]
        for _ in range(500):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
            self.assertEqual(string_token_bytes(s), len(json.dumps(s, ensure_ascii=False).encode("utf-8")))

    def test_PY_19_plain_text_rule(self):
        """PY-19, DIAG-06: plain text allows LF and TAB, refuses other C0, DEL, C1 and lone surrogates."""
        self.assertIsNone(plain_text_problem("a\nb\tc é"))
        for bad in ("\r", "\x00", "\x1b", "\x7f", "\x9f", "\udc00"):
            self.assertIsNotNone(plain_text_problem(bad), repr(bad))


if __name__ == "__main__":
    unittest.main()
