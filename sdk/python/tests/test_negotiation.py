"""Feature negotiation and the constructor's checks (PY-03, PY-04, PY-05)."""
import unittest

from octet_extension import Extension
from octet_extension.negotiation import REQUIRED_FEATURES, SDK_FEATURES, check_supported_features, negotiate

OFFER = {
    "required_features": ["request_cancellation", "content_parts"],
    "optional_features": ["request_progress", "lifecycle_events", "tool_prompt_metadata_v1", "secrets", "composer"],
    "limits": {"max_concurrent_requests": 8},
}
TOOL = {"name": "t", "description": "d", "parameters": {"type": "object"}, "prompt_snippet": "s"}


class NegotiationTest(unittest.TestCase):
    def test_PY_03_api_versions(self):
        """PY-03: exactly "0.1", "0.2" or "0.4"; "0.3" is refused with the reason."""
        for api in ("0.1", "0.2", "0.4"):
            self.assertEqual(Extension(api_version=api).api_version, api)
        with self.assertRaisesRegex(ValueError, "no canonical API 0.3 stdio runtime"):
            Extension(api_version="0.3")
        with self.assertRaisesRegex(ValueError, "'1.0'"):
            Extension(api_version="1.0")

    def test_PY_04_limit_is_min_of_ours_and_the_hosts(self):
        """PY-04: protocol.limits.max_concurrent_requests is min(N, host cap), at least 1; bad N refused."""
        n = negotiate(
            OFFER, api="0.2", max_concurrent=3, lifecycle_events=[], tools=[], supported=check_supported_features(None)
        )
        self.assertEqual(n["protocol"]["limits"], {"max_concurrent_requests": 3})
        n = negotiate(
            OFFER, api="0.2", max_concurrent=16, lifecycle_events=[], tools=[], supported=check_supported_features(None)
        )
        self.assertEqual(n["max_concurrent"], 8)
        n = negotiate(
            {**OFFER, "limits": {"max_concurrent_requests": "x"}},
            api="0.2",
            max_concurrent=5,
            lifecycle_events=[],
            tools=[],
            supported=check_supported_features(None),
        )
        self.assertEqual(n["max_concurrent"], 5)
        for bad in (0, 65, 1.5, True):
            with self.assertRaisesRegex(ValueError, "max_concurrent_requests must be an integer from 1 to 64"):
                Extension(api_version="0.2", max_concurrent_requests=bad)

    def test_PY_05_supported_features_rules(self):
        """PY-05: an explicit list must include the required features; the default is every optional feature the SDK
        implements."""
        with self.assertRaisesRegex(ValueError, "missing content_parts"):
            Extension(api_version="0.4", supported_features=["request_cancellation"])
        with self.assertRaisesRegex(ValueError, "does not implement: remote_ui"):
            Extension(api_version="0.4", supported_features=["request_cancellation", "content_parts", "remote_ui"])
        self.assertIn("cache_warming_decision", SDK_FEATURES)
        self.assertEqual(check_supported_features(None), frozenset(REQUIRED_FEATURES + SDK_FEATURES))

    def test_PY_05_only_offered_supported_and_used_features_are_selected(self):
        """PY-05: never a feature not offered; an explicit list narrows the selection; usage gates lifecycle and prompt
        metadata."""
        n = negotiate(
            OFFER,
            api="0.4",
            max_concurrent=4,
            lifecycle_events=["turn/started"],
            tools=[TOOL],
            supported=check_supported_features(None),
        )
        self.assertEqual(
            n["protocol"]["features"],
            [
                "request_cancellation",
                "content_parts",
                "request_progress",
                "lifecycle_events",
                "tool_prompt_metadata_v1",
                "secrets",
                "composer",
            ],
        )
        self.assertEqual(n["protocol"]["lifecycle_events"], ["turn/started"])
        n = negotiate(OFFER, api="0.4", max_concurrent=4, lifecycle_events=[], tools=[TOOL],
                      supported=check_supported_features(["request_cancellation", "content_parts", "request_progress"]))
        self.assertEqual(n["protocol"]["features"], ["request_cancellation", "content_parts", "request_progress"])
        self.assertNotIn("lifecycle_events", n["protocol"])
        # Without tool_prompt_metadata_v1 the metadata is left out of the catalog, not sent.
        self.assertEqual(n["tools"], [{"name": "t", "description": "d", "parameters": {"type": "object"}}])
        self.assertEqual(n["stripped_prompt_metadata"], ["t"])

    def test_PY_52_api_04_hooks_need_api_04(self):
        """PY-52: compaction_strategy and cache_warming_decision cannot be registered on API 0.1/0.2; on 0.4 they
        negotiate their feature."""
        for api in ("0.1", "0.2"):
            with self.assertRaisesRegex(ValueError, "needs API 0.4"):
                Extension(api_version=api).hook("cache_warming_decision")
            with self.assertRaisesRegex(ValueError, "needs API 0.4"):
                Extension(api_version=api).hook("compaction_strategy")
        offer = {**OFFER, "optional_features": ["cache_warming_decision"]}
        n = negotiate(
            offer,
            api="0.4",
            max_concurrent=1,
            lifecycle_events=[],
            tools=[],
            supported=check_supported_features(None),
            hooks=["cache_warming_decision"],
        )
        self.assertIn("cache_warming_decision", n["features"])
        n = negotiate(
            offer, api="0.4", max_concurrent=1, lifecycle_events=[], tools=[], supported=check_supported_features(None)
        )
        self.assertNotIn("cache_warming_decision", n["features"])


if __name__ == "__main__":
    unittest.main()
