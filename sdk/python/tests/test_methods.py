"""issue 14.1: the Python SDK routes by the method table generated from packages/protocol
(_methods.py): every host request it declares reaches a handler, and a name the table does not
carry to the extension on this version is an unknown method (-32601)."""
import asyncio
import unittest

from octet_extension import Extension
from octet_extension._methods import ADVISORY_HOOKS, API_VERSIONS, HOOK_NAMES, METHODS
from octet_extension.definitions import HandlerEntry
from octet_extension.dispatch import legal_method, route
from octet_extension.errors import ErrorCode, WireError
from octet_extension.serving import _SESSION_REQUESTS


class _Registry:
    tools = commands = hooks = renderers = {}
    context_handler = status_handler = None
    menu_handler = HandlerEntry(None, lambda ctx: {"title": "M", "items": []}, with_context=True)

    def tools_at(self, revision):
        return self.tools


def code(method, api="0.4", params=None):
    async def invoke(entry, args, context):
        return entry.handler(*args)
    try:
        asyncio.run(route(method, params if params is not None else {}, _Registry(), api, lambda: False, invoke,
                          frozenset({"request_cancellation"})))
        return "answered"
    except WireError as err:
        return err.code


class MethodTableTest(unittest.TestCase):
    def test_every_declared_host_request_reaches_a_handler(self):
        """issue 14.1: empty params reach the method's own checks (-32602), never -32601."""
        for api in API_VERSIONS:
            for spec in METHODS.values():
                if spec.direction != "host->child" or spec.kind != "request" or api not in spec.api_versions:
                    continue
                # Answered by the serving loop itself, not routed (initialize, shutdown, autocomplete).
                if spec.method in _SESSION_REQUESTS:
                    continue
                self.assertNotEqual(code(spec.method, api), ErrorCode.METHOD_NOT_FOUND, f"{spec.method} on API {api}")

    def test_unknown_wrong_direction_and_wrong_version_are_method_not_found(self):
        """issue 14.1: a child's method, an undeclared name, a notification and a later version's method."""
        for method in ("confirmation/request", "artifact/publish", "$/progress", "no/such", "session/started"):
            self.assertEqual(code(method), ErrorCode.METHOD_NOT_FOUND, method)
        self.assertEqual(code("menu/collect", "0.1"), ErrorCode.METHOD_NOT_FOUND)

    def test_legal_method_checks_direction_version_and_feature(self):
        """issue 14.1: legal_method is the table's rule, as methodsFor is in TypeScript."""
        self.assertIsNotNone(legal_method("$/cancelRequest", "host->child", "0.2", frozenset({"request_cancellation"})))
        self.assertIsNone(legal_method("$/cancelRequest", "host->child", "0.1", frozenset({"request_cancellation"})))
        self.assertIsNone(legal_method("session/started", "host->child", "0.4", frozenset()))
        self.assertIsNotNone(legal_method("session/started", "host->child", "0.4", frozenset({"lifecycle_events"})))
        self.assertIsNone(legal_method("tool/call", "child->host", "0.4", frozenset()))
        self.assertIsNone(legal_method("no/such", "host->child", "0.4", frozenset()))

    def test_hook_names_and_versions_come_from_the_table(self):
        """issue 14.1: registration accepts exactly the table's hook names and API versions."""
        ext = Extension(api_version="0.4")
        for hook in HOOK_NAMES + ADVISORY_HOOKS:
            ext.hook(hook)(lambda payload: None)
        with self.assertRaisesRegex(ValueError, "unknown hook"):
            ext.hook("not_a_hook")
        for api in API_VERSIONS:
            self.assertEqual(Extension(api_version=api).api_version, api)


if __name__ == "__main__":
    unittest.main()
