"""Wave-1 notifications as the Python SDK receives them (W 1.11, WAVE1-02): a bounded plain-object
message/updated sent as a notification reaches the handler; an unnegotiated method, a non-object or
oversized payload, or the method sent as a request (with an id) is refused with a bounded diagnostic
and never reaches a handler."""
import asyncio
import contextlib
import io
import unittest

from harness import CONTEXT, OFFER, FakeHost
from octet_extension.extension import Extension

WITH_MESSAGES = {**OFFER, "optional_features": [*OFFER["optional_features"], "message_injection"]}


def probe():
    ext = Extension(api_version="0.2")
    seen = []

    @ext.on("message/updated")
    def on_update(params):
        seen.append(params)
    return ext, seen


class Wave1Notifications(unittest.IsolatedAsyncioTestCase):
    async def test_WAVE1_02_bad_message_updated_is_diagnosed_and_never_delivered(self):
        """WAVE1-02: non-object, over-bound and request-shaped message/updated never run the handler."""
        ext, seen = probe()
        h = FakeHost(ext)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                init = await h.start(offer=WITH_MESSAGES)
                self.assertIn("message_injection", init["protocol"]["features"])
                h.notify("message/updated", ["not", "an", "object"])
                h.notify("message/updated", {"message_id": "m1", "deltas": ["x"] * 1025})
                h.notify("message/updated", {"message_id": "m" * 10_000, "delta": "hi", "deltas": 1})
                answer = await h.response(h.request("message/updated", {"message_id": "m1", "delta": "r", "deltas": 1}))
                self.assertEqual(answer["error"]["code"], -32601)
                await asyncio.sleep(0.1)
                self.assertEqual(seen, [], "no refused notification reached the handler")
                lines = [line for line in err.getvalue().splitlines() if "ignored message/updated" in line]
                self.assertEqual(len(lines), 3, err.getvalue())
                for line in lines:
                    self.assertLessEqual(len(line.encode()), 600)
                h.notify("message/updated", {"message_id": "m1", "delta": "Hello", "deltas": 2})
                for _ in range(50):
                    if seen:
                        break
                    await asyncio.sleep(0.02)
                self.assertEqual(seen, [{"message_id": "m1", "delta": "Hello", "deltas": 2}])
        finally:
            await h.stop()

    async def test_WAVE1_02_unnegotiated_message_updated_is_refused(self):
        """WAVE1-02: without message_injection negotiated the handler never runs; a diagnostic says why."""
        ext, seen = probe()
        h = FakeHost(ext)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                init = await h.start()
                self.assertNotIn("message_injection", init["protocol"]["features"])
                h.notify("message/updated", {"message_id": "m1", "delta": "Hello", "deltas": 1})
                await asyncio.sleep(0.1)
                self.assertEqual(seen, [])
                self.assertIn("ignored message/updated: its feature was not negotiated", err.getvalue())
        finally:
            await h.stop()


class CompactionHooks(unittest.IsolatedAsyncioTestCase):
    async def test_WAVE1_40_compaction_hooks_dispatch_as_awaited_hooks_with_a_veto(self):
        """WAVE1-40: session_before_compact / session_compact reach their handlers as hook/run; the
        before-hook's cancel goes back as session_operation; a payload of another kind is refused."""

        ext = Extension(api_version="0.4")
        seen = []

        @ext.hook("session_before_compact")
        def before(payload):
            seen.append(payload["kind"])
            return {"session_operation": {"action": "cancel"}}

        @ext.hook("session_compact")
        def after(payload):
            seen.append(payload["compaction_entry"]["id"])

        h = FakeHost(ext)
        try:
            await h.start()
            before_payload = {"kind": "session_before_compact", "session_id": "s", "first_kept": "k",
                              "tokens_before": 10, "custom_instructions": None, "timestamp_ms": 1}
            vetoed = await h.call("hook/run", {"hook": "session_before_compact", "payload": before_payload,
                                               "context": CONTEXT})
            self.assertEqual(vetoed["session_operation"], {"action": "cancel"})
            entry = {"id": "e1", "parent": None, "timestamp_unix_ms": 1, "summary": "S", "first_kept": "k",
                     "tokens_before": 10}
            observed = await h.call("hook/run", {"hook": "session_compact", "context": CONTEXT, "payload": {
                "kind": "session_compact", "session_id": "s", "compaction_entry": entry, "timestamp_ms": 2}})
            self.assertNotIn("session_operation", observed)
            self.assertEqual(seen, ["session_before_compact", "e1"])
            wrong = await h.response(h.request("hook/run", {"hook": "session_compact", "context": CONTEXT,
                                                            "payload": before_payload}))
            self.assertEqual(wrong["error"]["code"], -32602)
            self.assertEqual(seen, ["session_before_compact", "e1"], "the refused call ran no handler")
        finally:
            await h.stop()


if __name__ == "__main__":
    unittest.main()
