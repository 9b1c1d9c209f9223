"""The Python SDK's conformance extension: exactly what tests/conformance/CONTRACT.md asks of
every SDK, written the way an extension author would, with the public API of octet_extension
only. The API version comes from OCTET_CONFORMANCE_API. Diagnostics go to stderr; stdout belongs
to the SDK."""
import json
import os
import sys
import time

from octet_extension import LIFECYCLE_EVENTS, Extension, WireError

API_VERSIONS = ("0.1", "0.2", "0.4")
api = os.environ.get("OCTET_CONFORMANCE_API")
if api not in API_VERSIONS:
    sys.stderr.write(
        f"conformance extension: OCTET_CONFORMANCE_API must be one of {', '.join(API_VERSIONS)}, got {api!r}\n"
    )
    sys.exit(2)
negotiated = api != "0.1"

ext = Extension(api_version=api, max_concurrent_requests=16)

# FRAME-03: an ordinary print after the SDK object exists must never reach the wire.
print("conformance: startup print")
# REV-01: nothing may be sent before initialize; the SDK refuses this notification.
try:
    ext.notify("early", "sent before initialize", level="info")
except RuntimeError as err:
    sys.stderr.write(f"conformance: early notification refused: {err}\n")

echo_metadata = {"prompt_snippet": "Echo the arguments back as JSON",
                 "prompt_guidelines": ["Use echo only in conformance tests"]} if api == "0.4" else {}


@ext.tool(
    name="echo",
    description="Return the arguments as JSON text",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": True},
    **echo_metadata,
)
def echo(args):
    return json.dumps(args)


@ext.tool(name="fail", description="Raise an ordinary error", parameters={"type": "object", "properties": {}})
def fail(args):
    raise Exception("boom")


@ext.tool(name="wire_error", description="Raise an extension error code",
          parameters={"type": "object", "properties": {"code": {"type": "integer"}}})
def wire_error(args):
    code = args["code"] if isinstance(args.get("code"), int) else -32001
    raise WireError(code, "quota_exceeded: the wire_error tool is out of quota", {"retry_after_ms": 1000})


@ext.tool(name="slow", description="Poll cancellation every 10 ms until cancelled or done",
          parameters={"type": "object", "properties": {"ms": {"type": "integer"}}})
def slow(args, ctx):
    ms = min(args["ms"] if isinstance(args.get("ms"), int) else 5000, 5000)
    ctx.progress.status("started")
    until = time.monotonic() + ms / 1000
    while True:
        # The ambient token (CANCEL-13): what it raises, the SDK answers -32800.
        ext.cancellation.raise_if_cancelled()
        if time.monotonic() >= until:
            return "finished"
        time.sleep(0.01)


@ext.tool(name="progress", description="Report N status progress events",
          parameters={"type": "object", "properties": {"count": {"type": "integer"}}})
def progress(args, ctx):
    count = args["count"] if isinstance(args.get("count"), int) else 3
    for i in range(1, count + 1):
        ctx.progress.status(f"step {i} of {count}", current=i, total=count, unit="steps")
    return f"done {count}"


@ext.tool(
    name="confirm",
    description="Ask for confirmation and return the answer",
    parameters={
        "type": "object",
        "properties": {
            "prompt": {"type": "string"},
            "detail": {"type": "string"},
            "destructive": {"type": "boolean"},
            "default": {"type": "boolean"},
        },
    },
)
def confirm(args, ctx):
    options = {k: args[k] for k in ("destructive", "default") if isinstance(args.get(k), bool)}
    if isinstance(args.get("detail"), str):
        options["detail"] = args["detail"]
    prompt = args["prompt"] if isinstance(args.get("prompt"), str) else "Proceed?"
    return json.dumps({"confirmed": ctx.confirm(prompt, **options)})


@ext.tool(name="contribute", description="Push context and status", parameters={"type": "object", "properties": {}})
def contribute(args):
    ext.contribute_context("conformance", "pushed context", placement="system_suffix")
    ext.contribute_status("status", "pushed status", style_role="extension.conformance.status", priority=1)
    return "contributed"


