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
    def __init__(self, handler, commands=()):
        self.menu_handler = HandlerEntry(None, handler, with_context=True) if handler else None
        self.commands = {name: None for name in commands}


def collect(handler, api="0.2", commands=()):
    async def invoke(entry, args, context):
        return entry.handler(*args, {"context": context})  # ctx: what the handler reads of it
    registry = _Registry(handler, commands)
    return asyncio.run(route("menu/collect", {"context": CONTEXT}, registry, api, lambda: False, invoke))


def refusal(menu, commands=("greet",)):
    """The message of the error menu/collect answers for `menu`."""
    with unittest.TestCase().assertRaises(WireError) as caught:
        collect(lambda ctx: menu, commands=commands)
    assert caught.exception.code == ErrorCode.INTERNAL_ERROR
    return caught.exception.message


def action(item_id, **extra):
    return {"id": item_id, "label": item_id.upper(), "command": "greet", **extra}


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


class MenuRulesTest(unittest.TestCase):
    """issue 13 review: @ext.menu results are checked with the rules and messages of the TS SDK's
    validateMenu (packages/protocol/src/api/validate-menu.ts), in the extension."""

    def test_a_valid_menu_is_answered_as_the_wire_carries_it(self):
        menu = {"title": "M", "status": {"state": "ok", "label": "fine", "x": 1}, "detail": None, "extra": True,
                "items": [action("a", arguments=["x"], recommended=True, destructive=False, description="d"),
                          {"id": "sub", "label": "More", "items": [action("b")]}]}
        self.assertEqual(collect(lambda ctx: menu, commands=("greet",)), {
            "title": "M", "status": {"state": "ok", "label": "fine"},
            "items": [{"id": "a", "label": "A", "command": "greet", "arguments": ["x"], "recommended": True,
                       "description": "d", "destructive": False},
                      {"id": "sub", "label": "More",
                       "items": [{"id": "b", "label": "B", "command": "greet", "arguments": []}]}]})

    def test_each_rule_is_refused_with_the_ts_message(self):
        cases = [
            ({"title": " ", "items": []}, "invalid menu: title: must not be empty"),
            ({"title": 5, "items": []}, "invalid menu: title: expected a string, got number"),
            ({"items": []}, "invalid menu: title: missing; expected a string"),
            ({"title": "M"}, "invalid menu: items: missing; expected an array"),
            ({"title": "M", "items": [action("a", command="nope")]},
             'invalid menu: items[0].command: "nope" is not one of the extension\'s declared commands'),
            ({"title": "M", "items": [action("a"), action("a")]},
             'invalid menu: items: duplicate ids "a" in one level'),
            ({"title": "M", "items": [action("a", recommended=True), action("b", recommended=True)]},
             "invalid menu: items: 2 recommended items in one level; at most one is allowed"),
            ({"title": "M", "items": [action("a/b")]},
             'invalid menu: items[0].id: "a/b" contains "/", which separates the levels of an item path'),
            ({"title": "M", "items": [{"id": "s", "label": "S", "command": "greet", "items": []}]},
             "invalid menu: items[0].command: not allowed on a submenu (an item with items); only actions carry it"),
            ({"title": "M", "items": [action("a", arguments=["x", 1], destructive="yes")]},
             "invalid menu: items[0].arguments[1]: expected a string, got number; "
             "items[0].destructive: expected a boolean, got string"),
            ({"title": "M", "status": {"state": "", "label": "l"}, "items": []},
             "invalid menu: status.state: must not be empty"),
            ({"title": "M", "items": [action(f"i{n}") for n in range(257)]},
             "invalid menu: items: 257 items across all levels, over the 256-item limit"),
            ({"title": "M", "items": [{"id": "1", "label": "1", "items": [{"id": "2", "label": "2", "items": [
                {"id": "3", "label": "3", "items": [{"id": "4", "label": "4", "items": []}]}]}]}]},
             "invalid menu: items[0].items[0].items[0].items[0].items: 5 levels of menu, over the 4-level limit"),
            ({"title": "M", "items": [action("a", description="x" * 270_000)]},
             "invalid menu: menu of at least 270"),
        ]
        for menu, message in cases:
            with self.subTest(message=message):
                got = refusal(menu)
                self.assertTrue(got.startswith(message), got)
        self.assertIn("over the 262144-byte limit", refusal(cases[-1][0]))

    def test_a_handler_that_is_not_a_function_is_refused_at_registration(self):
        with self.assertRaisesRegex(TypeError, r"^menu\(\) needs a handler function$"):
            Extension(api_version="0.2").menu({"title": "a static menu", "items": []})


if __name__ == "__main__":
    unittest.main()
