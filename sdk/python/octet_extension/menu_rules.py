"""The menu rules (MENU-04..10), checked in the extension as the TypeScript SDK checks them: a port
of validateMenu (packages/protocol/src/api/validate-menu.ts) with the same messages, so a Python
author reads what is wrong in the extension's own error, not only as the reason of the host's
generated fallback. The host checks again; these rules must not drift from the TS ones.

A menu is {title, status?, detail?, items}; an item with `items` is a submenu, otherwise an action
that runs one of the extension's declared commands. Bounds: 256 KiB encoded, 256 items across all
levels, 4 levels, unique ids and at most one recommended item per level. Unknown members are
dropped (FRAME-15), except the action members a submenu must not carry (MENU-09).
"""
import json
import math
import re
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from ._bounds import MAX_MENU_BYTES, MAX_MENU_ITEMS, MAX_MENU_LEVELS, MAX_QUOTED_NAMES, MAX_QUOTED_VALUE_CHARS
from ._json_bounds import Limits, Violation, measure
from .errors import ErrorCode, WireError

__all__ = ["check_menu", "menu_problems", "check_menu_handler"]

#: Members only an action may carry; on a submenu they reject the menu (MENU-09, and command).
_ACTION_ONLY = ("command", "arguments", "destructive")
_MISSING = object()
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
#: Problems kept for the message, as the TS validation kit keeps them.
_KEPT = 16


def check_menu_handler(fn: Any) -> None:
    """What menu() refuses at registration in the TS SDK besides the API version and a second
    handler (those extension.py checks): a handler that is not callable, e.g. a static menu dict."""
    if not callable(fn):
        raise TypeError("menu() needs a handler function")


def check_menu(value: Any, declared_commands: Iterable[str]) -> Dict[str, Any]:
    """The menu as the wire carries it, or WireError(-32603) "invalid menu: ..." naming each
    problem (the host then shows its generated menu, MENU-03)."""
    menu, problems = menu_problems(value, declared_commands)
    if menu is None:
        raise WireError(ErrorCode.INTERNAL_ERROR, "invalid menu: " + "; ".join(problems))
    return menu


class _Problems:
    def __init__(self) -> None:
        self.items: List[str] = []
        self.count = 0

    def add(self, path: str, rule: str) -> None:
        self.count += 1
        if len(self.items) < _KEPT:
            self.items.append(rule if path == "" else f"{path}: {rule}")

    def refused(self) -> List[str]:
        return list(self.items) if self.items else ["invalid"]


def menu_problems(value: Any, declared_commands: Iterable[str]) -> Tuple[Optional[Dict[str, Any]], List[str]]:
    """(the checked menu, []) or (None, its problems)."""
    p = _Problems()
    # Size first (MENU-10): it bounds the work of every later walk.
    size = measure(value, Limits(MAX_MENU_BYTES, math.inf, math.inf))  # type: ignore[arg-type]
    if isinstance(size, Violation):
        p.add(size.path, f"menu of {size.message}" if size.rule == "bytes" else size.message)
        return None, p.refused()
    obj = _read_object(p, "", value)
    if obj is None:
        return None, p.refused()
    title = _read_string(p, "title", obj.get("title", _MISSING), non_blank=True)
    status = _check_status(p, obj.get("status", _MISSING))
    raw_detail = obj.get("detail", _MISSING)
    detail = None if _absent(raw_detail) else _read_string(p, "detail", raw_detail)
    raw_items = obj.get("items", _MISSING)
    # Counting walks every level iteratively, so a deeply nested menu is refused, not recursed into.
    items = _check_level(p, "items", raw_items, set(declared_commands)) if _check_shape(p, raw_items) else None
    if title is None or items is None or (detail is None and not _absent(raw_detail)) or p.count > 0:
        return None, p.refused()
    menu: Dict[str, Any] = {"title": title, "items": items}
    if status is not None:
        menu["status"] = status
    if detail is not None:
        menu["detail"] = detail
    return menu, []


def _absent(v: Any) -> bool:
    return v is _MISSING or v is None