@ext.tool(name="print", description="Print to stdout the ordinary way", parameters={"type": "object", "properties": {}})
def print_tool(args):
    print("conformance: print tool")
    sys.stdout.write("conformance: print tool (direct write)\n")
    return "printed"


if negotiated:
    @ext.tool(
        name="input",
        description="Ask for text input and return it",
        parameters={"type": "object", "properties": {"prompt": {"type": "string"}, "secret": {"type": "boolean"}}},
    )
    def input_tool(args, ctx):
        prompt = args["prompt"] if isinstance(args.get("prompt"), str) else "Value?"
        options = {"secret": args["secret"]} if isinstance(args.get("secret"), bool) else {}
        return json.dumps({"value": ctx.input(prompt, **options)})

    @ext.tool(
        name="structured",
        description="Return structured content matching the output schema",
        parameters={"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}},
        output_schema={
            "type": "object",
            "properties": {"count": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}},
            "required": ["count", "items"],
            "additionalProperties": False,
        },
    )
    def structured(args):
        items = [str(i) for i in args["items"]] if isinstance(args.get("items"), list) else ["a", "b"]
        return {"content": f"{len(items)} items", "structured_content": {"count": len(items), "items": items}}

    # Each lifecycle event is echoed as a notification, so transcripts see the delivery on the wire.
    for event in LIFECYCLE_EVENTS:
        def echo_event(params, event=event):
            ext.notify(f"lifecycle {event}", json.dumps(params), level="info")
        ext.on(event)(echo_event)


if api == "0.4":
    # CONTRACT.md "API 0.4 session services": used on the wire only when the host offers each feature.
    def shortcut_handler(key):
        return lambda: ext.notify("shortcut", f"key:{key}", level="info")

    for key in ("ctrl+g", "ctrl+o"):
        ext.shortcut(key, description=f"Conformance {key}")(shortcut_handler(key))

    @ext.on_terminal_grant_lost
    def grant_lost(lost):
        ext.notify("terminal grant lost", f"{lost['grant_id']}: {lost['reason']}", level="warning")

    for message_event in ("message/updated", "message/settled"):
        def echo_message(params, event=message_event):
            ext.notify(event, json.dumps(params), level="info")
        ext.on(message_event)(echo_message)

    @ext.autocomplete
    def complete(query):
        before = query["text"].encode("utf-8")[: query["cursor"]].decode("utf-8", "replace")
        if before.endswith("/gr"):
            return {"prefix": "/gr", "items": [{"value": "/greet", "label": "greet", "description": "Greet someone"}]}
        # A prefix that is not the text before the cursor: the SDK must refuse to send it (ACMP-04).
        if before.endswith("/bad"):
            return {"prefix": "/nope", "items": [{"value": "/nope", "label": "nope"}]}
        # One byte past the 1,024-byte bound, and a control character: the SDK must refuse both (ACMP-05).
        if before.endswith("/long"):
            return {"prefix": "/long", "items": [{"value": "/long" + "x" * 1020, "label": "long"}]}
        if before.endswith("/ctl"):
            return {"prefix": "/ctl", "items": [{"value": "/ctl", "label": "bell\u0007"}]}
        return None

    @ext.tool(name="compose", description="Set or insert composer text, then read the composer back",
              parameters={"type": "object", "properties": {"text": {"type": "string"}, "insert": {"type": "boolean"}}})
    def compose(args, ctx):
        text = args["text"] if isinstance(args.get("text"), str) else ""
        if args.get("insert") is True:
            ctx.composer.insert(text)
        else:
            ctx.composer.set(text)
        return json.dumps({"text": ctx.composer.get()})

    @ext.tool(name="entry", description="Append a session entry", parameters={"type": "object", "properties": {}})
    def entry(args, ctx):
        return json.dumps({"entry_id": ctx.session.append_entry("conformance", {"n": 1})})

    @ext.tool(name="inject", description="Send a message into the session",
              parameters={"type": "object", "properties": {"role": {"type": "string"}, "text": {"type": "string"}}})
    def inject(args, ctx):
        try:
            text = str(args.get("text", ""))
            if "role" not in args:
                ctx.session.send_user_message(text)
            else:
                ctx.session.send_message(args.get("role"), text)
            return "injected"
        except Exception as err:
            return str(err)

    @ext.tool(name="activate", description="Replace the active tool set",
              parameters={"type": "object",
                          "properties": {"names": {"type": "array", "items": {"type": "string"}}}})
    def activate(args, ctx):
        try:
            ctx.tools.set_active([str(n) for n in args.get("names", [])])
            return "activated"
        except Exception as err:
            return str(err)

    @ext.tool(name="idle", description="Wait for the session to be idle, or switch sessions",
              parameters={"type": "object", "properties": {"session_id": {"type": "string"}}})
    def idle(args, ctx):
        if not isinstance(args.get("session_id"), str):
            ctx.session_control.wait_for_idle()
            return "idle"
        ctx.session_control.switch_session(args["session_id"])
        return "switched"

    @ext.tool(name="compact", description="Queue a compaction after this reply",
              parameters={"type": "object",
                          "properties": {"instructions": {"type": "string"}, "fail": {"type": "boolean"}}})
    def compact(args, ctx):
        instructions = args["instructions"] if isinstance(args.get("instructions"), str) else None
        ctx.session_control.compact(
            instructions,
            on_success=lambda result: ext.notify("compacted", json.dumps(result), level="info"),
            on_error=lambda err: ext.notify("compaction failed", "compact", level="warning"),
        )
        if args.get("fail") is True:
            raise Exception("compact tool failed")
        return "queued"

    @ext.tool(name="terminal", description="Acquire and release the terminal",
              parameters={"type": "object", "properties": {}})
    def terminal(args, ctx):
        grant = ctx.terminal.acquire()
        ctx.terminal.release()
        return json.dumps({"grant_id": grant.grant_id, "columns": grant.columns, "rows": grant.rows})

    @ext.tool(name="oversize", description="Set the composer one byte past its bound",
              parameters={"type": "object", "properties": {}})
    def oversize(args, ctx):
        try:
            ctx.composer.set("x" * 262145)
            return "sent"
        except Exception as err:
            return str(err)


