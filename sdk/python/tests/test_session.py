"""ctx.session's local checks (W 2.21, WAVE1-29/30): at the bound the call goes on (here to the
"not initialized" refusal, since no host is connected); one past, it is refused before anything
is sent, with the contract name first."""
import unittest

from octet_extension.session import Session


def session() -> Session:
    return Session(lambda: None, lambda: None)


class SessionBounds(unittest.TestCase):
    def assert_passes_checks(self, fn, *args):
        with self.assertRaisesRegex(RuntimeError, "only after the host initialized"):
            fn(*args)

    def test_entry_type_and_data_at_the_limit_and_one_past(self):
        s = session()
        self.assert_passes_checks(s.append_entry, "t" * 128, "x" * (65536 - 2))
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.append_entry\(\): entry_type: 129 bytes"):
            s.append_entry("t" * 129, None)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded .*data: 65537 bytes, over the 65536-byte limit"):
            s.append_entry("t", "x" * (65537 - 2))

    def test_data_must_be_plain_json(self):
        s = session()
        deep = 1
        for _ in range(33):
            deep = [deep]
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded .*33 levels of nesting, over the 32-level limit"):
            s.append_entry("t", deep)
        for bad in (float("nan"), {1: "a"}, object(), {"a": {1, 2}}):
            with self.assertRaisesRegex(TypeError, r"^invalid_request session\.append_entry\(\): data"):
                s.append_entry("t", bad)

    def test_name_label_and_entry_id(self):
        s = session()
        self.assert_passes_checks(s.set_name, "n" * 4096)
        self.assert_passes_checks(s.set_name, "")
        self.assert_passes_checks(s.set_label, "i" * 256, "l" * 4096)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.set_name\(\): name: 4097 bytes"):
            s.set_name("n" * 4097)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.set_label\(\): entry_id: 257 bytes"):
            s.set_label("i" * 257, "")
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.set_label\(\): label: 4097 bytes"):
            s.set_label("i", "l" * 4097)
        with self.assertRaisesRegex(TypeError, r"^invalid_request session\.set_label\(\): entry_id: must not be empty"):
            s.set_label("", "x")


if __name__ == "__main__":
    unittest.main()
