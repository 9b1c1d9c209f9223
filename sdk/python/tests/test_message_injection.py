"""ctx.session.send_message / send_user_message and ctx.tools.set_active, local checks (W 2.22,
W 2.23; WAVE1-33/34/36): at the bound the call goes on (here to the "not initialized" refusal,
since no host is connected); one past, or a role other than assistant/system, it is refused
before anything is sent, with the contract name first."""
import unittest

from octet_extension.extension import Extension
from octet_extension.message_injection import ActiveTools, message_params
from octet_extension.negotiation import REQUIRED_FEATURES, SDK_FEATURES, negotiate
from octet_extension.session import Session

TEXT = 262_144


def session() -> Session:
    return Session(lambda: None, lambda: None)


class MessageInjectionBounds(unittest.TestCase):
    def passes(self, fn, *args):
        with self.assertRaisesRegex(RuntimeError, "only after the host initialized"):
            fn(*args)

    def test_wave1_34_text_at_the_limit_and_one_past(self):
        s = session()
        self.passes(s.send_message, "system", "t" * TEXT)
        self.passes(s.send_message, "assistant", "t")
        self.passes(s.send_user_message, "t" * TEXT)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.send_message\(\): text: 262145 bytes"):
            s.send_message("system", "t" * (TEXT + 1))
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded session\.send_user_message\(\): text: 262145"):
            s.send_user_message("t" * (TEXT + 1))
        with self.assertRaisesRegex(TypeError, r"^invalid_request .*text: must not be empty"):
            s.send_user_message(" ")

    def test_wave1_33_role_user_or_other_is_invalid_request(self):
        for role in ("user", "tool", None):
            with self.assertRaisesRegex(TypeError, r"^invalid_request session\.send_message\(\): role: "):
                session().send_message(role, "x")

    def test_wave1_36_names_at_the_bound_and_past(self):
        tools = ActiveTools(lambda: None, lambda: None)
        self.passes(tools.set_active, [f"{i:03d}" + "n" * 125 for i in range(256)])
        self.passes(tools.set_active, [])
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded tools\.set_active\(\): names: 257 names"):
            tools.set_active([f"t{i}" for i in range(257)])
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded .*names\[0\]: 129 bytes, over the 128-byte"):
            tools.set_active(["n" * 129])
        with self.assertRaisesRegex(TypeError, r"^invalid_request .*listed more than once"):
            tools.set_active(["a", "a"])

    def test_features_selected_when_offered_and_handlers_registered(self):
        offer = {"version": "0.2", "required_features": ["request_cancellation", "content_parts"],
                 "optional_features": ["message_injection", "active_tools"]}
        n = negotiate(offer, api="0.2", max_concurrent=4, lifecycle_events=[], tools=[],
                      supported=frozenset(REQUIRED_FEATURES + SDK_FEATURES))
        self.assertIn("message_injection", n["features"])
        self.assertIn("active_tools", n["features"])
        ext = Extension(api_version="0.2")

        @ext.on("message/updated")
        def on_update(params):
            pass
        self.assertIn("message/updated", ext._lifecycle)

    def test_wave1_06_sdk_shaped_batches_up_to_1024_deltas(self):
        self.assertEqual(message_params("message/updated", {"message_id": "m", "delta": "ab", "deltas": 2}),
                         {"message_id": "m", "delta": "ab", "deltas": 2})
        self.assertEqual(message_params("message/updated", {"message_id": "m", "updates": ["a"] * 1024}),
                         {"message_id": "m", "delta": "a" * 1024, "deltas": 1024})
        self.assertIsNone(message_params("message/updated", {"message_id": "m", "deltas": ["a"] * 1025}))
        self.assertIsNone(message_params("message/updated", {"message_id": "m", "delta": "a", "deltas": 0}))
        self.assertEqual(message_params("message/settled", {"message_id": "m"}), {"message_id": "m"})


if __name__ == "__main__":
    unittest.main()
