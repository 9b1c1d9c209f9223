"""Registration, the first half of Extension (extension.py): the decorators that register tools,
commands, hooks, context, status, menu, renderers and lifecycle handlers before run(), each
checked at registration so a mistake fails at import, not when the host calls."""
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence

from .catalog import ToolCatalog
from .definitions import HandlerEntry, command_definition, tool_definition
from .dispatch import HOOK_NAMES, HOOKS_04
from .message_injection import MESSAGE_EVENTS
from .negotiation import LIFECYCLE_EVENTS
from .peer import Link
from .menu_rules import check_menu_handler


class _Registry:
    def __init__(self) -> None:
        self.tools: Dict[str, HandlerEntry] = {}
        self.commands: Dict[str, HandlerEntry] = {}
        self.hooks: Dict[str, HandlerEntry] = {}
        self.renderers: Dict[str, HandlerEntry] = {}
        self.context_handler: Optional[HandlerEntry] = None
        self.status_handler: Optional[HandlerEntry] = None
        self.menu_handler: Optional[HandlerEntry] = None
        self.catalog: Optional[ToolCatalog] = None

    def tools_at(self, revision: Optional[int]) -> Dict[str, HandlerEntry]:
        return self.catalog.at(revision) if self.catalog is not None else self.tools


class Registration:
    """Mixin of Extension: the registration decorators. The state they fill is created in
    Extension.__init__."""

    api_version: str
    _registry: _Registry
    _running: bool
    _link: Optional[Link]
    _lifecycle: Dict[str, List[HandlerEntry]]

    def tool(
        self,
        name: Optional[str] = None,
        description: Optional[str] = None,
        *,
        parameters: Optional[Dict[str, Any]] = None,
        output_schema: Optional[Dict[str, Any]] = None,
        prompt_snippet: Optional[str] = None,
        prompt_guidelines: Optional[Sequence[str]] = None,
        inline: bool = False,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering a dictionary-arguments tool. The handler takes `(args)` or
        `(args, ctx)` and returns a str (one text part) or a dict with `content` (str or content
        parts), `is_error`, `structured_content`, `metadata`. Raising an ordinary exception
        gives an error result; raising WireError answers that error.

        A plain `def` handler runs on a worker thread, so it may block. `inline=True` runs it on
        the event loop instead, with no thread handoff (the fastest call): only for a handler
        that returns promptly without waiting (no sleep, no blocking I/O, no blocking helper
        such as ctx.confirm); while it runs nothing else is read, cancellation included."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name if name is not None else fn.__name__
            text = description if description is not None else inspect.getdoc(fn)
            definition = tool_definition(
                self.api_version, tool_name, text, parameters, output_schema, prompt_snippet, prompt_guidelines
            )
            self._add_tool(definition, HandlerEntry(definition, fn, inline=inline))
            return fn
        return register

    def _register_tool(self, definition: Dict[str, Any], handler: Callable[..., Any]) -> None:
        """Internal, stable registration used by typed tools (typed.py).

        `definition` is a wire tool definition dict: name, description, parameters and the
        optional output_schema, prompt_snippet, prompt_guidelines; it is checked like @ext.tool's.
        `handler(arguments: dict, ctx)` is called with the arguments dict and the HandlerContext
        and returns what an @ext.tool handler may return (a str, or a dict with content,
        is_error, structured_content, metadata). An `async def` handler is awaited on the event
        loop; a plain function runs on a worker thread, where ext.cancellation, ext.progress and
        the blocking helpers find its request. Raise WireError(-32602, ...) to refuse input.
        """
        checked = tool_definition(
            self.api_version,
            definition.get("name"),
            definition.get("description"),
            definition.get("parameters"),
            definition.get("output_schema"),
            definition.get("prompt_snippet"),
            definition.get("prompt_guidelines"),
        )
        self._add_tool(checked, HandlerEntry(checked, handler, with_context=True))

    def typed_tool(self, *args: Any, **kwargs: Any) -> Any:
        from .typed import typed_tool
        return typed_tool(self, *args, **kwargs)

    def _add_tool(self, definition: Dict[str, Any], entry: HandlerEntry) -> None:
        name = definition["name"]
        if self._running:
            raise RuntimeError(f'tool "{name}" registered after run(); use register_tools() with dynamic_tools=True')
        if name in self._registry.tools:
            raise ValueError(f'tool "{name}" is registered twice')
        self._registry.tools[name] = entry

    def command(
        self, name: Optional[str] = None, description: Optional[str] = None, *, usage: Optional[str] = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: handler `(args: list[str])` or `(args, ctx)` returning a str or
        {"text", "notifications"?, "context"?}."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            definition = command_definition(name if name is not None else fn.__name__,
                                            description if description is not None else inspect.getdoc(fn), usage)
            if definition["name"] in self._registry.commands:
                raise ValueError(f'command "{definition["name"]}" is registered twice')
            self._registry.commands[definition["name"]] = HandlerEntry(definition, fn)
            return fn
        return register

    def hook(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: handler `(payload)` or `(payload, ctx)` returning None (continue) or
        {"deny": reason} / {"context": [...], "notifications": [...]}. On API 0.4 also
        "compaction_strategy" and "cache_warming_decision" with their own results, and
        "model_turn_start" / "model_turn_end" (observe only: None, notifications, or
        {"session_operation": {"action": "continue"}}; ctx.session appends while they run)."""
        if name in HOOKS_04:
            if self.api_version != "0.4":
                raise ValueError(f'hook "{name}" needs API 0.4 (this extension speaks API {self.api_version})')
        elif name not in HOOK_NAMES:
            raise ValueError(f"unknown hook {name!r}; expected one of {', '.join(HOOK_NAMES + HOOKS_04)}")

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if name in self._registry.hooks:
                raise ValueError(f'hook "{name}" is registered twice')
            self._registry.hooks[name] = HandlerEntry(None, fn)
            return fn
        return register

    def cache_warming_decision(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator (API 0.4): advice `(payload)` or `(payload, ctx)` returning "warm", "stop"
        or None (no opinion)."""
        return self.hook("cache_warming_decision")(fn)

    def context(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: `(prompt)` or `(prompt, ctx)` returning a list of {label, content, placement?}."""
        self._registry.context_handler = HandlerEntry(None, fn)
        return fn

    def status(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: `(surface)` or `(surface, ctx)` returning None, a str or {text, style_role?, priority?}."""
        self._registry.status_handler = HandlerEntry(None, fn)
        return fn

    def menu(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator (API 0.2+; the manifest needs `menu = true` and a command): `(ctx)` returning
        the menu {"title", "status"?, "detail"?, "items"}, built fresh on each menu/collect. Each
        action runs a declared command with literal arguments; the host checks the rules and
        shows its generated menu (one entry per command) when they are broken or there is no
        handler. See docs/sdk-options.md."""
        if self.api_version == "0.1":
            raise ValueError("menu needs API 0.2 or later (menu/collect is not part of API 0.1)")
        check_menu_handler(fn)
        # One menu per extension: a second handler would silently replace the first, unlike tools.
        if self._registry.menu_handler is not None:
            raise ValueError("menu is registered twice; an extension has one menu handler")
        self._registry.menu_handler = HandlerEntry(None, fn, with_context=True)
        return fn

    def renderer(self, tool_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: `(input)` or `(input, ctx)`, input {name, arguments, output, is_error},
        returning a str or a list of {text, style_role} segments."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if tool_name in self._registry.renderers:
                raise ValueError(f'renderer for "{tool_name}" is registered twice')
            self._registry.renderers[tool_name] = HandlerEntry(None, fn)
            return fn
        return register

    def on(self, event: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator subscribing to a lifecycle notification (API 0.2+, before run()). Runs only
        if the host offered lifecycle_events; best-effort: never awaited by dispatch, takes no
        concurrency slot, and what it raises goes to stderr."""
        if self.api_version == "0.1":
            raise ValueError(f"lifecycle events need API 0.2 or later (this extension speaks API {self.api_version})")
        if event not in LIFECYCLE_EVENTS and event not in MESSAGE_EVENTS:
            raise ValueError(f"unknown lifecycle event {event!r}; expected one of {', '.join(LIFECYCLE_EVENTS)}")
        if self._link is not None:
            raise RuntimeError(f'on("{event}") after initialize: the subscription was already negotiated')

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._lifecycle.setdefault(event, []).append(HandlerEntry(None, fn, with_context=False))
            return fn
        return register
