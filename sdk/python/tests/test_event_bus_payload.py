"""validate_payload and the topic/field name rules of octet_extension.event_bus (PY-53)."""
import json
import random
import string
import unittest

from octet_extension.event_bus import (
    FIELD_TYPES, MAX_FIELD_NAME_BYTES, MAX_FIELDS, MAX_OWNER_BYTES, MAX_PAYLOAD_BYTES,
    MAX_SAFE_INTEGER, MAX_STRING_BYTES, MAX_TOPIC_BYTES, MAX_TOPIC_NAME_BYTES, EventBusError,
    PayloadRejected, TopicRegistry, validate_payload,
)

FIELDS = {"title": "string", "count": "integer", "ratio": "number", "done": "boolean"}
GOOD = {"title": "build finished", "count": 3, "ratio": 0.5, "done": True}


def with_title(value):
    return dict(GOOD, title=value)


class PayloadShapeTest(unittest.TestCase):
    def rejected(self, payload, rule, fields=FIELDS):
        with self.assertRaises(PayloadRejected) as caught:
            validate_payload(fields, payload)
        self.assertEqual(caught.exception.rule, rule, str(caught.exception))
        self.assertEqual(caught.exception.code, "payload_rejected")
        return caught.exception

    def test_PY_53_valid_payload_is_returned_as_an_immutable_copy(self):
        """PY-53: a payload with exactly the declared fields is accepted, copied and frozen."""
        source = dict(GOOD)
        checked = validate_payload(FIELDS, source)
        self.assertEqual(dict(checked), GOOD)
        source["title"] = "changed later"
        self.assertEqual(checked["title"], "build finished")
        with self.assertRaises(TypeError):
            checked["title"] = "x"  # type: ignore[index]

    def test_PY_53_not_a_plain_dict_is_refused(self):
        """PY-53: fail closed: only a plain dict is a payload (no lists, strings, None, subclasses)."""
        class Sneaky(dict):
            pass
        for payload in ([], "x", None, 3, Sneaky(GOOD), [("title", "x")]):
            self.rejected(payload, "not_an_object")

    def test_PY_53_unknown_and_missing_fields_are_refused(self):
        """PY-53: unknown fields are refused, never dropped; every declared field is required."""
        error = self.rejected(dict(GOOD, colour="CANARY-blue"), "unknown_field")
        self.assertNotIn("colour", str(error))
        self.assertIsNone(error.field)
        missing = dict(GOOD)
        del missing["ratio"]
        self.assertEqual(self.rejected(missing, "missing_field").field, "ratio")
        self.rejected(dict(GOOD, ratio=None), "wrong_type")

    def test_PY_53_keys_that_are_not_field_names_are_refused(self):
        """PY-53: keys must be field names ([a-z][a-z0-9_]*, at most 64 bytes)."""
        for key in (1, None, "Title", "_x", "1x", "a-b", "a.b", "", "x" * (MAX_FIELD_NAME_BYTES + 1)):
            payload = dict(GOOD)
            payload[key] = "v"  # type: ignore[index]
            self.rejected(payload, "field_name")

    def test_PY_53_wrong_types_are_refused_not_coerced(self):
        """PY-53: no coercion: bool is not an integer, 3.0 is not an integer, "1" is not a number."""
        cases = [("count", True), ("count", 3.0), ("count", "3"), ("count", None), ("ratio", "0.5"),
                 ("ratio", False), ("ratio", [1]), ("done", 1), ("done", "true"), ("title", 5),
                 ("title", b"bytes"), ("title", ["a"]), ("title", {"a": "b"})]
        for field, value in cases:
            error = self.rejected(dict(GOOD, **{field: value}), "wrong_type")
            self.assertEqual(error.field, field)

    def test_PY_53_integer_bounds_at_limit_and_one_past(self):
        """PY-53: integers and numbers stay within +-(2^53-1), the exact JSON range."""
        for field in ("count", "ratio"):
            for value in (MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER):
                validate_payload(FIELDS, dict(GOOD, **{field: value}))
            for value in (MAX_SAFE_INTEGER + 1, -MAX_SAFE_INTEGER - 1):
                self.rejected(dict(GOOD, **{field: value}), "integer_range")
        self.rejected(dict(GOOD, ratio=float(2**53)), "integer_range")

    def test_PY_53_non_finite_numbers_are_refused(self):
        """PY-53: NaN and infinities are not JSON numbers."""
        for value in (float("nan"), float("inf"), float("-inf")):
            self.rejected(dict(GOOD, ratio=value), "non_finite")

    def test_PY_53_string_bound_at_limit_and_one_past(self):
        """PY-53: a string value is at most 1024 UTF-8 bytes (counted in bytes, not characters)."""
        validate_payload(FIELDS, with_title("é" * (MAX_STRING_BYTES // 2)))
        validate_payload(FIELDS, with_title("a" * MAX_STRING_BYTES))
        self.rejected(with_title("a" * (MAX_STRING_BYTES + 1)), "string_too_long")
        self.rejected(with_title("é" * (MAX_STRING_BYTES // 2) + "a"), "string_too_long")

    def test_PY_53_field_count_bound_at_limit_and_one_past(self):
        """PY-53: at most 32 fields per topic and per payload."""
        fields = {f"f{i}": "boolean" for i in range(MAX_FIELDS)}
        validate_payload(fields, {name: True for name in fields})
        over = dict({name: True for name in fields}, f99=True)
        self.rejected(over, "too_many_fields", fields)
        with self.assertRaises(EventBusError) as caught:
            validate_payload(dict(fields, f99="boolean"), over)
        self.assertEqual(caught.exception.code, "invalid_schema")

    def test_PY_53_payload_bound_at_limit_and_one_past(self):
        """PY-53: the compact JSON of a payload is at most 16 KiB."""
        fields = {f"s{i:02}": "string" for i in range(MAX_FIELDS)}

        def payload_of(total):
            payload = {name: "" for name in fields}
            room = total - len(json.dumps(payload, separators=(",", ":")))
            for name in fields:
                take = min(room, MAX_STRING_BYTES)
                payload[name], room = "a" * take, room - take
            return payload

        exact = payload_of(MAX_PAYLOAD_BYTES)
        self.assertEqual(len(json.dumps(exact, separators=(",", ":"))), MAX_PAYLOAD_BYTES)
        validate_payload(fields, exact)
        self.rejected(payload_of(MAX_PAYLOAD_BYTES + 1), "payload_too_large", fields)

    def test_PY_53_control_bidi_and_lone_surrogates_are_refused(self):
        """PY-53: control characters (except TAB and LF), bidi overrides and lone surrogates."""
        validate_payload(FIELDS, with_title("line one\n\tline two"))
        for value in ("a\x00b", "a\rb", "a\x1bb", "a\x7fb", "a\x85b", "abc\u202edcba", "a\u2066b"):
            self.rejected(with_title(value), "control_character")
        self.rejected(with_title("a\ud800b"), "invalid_unicode")


class AuthorityFieldTest(unittest.TestCase):
    AUTHORITY = ("token", "access_token", "password", "db_password", "passwd", "secret",
                 "client_secret", "api_key", "apikey", "private_key", "authorization", "auth",
                 "cookie", "session", "session_id", "sessionid", "owner", "publisher", "generation",
                 "process_generation", "extension_instance_id", "parent_request_id",
                 "resource_owner", "user_id", "role", "permissions", "scope", "is_admin",
                 "published_at", "timestamp", "topic", "sequence", "jwt", "mypassword", "bearer")

    def test_PY_53_authority_shaped_fields_are_refused_in_payloads(self):
        """PY-53: authority-shaped fields (credentials, identity, generation, time) are refused."""
        for key in self.AUTHORITY:
            with self.subTest(key=key), self.assertRaises(PayloadRejected) as caught:
                validate_payload(FIELDS, dict(GOOD, **{key: "CANARY"}))
            self.assertEqual(caught.exception.rule, "authority_field")
            self.assertNotIn("CANARY", str(caught.exception))

    def test_PY_53_authority_shaped_fields_cannot_be_declared(self):
        """PY-53: a topic cannot declare an authority-shaped field in the first place."""
        for key in self.AUTHORITY:
            with self.subTest(key=key), self.assertRaises(EventBusError) as caught:
                validate_payload({key: "string"}, {key: "x"})
            self.assertEqual(caught.exception.code, "invalid_schema")

    def test_PY_53_ordinary_field_names_are_accepted(self):
        """PY-53: names that merely resemble authority words are accepted."""
        for name in ("author", "tokenizer", "keyboard", "sort_key", "file_path", "status",
                     "duration_ms", "title", "count", "note", "keyword"):
            validate_payload({name: "string"}, {name: "plain words"})


class SchemaAndTopicNameTest(unittest.TestCase):
    def code_of(self, call):
        with self.assertRaises(EventBusError) as caught:
            call()
        return caught.exception.code

    def test_PY_53_schema_shape(self):
        """PY-53: a schema maps 1..32 field names to one of the four scalar types."""
        self.assertEqual(FIELD_TYPES, ("string", "integer", "number", "boolean"))
        for bad in ({}, [], None, {"a": "object"}, {"a": "array"}, {"a": None}, {"A": "string"},
                    {"a" * (MAX_FIELD_NAME_BYTES + 1): "string"}):
            self.assertEqual(self.code_of(lambda: validate_payload(bad, {"a": "x"})), "invalid_schema")
        validate_payload({"a" * MAX_FIELD_NAME_BYTES: "string"}, {"a" * MAX_FIELD_NAME_BYTES: "x"})

    def test_PY_53_topic_grammar_and_bounds(self):
        """PY-53: topics are bus.<owner>.<name>; owner and name 1..64 bytes of [a-z0-9_-]."""
        registry = TopicRegistry()
        owner, name = "o" * MAX_OWNER_BYTES, "n" * MAX_TOPIC_NAME_BYTES
        topic = f"bus.{owner}.{name}"
        self.assertEqual(len(topic), MAX_TOPIC_BYTES)
        registry.register(topic, owner, 1, {"a": "string"})
        self.assertIn(topic, registry)
        long_owner = "o" * (MAX_OWNER_BYTES + 1)
        for bad in (f"bus.{long_owner}.x", f"bus.x.{'n' * (MAX_TOPIC_NAME_BYTES + 1)}",
                    "bus.x", "bus.x.y.z", "Bus.x.y", "bus.X.y", "bus..y", "bus.x.", "bus.-x.y",
                    "bus.x.y\n", "events.x.y", "bus.x.y ", None, 7):
            self.assertEqual(self.code_of(lambda: registry.register(bad, "x", 1, {"a": "string"})),
                             "invalid_topic", repr(bad))
        self.assertEqual(self.code_of(lambda: registry.register(f"bus.{long_owner}.x", long_owner, 1,
                                                                {"a": "string"})), "invalid_topic")


class ValueRuleTest(unittest.TestCase):
    REFUSED = {
        "pii_email": ["mail alice.smith@example.org now", "ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ"],
        "pii_phone": ["call (555) 010-9999", "+44 20 7946 0958", "555.010.9999"],
        "pii_card": ["card 4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005"],
        "pii_national_id": ["ssn 078-05-1120"],
        "secret_private_key": ["-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN OPENSSH PRIVATE KEY"],
        "secret_token": ["ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", "sk-" + "A1b2C3d4E5f6G7h8I9j0",
                         "AKIA" + "IOSFODNN7EXAMPL2", "xoxb-" + "123456789012-abcdefghij",
                         "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"],
        "secret_bearer": ["Authorization header Bearer abc.def-123_456", "Basic YWxhZGRpbjpvcGVuc2VzYW1l"],
        "secret_url_credentials": ["https://bob:hunter2@git.example.com/repo.git"],
        "secret_assignment": ["password=hunter2", "API_KEY: xyz", "token = abc"],
        "secret_high_entropy": ["key 9fQ2xL7vR1mZ8kP3wT6yB4nH0cJ5dG2s"],
        "private_path": ["~/.ssh/id_rsa", "~alice/notes", "/home/alice/project", "/Users/bob/x",
                         "C:\\Users\\carol\\x", "/etc/shadow", "cat /etc/passwd", "/root/.bashrc",
                         "/proc/self/environ", "$HOME/x", ".env", "src/.env.local", "id in .ssh",
                         "~/.aws/credentials", "/var/root"],
    }
    ACCEPTED = ["build finished in 12.5s", "src/components/Button.tsx", "https://example.com/users/42",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "123e4567-e89b-12d3-a456-426614174000", "2024-01-01T12:00:00Z", "version 1.2.3",
                "process.env.NODE_ENV", "approx ~5 minutes", "MyExtensionHandlerRegistry123",
                "packages/host/src/manifest/manifest.ts", "the author: Bob", "basic functionality",
                "bearer of news", "1700000000000", "tests 12 of 345 passed", "/srv/app/home/x"]

    def test_PY_53_pii_secret_and_private_path_values_are_refused_without_echo(self):
        """PY-53: PII, secret and private-path values are refused; the error names field and rule only."""
        for rule, values in self.REFUSED.items():
            for value in values:
                with self.subTest(rule=rule, value=value), self.assertRaises(PayloadRejected) as caught:
                    validate_payload(FIELDS, with_title(value))
                self.assertEqual(caught.exception.rule, rule)
                self.assertEqual(caught.exception.field, "title")
                self.assertNotIn(value, str(caught.exception))
                self.assertNotIn(value, repr(caught.exception.args))

    def test_PY_53_ordinary_values_are_accepted(self):
        """PY-53: ids, digests, repository paths, timestamps and prose pass the value rules."""
        for value in self.ACCEPTED:
            with self.subTest(value=value):
                validate_payload(FIELDS, with_title(value))
        validate_payload(FIELDS, dict(GOOD, count=1_700_000_000_000))

    def test_PY_53_card_numbers_in_integer_fields_are_refused(self):
        """PY-53: a card number sent as an integer is still a card number."""
        with self.assertRaises(PayloadRejected) as caught:
            validate_payload(FIELDS, dict(GOOD, count=4111111111111111))
        self.assertEqual(caught.exception.rule, "pii_card")
        self.assertNotIn("4111", str(caught.exception))

    def test_PY_53_random_keys_are_refused_with_a_fixed_seed(self):
        """PY-53: key-like random strings (upper, lower, digits) are refused as secrets."""
        rng = random.Random(53)
        alphabet = string.ascii_letters + string.digits + "-_"
        hits = 0
        for _ in range(500):
            key = "".join(rng.choice(alphabet) for _ in range(40))
            try:
                validate_payload(FIELDS, with_title(key))
            except PayloadRejected as error:
                hits += 1
                self.assertNotIn(key, str(error))
        self.assertGreaterEqual(hits, 490)


class ValidatorFuzzTest(unittest.TestCase):
    """Random payloads with a fixed seed: the validator never crashes, never echoes a value."""

    CANARY = "QZXCANARY"

    def random_value(self, rng, depth=0):
        choice = rng.randrange(12)
        if choice == 0:
            return None
        if choice == 1:
            return rng.choice([True, False])
        if choice == 2:
            return rng.choice([0, -1, MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1, rng.randrange(-10**20, 10**20)])
        if choice == 3:
            return rng.choice([0.5, float("nan"), float("inf"), -0.0, 1e300, rng.random()])
        if choice == 4 and depth < 2:
            return [self.random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
        if choice == 5 and depth < 2:
            return {self.CANARY + str(i): self.random_value(rng, depth + 1) for i in range(rng.randrange(3))}
        pieces = [self.CANARY, rng.choice(["", "a@b.co", "/home/x", "Bearer 1234abcd.xyz", "\x00",
                                           "\ud800", "é" * rng.randrange(600), "4111111111111111",
                                           "~/.ssh", "x" * rng.randrange(1100)])]
        pieces.append("".join(rng.choice(string.printable) for _ in range(rng.randrange(40))))
        rng.shuffle(pieces)
        return "".join(pieces)

    def random_payload(self, rng):
        if rng.randrange(20) == 0:
            return rng.choice([None, [], self.CANARY, 5])
        payload = dict(GOOD)
        keys = list(FIELDS) * 4 + ["token", "owner", self.CANARY.lower(), "Title", 3, None, "extra_field"]
        for _ in range(rng.randrange(3)):
            key = rng.choice(keys)
            if rng.randrange(4) == 0:
                payload.pop(key, None)
            else:
                payload[key] = self.random_value(rng)
        return payload

    def test_PY_53_fixed_seed_random_payloads_never_crash_or_leak(self):
        """PY-53: 3,000 random payloads: accepted ones round-trip, refused ones never echo a value."""
        rng = random.Random(20240053)
        accepted = refused = 0
        for _ in range(3000):
            payload = self.random_payload(rng)
            try:
                checked = validate_payload(FIELDS, payload)
            except PayloadRejected as error:
                refused += 1
                text = str(error) + repr(error.args) + repr(error.field)
                self.assertNotIn(self.CANARY, text)
                self.assertNotIn(self.CANARY.lower(), text)
                self.assertIn(error.field, (None, *FIELDS))
                continue
            accepted += 1
            self.assertEqual(dict(checked), payload)
        self.assertGreater(accepted, 0)
        self.assertGreater(refused, accepted)


if __name__ == "__main__":
    unittest.main()
