"""ctx.composer, @ext.shortcut and @ext.autocomplete locally (frontend.py): the key syntax, the
bounds at the limit and one past, the answer checks and what negotiation selects."""
import unittest

from octet_extension.errors import WireError
from octet_extension.frontend import Composer, Frontend, check_answer, parse_shortcut_key
from octet_extension.negotiation import REQUIRED_FEATURES, SDK_FEATURES, negotiate

FRONTEND = ["composer", "shortcuts", "autocomplete", "autocomplete_edit_v1"]


class Keys(unittest.TestCase):
    def test_wave1_26_key_syntax(self):
        self.assertEqual(parse_shortcut_key("meta+ctrl+x")[0], "ctrl+alt+x")
        self.assertEqual(parse_shortcut_key("f5")[0], "f5")
        for bad in ("ctrl+c", "x", "shift+x", "Ctrl+g", "ctrl+ctrl+g", "hyper+g", "alt+b", "ctrl+tab"):
            self.assertIsNone(parse_shortcut_key(bad)[0], bad)

    def test_wave1_22_25_shortcut_bounds(self):
        f = Frontend()
        with self.assertRaisesRegex(TypeError, "callable handler"):
            f.add_shortcut("ctrl+g", None)
        with self.assertRaisesRegex(ValueError, "^bounds_exceeded .*4097 bytes"):
            f.add_shortcut("ctrl+g", lambda: None, "d" * 4097)
        mods = ["ctrl+alt+", "alt+", "ctrl+alt+shift+", "alt+shift+"]
        keys = [m + c for c in "0123456789gqrsvx" for m in mods]
        for k in keys[:64]:
            f.add_shortcut(k, lambda: None, "d" * 4096 if k == keys[0] else "")
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded shortcut\(\): 64"):
            f.add_shortcut("ctrl+shift+g", lambda: None)
        self.assertIsNone(f.triggered({"id": "key:ctrl+alt+0"}), "never sent to a host: unavailable (WAVE1-03)")


class ComposerBounds(unittest.TestCase):
    def test_wave1_17_18_text_checked_before_sending(self):
        c = Composer(lambda: None, lambda: None)
        with self.assertRaisesRegex(RuntimeError, "needs the composer feature"):
            c.set("x" * 262144)
        with self.assertRaisesRegex(ValueError, r"^bounds_exceeded composer\.set\(\): text: 262145 bytes"):
            c.set("x" * 262145)
        control = r"^invalid_request composer\.insert\(\): text: control character U\+001B"
        with self.assertRaisesRegex(TypeError, control):
            c.insert("\x1b[2J")
        with self.assertRaisesRegex(TypeError, "lone surrogate"):
            c.insert("a\ud800")


class Answers(unittest.TestCase):
    def test_acmp_15_the_test_vector_passes_with_edit_v1_only(self):
        query = {"text": 'é"', "cursor": 2, "revision": 7}
        item = {"value": '文/"', "label": "Directory", "replace_after_bytes": 1, "cursor_offset_bytes": 4}
        answer = check_answer({"prefix": "é", "items": [item]}, query, True)
        self.assertEqual(answer["items"][0]["cursor_offset_bytes"], 4)
        with self.assertRaisesRegex(WireError, "needs autocomplete_edit_v1"):
            check_answer({"prefix": "é", "items": [item]}, query, False)

    def test_acmp_03_05_bounds_and_prefix(self):
        query = {"text": "ab", "cursor": 2, "revision": 1}
        items = [{"value": f"b{i}", "label": "l"} for i in range(33)]
        self.assertEqual(len(check_answer({"prefix": "b", "items": items[:32]}, query, False)["items"]), 32)
        with self.assertRaisesRegex(WireError, "33 items, over the 32-item limit"):
            check_answer({"prefix": "b", "items": items}, query, False)
        with self.assertRaisesRegex(WireError, "exact suffix"):
            check_answer({"prefix": "a", "items": []}, query, False)
        with self.assertRaisesRegex(WireError, "1025 bytes"):
            check_answer({"prefix": "", "items": [{"value": "x" * 1025, "label": "x"}]}, query, False)
        self.assertEqual(check_answer(None, query, False), {"prefix": "", "items": []})


class FieldBounds(unittest.TestCase):
    def test_acmp_05_each_field_1024_bytes_no_controls(self):
        """ACMP-05: prefix, value, label and description at 1,024 UTF-8 bytes (multibyte) pass;
        1,025 bytes or a control character is refused before the answer is written."""
        at = "é" * 512
        query = {"text": at, "cursor": 1024, "revision": 1}
        item = {"value": "😀" * 256, "label": at, "description": "文" * 341 + "x"}
        answer = check_answer({"prefix": at, "items": [item]}, query, False)
        self.assertEqual([len(answer["items"][0][k].encode()) for k in ("value", "label", "description")],
                         [1024] * 3)
        for field in ("value", "label", "description"):
            with self.assertRaisesRegex(WireError, rf"^bounds_exceeded .*items\[0\]\.{field}: 1025 bytes"):
                check_answer({"prefix": "", "items": [dict(item, **{field: at + "x"})]}, query, False)
            for control in ("\x1b", "\x00", "\x7f", "\x85"):
                with self.assertRaisesRegex(WireError, rf"^invalid_request .*items\[0\]\.{field}: control"):
                    check_answer({"prefix": "", "items": [dict(item, **{field: "a" + control})]}, query, True)
        long_query = {"text": at + "x", "cursor": 1025, "revision": 1}
        with self.assertRaisesRegex(WireError, "^bounds_exceeded .*prefix: 1025 bytes"):
            check_answer({"prefix": at + "x", "items": []}, long_query, False)


class Negotiation(unittest.TestCase):
    def test_init_42_selected_when_used_edit_v1_on_0_4(self):
        def chosen(api, shortcuts, autocomplete):
            offer = {"required_features": list(REQUIRED_FEATURES), "optional_features": FRONTEND}
            n = negotiate(offer, api=api, max_concurrent=1, lifecycle_events=[], tools=[],
                          supported=frozenset(REQUIRED_FEATURES + SDK_FEATURES), shortcuts=shortcuts,
                          autocomplete=autocomplete)
            return [f for f in n["protocol"]["features"] if f in FRONTEND]
        self.assertEqual(chosen("0.4", False, False), ["composer"])
        self.assertEqual(chosen("0.4", True, True), FRONTEND)
        self.assertEqual(chosen("0.2", True, True), FRONTEND[:3])


if __name__ == "__main__":
    unittest.main()
