"""ctx.session_control's local checks (W 2.21b, 2.21c; SCOMP-04): at the bound the call goes on
(here to the "not initialized" refusal, since no host is connected); one past, it is refused
before anything is sent, with the contract name first."""
import unittest

from octet_extension._bounds import MAX_COMPACT_INSTRUCTIONS_BYTES
from octet_extension.peer import Link
from octet_extension.scope import RequestScope
from octet_extension.session_control import SessionControl, mark_compaction_hook

OWNER = {"session_id": "s", "extension_instance_id": "i", "process_generation": 1}


def control() -> SessionControl:
    return SessionControl(lambda: None, lambda: None)


class SessionControlChecks(unittest.TestCase):
    def test_SCOMP_04_custom_instructions_at_the_limit_and_one_past(self):
        c = control()
        text = "a\tb\n" + "é" * ((MAX_COMPACT_INSTRUCTIONS_BYTES - 4) // 2)
        self.assertEqual(len(text.encode("utf-8")), MAX_COMPACT_INSTRUCTIONS_BYTES)
        with self.assertRaisesRegex(RuntimeError, "only after the host initialized"):
            c.compact_now(7, OWNER, text)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session_control\.compact_now\(\): "
                                                r"custom_instructions: 16385 bytes, over the 16384-byte limit"):
            c.compact_now(7, OWNER, text + "x")
        with self.assertRaisesRegex(TypeError, r"^invalid_request .*custom_instructions: contains a control"):
            c.compact_now(7, OWNER, "a\rb")

    def test_SCOMP_03_the_owner_must_be_the_complete_triple(self):
        c = control()
        for owner in (None, {"session_id": "s"}, {**OWNER, "extra": 1}, {**OWNER, "process_generation": True}):
            with self.assertRaisesRegex(TypeError, r"^invalid_request session_control\.compact_now\(\): owner must"):
                c.compact_now(7, owner)

    def test_SCTL_02_session_id_at_the_limit_and_one_past(self):
        c = control()
        with self.assertRaisesRegex(RuntimeError, "only after the host initialized"):
            c.switch_session("s" * 256)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session_control\.switch_session\(\): session_id"):
            c.switch_session("s" * 257)
        with self.assertRaisesRegex(TypeError, r"^invalid_request .*session_id: must not be empty"):
            c.switch_session(" ")

    def test_SCOMP_07_compaction_from_the_compaction_strategy_hook_is_refused_locally(self):
        hook = RequestScope(5, "hook/run")
        mark_compaction_hook(hook)
        link = Link("0.4", frozenset({"session_control_v1", "session_compaction_v1"}), None, None)
        c = SessionControl(lambda: link, lambda: hook, lambda: OWNER)
        with self.assertRaisesRegex(RuntimeError, r"^invalid_request session_control\.compact\(\) refused"):
            c.compact()
        hooks = r"compact_now\(\) refused: called from a compaction hook \(compaction_strategy, session_before_compact"
        with self.assertRaisesRegex(RuntimeError, hooks):
            c.compact_now(3, OWNER)


if __name__ == "__main__":
    unittest.main()
