"""@ext.menu: menu/collect routed to the author's handler (issue 13.10: neither SDK answered it).
The handler gets ctx; a result that is not a menu is an error naming what was expected; without a
handler, or on API 0.1, menu/collect is an unknown method and the host shows its generated menu.
The whole path through a real host is in tests/e2e/sdk-helper-matrix.test.ts."""
import asyncio
import unittest

from octet_extension import Extension
from octet_extension.definitions import HandlerEntry
from octet_extension.dispatch import route
from octet_extension.errors import ErrorCode, WireError

CONTEXT = {"workspace": "/tmp/ws", "execution_scope": None, "host": {}}


class _Registry:
    def __init__(self, handler):
        self.menu_handler = HandlerEntry(None, handler, with_context=True) if handler else None


def collect(handler, api="0.2"):
    async def invoke(entry, args, context):
        return entry.handler(*args, {"context": context})  # ctx: what the handler reads of it
    return asyncio.run(route("menu/collect", {"context": CONTEXT}, _Registry(handler), api, lambda: False, invoke))


class MenuTest(unittest.TestCase):
    def test_menu_is_the_handlers_built_with_ctx(self):
        """issue 13.10: menu/collect answers the handler's menu, built from ctx."""
        menu = collect(lambda ctx: {"title": "M", "detail": ctx["context"]["workspace"], "items": []})
        self.assertEqual(menu, {"title": "M", "detail": "/tmp/ws", "items": []})

    def test_not_a_menu_is_an_error(self):
        """issue 13.10: a result without title and items is an internal error saying what a menu is."""
        with self.assertRaises(WireError) as caught:
            collect(lambda ctx: ["not", "a", "menu"])
        self.assertEqual(caught.exception.code, ErrorCode.INTERNAL_ERROR)
        self.assertIn("expected a dict with title (str) and items (list)", caught.exception.message)

    def test_no_handler_or_api_01_is_an_unknown_method(self):
        """issue 13.10: without @ext.menu, or on API 0.1, menu/collect is -32601."""
        for handler, api in ((None, "0.2"), (lambda ctx: {"title": "M", "items": []}, "0.1")):
            with self.assertRaises(WireError) as caught:
                collect(handler, api)
            self.assertEqual(caught.exception.code, ErrorCode.METHOD_NOT_FOUND)

    def test_menu_needs_api_02(self):
        """issue 13.10: @ext.menu on API 0.1 fails at registration."""
        with self.assertRaises(ValueError):
            Extension(api_version="0.1").menu(lambda ctx: None)

    def test_menu_is_registered_once(self):
        """issue 13.10 (review): a second @ext.menu is refused, as a second tool of one name is."""
        ext = Extension(api_version="0.4")
        ext.menu(lambda ctx: None)
        with self.assertRaisesRegex(ValueError, "menu is registered twice"):
            ext.menu(lambda ctx: None)


if __name__ == "__main__":
    unittest.main()