def _describe(v: Any) -> str:
    """The JSON kind, as the TS kit names it ("expected a string, got number")."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _quote(s: str) -> str:
    text = s if len(s) <= MAX_QUOTED_VALUE_CHARS else s[:MAX_QUOTED_VALUE_CHARS]
    return json.dumps(text, ensure_ascii=False) + ("" if text is s else "...")


def _quote_list(names: List[str]) -> str:
    shown = ", ".join(_quote(n) for n in names[:MAX_QUOTED_NAMES])
    rest = len(names) - MAX_QUOTED_NAMES
    return f"{shown} and {rest} more" if rest > 0 else shown


def _at(base: str, key: str) -> str:
    if _IDENTIFIER.match(key):
        return key if base == "" else f"{base}.{key}"
    return f"{base}[{_quote(key)}]"


def _index(base: str, i: int) -> str:
    return f"{base}[{i}]"


def _read_object(p: _Problems, path: str, v: Any) -> Optional[Dict[str, Any]]:
    if isinstance(v, dict):
        return v
    p.add(path, "missing; expected an object" if v is _MISSING else f"expected an object, got {_describe(v)}")
    return None


def _read_string(p: _Problems, path: str, v: Any, non_blank: bool = False) -> Optional[str]:
    if not isinstance(v, str):
        p.add(path, "missing; expected a string" if v is _MISSING else f"expected a string, got {_describe(v)}")
        return None
    if non_blank and v.strip() == "":
        p.add(path, "must not be empty")
        return None
    return v


def _read_optional_string(p: _Problems, path: str, v: Any) -> Optional[str]:
    return None if _absent(v) else _read_string(p, path, v)


def _read_optional_boolean(p: _Problems, path: str, v: Any) -> Optional[bool]:
    if _absent(v):
        return None
    if isinstance(v, bool):
        return v
    p.add(path, f"expected a boolean, got {_describe(v)}")
    return None


def _read_array(p: _Problems, path: str, v: Any) -> Optional[List[Any]]:
    if isinstance(v, list):
        return v
    p.add(path, "missing; expected an array" if v is _MISSING else f"expected an array, got {_describe(v)}")
    return None


def _read_string_array(p: _Problems, path: str, v: Any) -> Optional[List[str]]:
    arr = _read_array(p, path, v)
    if arr is None:
        return None
    ok = True
    for i, item in enumerate(arr):
        if not isinstance(item, str):
            p.add(_index(path, i), f"expected a string, got {_describe(item)}")
            ok = False
    return arr if ok else None


def _check_status(p: _Problems, raw: Any) -> Optional[Dict[str, str]]:
    if _absent(raw):
        return None
    obj = _read_object(p, "status", raw)
    if obj is None:
        return None
    state = _read_string(p, "status.state", obj.get("state", _MISSING), non_blank=True)
    label = _read_string(p, "status.label", obj.get("label", _MISSING))
    return None if state is None or label is None else {"state": state, "label": label}


class _Level:
    """One items list met while counting; its path is built only when it is reported."""

    __slots__ = ("list", "level", "parent", "at")

    def __init__(self, items: Any, level: int, parent: "Optional[_Level]", at: int) -> None:
        self.list, self.level, self.parent, self.at = items, level, parent, at


def _level_path(level: _Level) -> str:
    indexes: List[int] = []
    lv: Optional[_Level] = level
    while lv is not None and lv.parent is not None:
        indexes.append(lv.at)
        lv = lv.parent
    path = "items"
    for i in reversed(indexes):
        path = _at(_index(path, i), "items")
    return path


def _check_shape(p: _Problems, raw_items: Any) -> bool:
    """MENU-07: at most 256 items across all levels and at most 4 levels (the menu's own items are
    level 1; an empty submenu still opens a level). Iterative; it reports the full count."""
    count = 0
    deepest: Optional[_Level] = None
    stack = [_Level(raw_items, 1, None, 0)]
    while stack:
        level = stack.pop()
        if not isinstance(level.list, list):
            continue  # the validation pass names the wrong type
        if level.level > MAX_MENU_LEVELS and (deepest is None or level.level > deepest.level):
            deepest = level
        count += len(level.list)
        for i, item in enumerate(level.list):
            sub = item.get("items", _MISSING) if isinstance(item, dict) else _MISSING
            if not _absent(sub):
                stack.append(_Level(sub, level.level + 1, level, i))
    if count > MAX_MENU_ITEMS:
        p.add("items", f"{count} items across all levels, over the {MAX_MENU_ITEMS}-item limit")
    if deepest is not None:
        p.add(_level_path(deepest), f"{deepest.level} levels of menu, over the {MAX_MENU_LEVELS}-level limit")
    return count <= MAX_MENU_ITEMS and deepest is None


def _check_level(p: _Problems, path: str, raw: Any, declared: Set[str]) -> Optional[List[Dict[str, Any]]]:
    """One level: its items, unique ids and at most one recommended item (MENU-08)."""
    items_in = _read_array(p, path, raw)
    if items_in is None:
        return None
    before = p.count
    items = [_check_item(p, _index(path, i), item, declared) for i, item in enumerate(items_in)]
    ids = [item["id"] for item in items_in if isinstance(item, dict) and isinstance(item.get("id"), str)]
    seen: Set[str] = set()
    dup: List[str] = []
    for i in ids:
        if i in seen and i not in dup:
            dup.append(i)
        seen.add(i)
    if dup:
        p.add(path, f"duplicate ids {_quote_list(dup)} in one level")
    recommended = sum(1 for item in items if item is not None and "command" in item and item.get("recommended") is True)
    if recommended > 1:
        p.add(path, f"{recommended} recommended items in one level; at most one is allowed")
    return items if p.count == before else None  # type: ignore[return-value]


def _check_item(p: _Problems, path: str, raw: Any, declared: Set[str]) -> Optional[Dict[str, Any]]:
    obj = _read_object(p, path, raw)
    if obj is None:
        return None
    before = p.count
    item_id = _read_string(p, _at(path, "id"), obj.get("id", _MISSING), non_blank=True)
    # Hosts address an action by its id path ("submenu/item"), so an id cannot contain "/".
    if item_id is not None and "/" in item_id:
        shown = json.dumps(item_id[:64], ensure_ascii=False)
        p.add(_at(path, "id"), f'{shown} contains "/", which separates the levels of an item path')
    label = _read_string(p, _at(path, "label"), obj.get("label", _MISSING), non_blank=True)
    if not _absent(obj.get("items", _MISSING)):
        for key in _ACTION_ONLY:
            if not _absent(obj.get(key, _MISSING)):
                p.add(_at(path, key), "not allowed on a submenu (an item with items); only actions carry it")
        sub = _check_level(p, _at(path, "items"), obj["items"], declared)
        if item_id is None or label is None or sub is None or p.count != before:
            return None
        return {"id": item_id, "label": label, "items": sub}
    command = _read_string(p, _at(path, "command"), obj.get("command", _MISSING))
    if command is not None and command not in declared:
        p.add(_at(path, "command"), f"{_quote(command)} is not one of the extension's declared commands")
    raw_args = obj.get("arguments", _MISSING)
    args = [] if _absent(raw_args) else _read_string_array(p, _at(path, "arguments"), raw_args)
    recommended = _read_optional_boolean(p, _at(path, "recommended"), obj.get("recommended", _MISSING))
    description = _read_optional_string(p, _at(path, "description"), obj.get("description", _MISSING))
    destructive = _read_optional_boolean(p, _at(path, "destructive"), obj.get("destructive", _MISSING))
    if item_id is None or label is None or command is None or args is None or p.count != before:
        return None
    action: Dict[str, Any] = {"id": item_id, "label": label, "command": command, "arguments": list(args)}
    if recommended is not None:
        action["recommended"] = recommended
    if description is not None:
        action["description"] = description
    if destructive is not None:
        action["destructive"] = destructive
    return action