@ext.command(name="greet", description="Greet someone", usage="/greet [name]")
def greet(args, ctx):
    name = " ".join(args) or "world"
    ctx.notify("Greeted", f"greeted {name}", level="success")
    return {
        "text": f"Hello, {name}!",
        "notifications": [{"level": "info", "title": "Greeting", "message": f"to {name}"}],
        "context": [{"label": "greet", "content": f"The user greeted {name}.", "placement": "system_suffix"}],
    }


@ext.hook("before_prompt")
def before_prompt(payload):
    prompt = str(payload["prompt"])
    if "#deny" in prompt:
        return {"deny": "the prompt asked to be denied"}
    return {"context": [{"label": "prompt-length", "content": f"{len(prompt)} chars", "placement": "prompt_prefix"}]}


@ext.hook("after_response")
def after_response(payload):
    return None


@ext.hook("before_tool_call")
def before_tool_call(payload):
    return {"deny": "fail is blocked"} if payload.get("name") == "fail" else None


@ext.hook("after_tool_call")
def after_tool_call(payload):
    level = "warning" if payload.get("is_error") is True else "info"
    return {"notifications": [{"level": level, "title": "Tool ran", "message": str(payload.get("name"))}]}


@ext.context
def context(prompt):
    return [
        {
            "label": "conformance",
            "content": f"prompt={'null' if prompt is None else prompt}",
            "placement": "system_prefix",
        },
        {"label": "default-placement", "content": "no placement given"},
    ]


@ext.status
def status(surface):
    if surface == "status":
        return {"text": "ready", "style_role": "extension.conformance.status", "priority": 3}
    if surface == "header":
        return "header"
    return None


@ext.renderer("echo")
def render_echo(rendered):
    return [
        {"text": f"echo · {'failed' if rendered['is_error'] else 'ok'}", "style_role": "extension.conformance.head"},
        {"text": rendered["output"], "style_role": None},
    ]


ext.run()
