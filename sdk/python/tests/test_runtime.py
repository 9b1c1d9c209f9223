"""The runtime against a fake host, in-process: dispatch, results, cancellation, concurrency,
progress, reverse requests, host services, shutdown and EOF."""
import asyncio
import base64
import hashlib
import threading
import time
import unittest

from harness import CONTEXT, FakeHost
from octet_extension import ErrorCode, Extension, WireError, cache_warming_decision


def text_of(frame):
    return frame["result"]["content"][0]["text"]


class RuntimeTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.hosts = []

    async def asyncTearDown(self):
        for h in self.hosts:
            await h.stop()

    async def start(self, ext, **kw):
        h = FakeHost(ext)
        self.hosts.append(h)
        self.init = await h.start(**kw)
        return h

    async def test_PY_06_str_result_is_one_text_part_and_dict_results_map(self):
        """PY-06: @ext.tool registers a dict-args tool; a str is one text part; dicts carry
        is_error/structured_content/metadata."""
        ext = Extension(api_version="0.2")

        @ext.tool(name="hello", description="greet")
        def hello(args):
            return f"Hello {args.get('name', 'x')}"

        @ext.tool(name="rich", description="rich", output_schema={"type": "object"})
        async def rich(args, ctx):
            return {"content": "r", "structured_content": {"n": 1}, "metadata": {"m": True}}

        @ext.tool(name="boom", description="fails")
        def boom(args):
            raise ValueError("bad thing")

        h = await self.start(ext)
        self.assertEqual([t["name"] for t in self.init["tools"]], ["hello", "rich", "boom"])
        self.assertEqual(self.init["tools"][0]["parameters"], {"type": "object", "properties": {}})
        r = await h.response(await h.tool("hello", {"name": "you"}))
        self.assertEqual(r["result"], {"content": [{"type": "text", "text": "Hello you"}], "is_error": False})
        r = await h.response(await h.tool("rich"))
        self.assertEqual(
            r["result"],
            {
                "content": [{"type": "text", "text": "r"}],
                "is_error": False,
                "structured_content": {"n": 1},
                "metadata": {"m": True},
            },
        )
        r = await h.response(await h.tool("boom"))
        self.assertEqual(r["result"], {"content": [{"type": "text", "text": "Error: bad thing"}], "is_error": True})

    async def test_PY_06_api_01_content_is_text(self):
        """PY-06: on API 0.1 the same str result is the 0.1 text content."""
        ext = Extension(api_version="0.1")
        ext.tool(name="hello", description="greet")(lambda args: "hi")
        h = await self.start(ext)
        self.assertEqual(
            self.init,
            {
                "api_version": "0.1",
                "tools": [
                    {"name": "hello", "description": "greet", "parameters": {"type": "object", "properties": {}}}
                ],
                "commands": [],
            },
        )
        self.assertEqual((await h.response(await h.tool("hello")))["result"], {"content": "hi", "is_error": False})

    async def test_PY_06_registration_checks_and_wire_errors(self):
        """PY-06: bad names, duplicate tools, 0.4-only metadata refused at registration; unknown tool -32602, unknown
        method -32601, before initialize -32002, mapped author codes."""
        ext = Extension(api_version="0.2")
        with self.assertRaisesRegex(ValueError, "does not match"):
            ext.tool(name="bad name", description="d")(lambda a: "")
        with self.assertRaisesRegex(ValueError, "need API 0.4"):
            ext.tool(name="t", description="d", prompt_snippet="s")(lambda a: "")
        ext.tool(name="t", description="d")(lambda a: (_ for _ in ()).throw(WireError(-32601, "nope")))
        with self.assertRaisesRegex(ValueError, "registered twice"):
            ext.tool(name="t", description="d")(lambda a: "")
        h = FakeHost(ext)
        self.hosts.append(h)
        h.task = asyncio.ensure_future(ext._serve(h.inbox.get, h.writer))
        early = await h.response(h.request("tool/call", {"name": "t", "arguments": {}, "context": CONTEXT}))
        self.assertEqual(early["error"]["code"], ErrorCode.UNAVAILABLE)
        await h.call("initialize", {"api_version": "0.2", "protocol": {}})
        self.assertEqual((await h.response(await h.tool("nope")))["error"]["code"], -32602)
        self.assertEqual((await h.response(h.request("no/such")))["error"]["code"], -32601)
        mapped = await h.response(await h.tool("t"))
        self.assertEqual(mapped["error"]["code"], -32603)
        self.assertIn("outside the -32000..-32099 server range", mapped["error"]["message"])
        h.send_raw(b"{oops\n")
        self.assertEqual((await h.expect(lambda f: f.get("id") is None))["error"]["code"], -32700)

    async def test_PY_07_shutdown_answers_and_exits_zero_and_eof_exits(self):
        """PY-07: shutdown is answered {} and serving ends with code 0 without waiting for requests in flight."""
        ext = Extension(api_version="0.2")

        @ext.tool(name="forever", description="never returns")
        async def forever(args):
            await asyncio.sleep(60)

        h = await self.start(ext)
        await h.tool("forever")
        self.assertEqual(await h.call("shutdown"), {})
        self.assertEqual(await asyncio.wait_for(h.task, 5), 0)
        ext2 = Extension(api_version="0.1")
        h2 = await self.start(ext2)
        h2.send_raw(b"")
        self.assertEqual(await asyncio.wait_for(h2.task, 5), 0)

    async def test_PY_07_oversized_input_exits_one(self):
        """PY-07: a frame from the host over 1 MiB makes the SDK stop with code 1."""
        h = await self.start(Extension(api_version="0.2"))
        h.send_raw(b"x" * (1_048_576 + 1))
        self.assertEqual(await asyncio.wait_for(h.task, 5), 1)

    async def test_PY_04_never_more_than_the_negotiated_limit_at_once(self):
        """PY-04: with max_concurrent_requests=2, five slow calls never run more than two handlers at once."""
        ext = Extension(api_version="0.2", max_concurrent_requests=2)
        lock = threading.Lock()
        state = {"now": 0, "peak": 0}

        @ext.tool(name="busy", description="busy")
        def busy(args):
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            time.sleep(0.05)
            with lock:
                state["now"] -= 1
            return "ok"

        h = await self.start(ext)
        self.assertEqual(self.init["protocol"]["limits"], {"max_concurrent_requests": 2})
        ids = [await h.tool("busy") for _ in range(5)]
        for rid in ids:
            self.assertEqual(text_of(await h.response(rid)), "ok")
        self.assertEqual(state["peak"], 2)

    async def test_CANCEL_13_cancellation_per_request_sync_and_async(self):
        """PY-57: ext.cancellation.raise_if_cancelled() in a sync handler (worker thread) and an async one answers
        -32800 for the cancelled request only."""
        ext = Extension(api_version="0.4")

        @ext.tool(name="spin", description="spin")
        def spin(args):
            for _ in range(500):
                ext.cancellation.raise_if_cancelled()
                time.sleep(0.01)
            return "finished"

        @ext.tool(name="aspin", description="async spin")
        async def aspin(args, ctx):
            for _ in range(500):
                ext.cancellation.raise_if_cancelled()
                await asyncio.sleep(0.01)
            return "finished"

        h = await self.start(ext)
        keep = await h.tool("spin", {})
        stop = await h.tool("spin", {})
        astop = await h.tool("aspin", {})
        await asyncio.sleep(0.05)
        h.notify("$/cancelRequest", {"id": stop, "reason": "user"})
        h.notify("$/cancelRequest", {"id": astop})
        self.assertEqual((await h.response(stop))["error"]["code"], -32800)
        self.assertEqual((await h.response(astop))["error"]["code"], -32800)
        with self.assertRaises(AssertionError):
            await h.response(keep, timeout=0.2)
        h.notify("$/cancelRequest", {"id": keep})
        self.assertEqual((await h.response(keep))["error"]["code"], -32800)
        self.assertFalse(ext.cancellation.cancelled)  # outside a handler: no request, not cancelled
        ext.cancellation.raise_if_cancelled()

    async def test_CANCEL_04_cancelled_while_queued_never_runs(self):
        """PY-04: a request cancelled while waiting for a slot is answered -32800 and its handler never runs."""
        ext = Extension(api_version="0.2", max_concurrent_requests=1)
        ran = []
        gate = threading.Event()

        @ext.tool(name="hold", description="hold")
        def hold(args):
            ran.append(args["n"])
            gate.wait(5)
            return "held"

        h = await self.start(ext)
        first = await h.tool("hold", {"n": 1})
        queued = await h.tool("hold", {"n": 2})
        await asyncio.sleep(0.05)
        h.notify("$/cancelRequest", {"id": queued})
        self.assertEqual((await h.response(queued))["error"]["code"], -32800)
        gate.set()
        self.assertEqual(text_of(await h.response(first)), "held")
        self.assertEqual(ran, [1])

    async def test_issue_13_12_cancelled_while_queued_is_answered_while_the_slot_is_held(self):
        """issue 13.12, PY-04: a request cancelled while queued is answered -32800 at once, while the handler holding
        the only slot still runs (the host's cancel grace is 2 s)."""
        ext = Extension(api_version="0.2", max_concurrent_requests=1)
        gate = threading.Event()

        @ext.tool(name="hold", description="hold")
        def hold(args):
            gate.wait(10)
            return "held"

        h = await self.start(ext)
        try:
            first = await h.tool("hold", {"n": 1})
            queued = await h.tool("hold", {"n": 2})
            await asyncio.sleep(0.05)
            h.notify("$/cancelRequest", {"id": queued})
            self.assertEqual((await h.response(queued, timeout=4.0))["error"]["code"], -32800)
            self.assertFalse(gate.is_set())
        finally:
            gate.set()
        self.assertEqual(text_of(await h.response(first)), "held")

    async def test_PY_57_progress_sequences_and_no_op_without_feature(self):
        """PY-57: ext.progress sends strictly increasing sequences for the running request, nothing without
        request_progress, and raises outside a handler."""
        ext = Extension(api_version="0.4")

        @ext.tool(name="p", description="p")
        def p(args):
            for i in range(3):
                ext.progress.status(f"step {i}", current=i, total=3, unit="steps")
            ext.progress.decoration("label")
            return "done"

        h = await self.start(ext)
        rid = await h.tool("p")
        seqs = []
        for _ in range(3):
            f = await h.expect(lambda f: f.get("method") == "$/progress" and f["params"]["event"]["type"] == "status")
            self.assertEqual(f["params"]["request_id"], rid)
            seqs.append(f["params"]["sequence"])
        self.assertEqual(seqs, [1, 2, 3])
        self.assertEqual(
            (await h.expect(lambda f: f.get("method") == "$/progress"))["params"]["event"],
            {"type": "decoration", "label": "label"},
        )
        await h.response(rid)
        with self.assertRaisesRegex(RuntimeError, "outside a request handler"):
            ext.progress.status("x")
        with self.assertRaisesRegex(ValueError, "finite number"):
            from octet_extension.progress import RequestProgress
            RequestProgress(None, ext._link).status("x", current=-1)
        quiet = Extension(api_version="0.2")
        quiet.tool(name="p", description="p")(p)
        hq = await self.start(quiet, offer={"required_features": ["request_cancellation", "content_parts"]})
        rid = await hq.tool("p")
        await hq.response(rid)
        self.assertFalse(any(f.get("method") == "$/progress" for f in hq.seen))

    async def test_PY_57_confirm_input_are_parented_blocking_and_given_up_on_cancel(self):
        """PY-57: ext.confirm/ext.input block a sync handler, carry parent_request_id, read refusals as False/None, and
        are given up when the parent is cancelled."""
        ext = Extension(api_version="0.2")

        @ext.tool(name="ask", description="ask")
        def ask(args):
            ok = ext.confirm("Go?", destructive=True)
            value = ext.input("Name?")
            return f"{ok} {value}"

        @ext.tool(name="async_ask", description="ask")
        async def async_ask(args, ctx):
            return str(await ctx.confirm("Async?"))

        h = await self.start(ext)
        rid = await h.tool("ask")
        c = await h.expect(lambda f: f.get("method") == "confirmation/request")
        self.assertEqual(
            c["params"], {"prompt": "Go?", "destructive": True, "default": False, "parent_request_id": rid}
        )
        h.respond(c["id"], {"confirmed": True})
        i = await h.expect(lambda f: f.get("method") == "input/request")
        self.assertEqual(i["params"], {"parent_request_id": rid, "prompt": "Name?", "secret": False})
        h.respond(i["id"], error={"code": -32002, "message": "no frontend"})
        self.assertEqual(text_of(await h.response(rid)), "True None")
        rid = await h.tool("async_ask")
        c = await h.expect(lambda f: f.get("method") == "confirmation/request")
        h.respond(c["id"], error={"code": -32603, "message": "refused"})
        self.assertEqual(text_of(await h.response(rid)), "False")
        rid = await h.tool("ask")
        c = await h.expect(lambda f: f.get("method") == "confirmation/request")
        h.notify("$/cancelRequest", {"id": rid})
        self.assertEqual((await h.response(rid))["error"]["code"], -32800)
        h.respond(c["id"], {"confirmed": True})  # late: dropped by id, and serving goes on
        rid = await h.tool("async_ask")
        c = await h.expect(lambda f: f.get("method") == "confirmation/request")
        h.respond(c["id"], {"confirmed": True})
        self.assertEqual(text_of(await h.response(rid)), "True")

    async def test_issue_13_review_an_unawaited_helper_names_what_the_author_called(self):
        """issue 13 review: the TypeError of a helper used without await in an async def handler names the helper
        as the author wrote it (ctx.confirm, ext.input, ext.policy.evaluate), not an internal function."""
        ext = Extension(api_version="0.2")

        @ext.tool(name="forgot", description="forgets await")
        async def forgot(args, ctx):
            messages = []
            for answer in (ctx.confirm("A?"), ext.input("B?"), ctx.publish_artifact(b"x", "text/plain"),
                           ext.policy.evaluate("net.fetch", {"origin": "https://example.test", "label": "x"})):
                try:
                    bool(answer)
                except TypeError as err:
                    messages.append(str(err))
                answer.close()
            return "\n".join(messages)

        h = await self.start(ext)
        lines = text_of(await h.response(await h.tool("forgot"))).split("\n")
        self.assertEqual(lines[0], "`ctx.confirm(...)` was not awaited: in an async def handler it returns an"
                                   " awaitable, so write `await ctx.confirm(...)` (its truth value is not the host's"
                                   " answer)")
        self.assertEqual([line.split(" was not awaited")[0] for line in lines],
                         ["`ctx.confirm(...)`", "`ext.input(...)`", "`ctx.publish_artifact(...)`",
                          "`ext.policy.evaluate(...)`"])

    async def test_PY_57_helpers_refused_outside_a_parent(self):
        """PY-57: helpers outside a tool/call or command/execute handler are refused locally, before anything is
        sent."""
        ext = Extension(api_version="0.2")
        with self.assertRaisesRegex(RuntimeError, "only after the host initialized"):
            ext.notify("t", "m")

        @ext.hook("before_prompt")
        def hook(payload):
            ext.confirm("in a hook?")

        h = await self.start(ext)
        with self.assertRaisesRegex(RuntimeError, "no request is running"):
            ext.confirm("x")
        r = await h.response(
            h.request("hook/run", {"hook": "before_prompt", "payload": {"prompt": "p"}, "context": CONTEXT})
        )
        self.assertIn("only in a tool/call or command/execute handler", r["error"]["message"])

    async def test_PY_57_policy_secrets_artifacts(self):
        """PY-57: evaluate_policy/authorize with the approval retry, get_secret, and publish_artifact inline with
        SHA-256, all parented."""
        ext = Extension(api_version="0.2")

        @ext.tool(name="guarded", description="g")
        def guarded(args):
            allowed = ext.policy.authorize("browser.submit", {"origin": "https://x.test", "label": "X"})
            secret = ext.get_secret("token")
            art = ext.publish_artifact(b"\x89PNG\r\n\x1a\nxx", "image/png", alt="a")
            return {"content": [{"type": "text", "text": f"{allowed} {secret}"}, art["part"]]}

        h = await self.start(ext)
        rid = await h.tool("guarded")
        p1 = await h.expect(lambda f: f.get("method") == "policy/evaluate")
        self.assertEqual(
            p1["params"]["intent"],
            {
                "kind": "external_side_effect",
                "operation": "browser.submit",
                "target": {"origin": "https://x.test", "label": "X"},
                "data_classes": [],
                "adapter_hints": {"read_only": False, "destructive": False},
            },
        )
        token = "ab" * 32
        h.respond(p1["id"], {"decision": "ask", "approval_token": token})
        p2 = await h.expect(lambda f: f.get("method") == "policy/evaluate")
        self.assertEqual(p2["params"]["approval_token"], token)
        h.respond(p2["id"], {"decision": "allow"})
        s = await h.expect(lambda f: f.get("method") == "secret/get")
        self.assertEqual(s["params"], {"parent_request_id": rid, "name": "token"})
        h.respond(s["id"], {"value": "s3cret"})
        a = await h.expect(lambda f: f.get("method") == "artifact/publish")
        data = b"\x89PNG\r\n\x1a\nxx"
        self.assertEqual(
            a["params"],
            {
                "parent_request_id": rid,
                "mime_type": "image/png",
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "data": {"encoding": "base64", "data": base64.b64encode(data).decode()},
            },
        )
        h.respond(a["id"], {"artifact_id": "art-1"})
        r = await h.response(rid)
        self.assertEqual(
            r["result"]["content"],
            [
                {"type": "text", "text": "True s3cret"},
                {"type": "image", "artifact_id": "art-1", "mime_type": "image/png", "alt": "a"},
            ],
        )

    async def test_PY_49_cache_warming_decision_results(self):
        """PY-46, PY-49: @ext.cache_warming_decision returns warm/stop/None; the helper builds the typed result; invalid
        actions fail closed."""
        self.assertEqual(cache_warming_decision("warm"), {"cache_warming_decision": "warm"})
        with self.assertRaisesRegex(ValueError, "must be"):
            cache_warming_decision("maybe")
        ext = Extension(api_version="0.4")
        answers = iter(["stop", None, {}, "sideways"])

        @ext.cache_warming_decision
        def advise(payload, ctx):
            return next(answers)

        h = await self.start(ext)
        self.assertIn("cache_warming_decision", self.init["protocol"]["features"])
        payload = {"decision": {"phase": "idle", "warm_cost_microdollars": 1}, "model": {}}
        results = [
            await h.response(
                h.request("hook/run", {"hook": "cache_warming_decision", "payload": payload, "context": CONTEXT})
            )
            for _ in range(4)
        ]
        self.assertEqual(
            [r.get("result") for r in results[:3]],
            [{"cache_warming_decision": "stop"}, {"cache_warming_decision": None}, {"cache_warming_decision": None}],
        )
        self.assertIn("error", results[3])

    async def test_PY_43_compaction_strategy_hook(self):
        """PY-43, PY-45: @ext.hook("compaction_strategy") gets {model_id, text} and returns {"compaction_frames":
        [base64 PNG]}; more than 16 frames or a non-PNG frame fails the hook."""
        ext = Extension(api_version="0.4")
        png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"x" * 8).decode()
        answers = iter([[png], [png] * 17, [base64.b64encode(b"GIF89a").decode()]])
        seen = []

        @ext.hook("compaction_strategy")
        def compact(payload):
            seen.append(payload)
            return {"compaction_frames": next(answers)}

        h = await self.start(ext)
        self.assertIn("compaction_strategy", self.init["protocol"]["features"])
        payload = {"model_id": "m", "text": "t"}
        results = [
            await h.response(
                h.request("hook/run", {"hook": "compaction_strategy", "payload": payload, "context": CONTEXT})
            )
            for _ in range(3)
        ]
        self.assertEqual(results[0]["result"], {"compaction_frames": [png]})
        self.assertIn("17 frames, over the limit of 16", results[1]["error"]["message"])
        self.assertIn("is not a base64 PNG", results[2]["error"]["message"])
        self.assertEqual(seen[0], payload)

    async def test_PY_06_register_tool_internal_contract(self):
        """PY-06: ext._register_tool(definition, handler(arguments, ctx)) — the contract typed tools build on: sync and
        async handlers, ambient cancellation, WireError -32602."""
        ext = Extension(api_version="0.4")

        def sync_handler(arguments, ctx):
            ext.cancellation.raise_if_cancelled()
            if "bad" in arguments:
                raise WireError(-32602, "invalid arguments: bad")
            return {"content": "ok", "structured_content": {"method": ctx.method}}

        async def async_handler(arguments, ctx):
            return "async ok"

        ext._register_tool(
            {
                "name": "typed",
                "description": "t",
                "parameters": {"type": "object"},
                "output_schema": {"type": "object"},
            },
            sync_handler,
        )
        ext._register_tool({"name": "atyped", "description": "t"}, async_handler)
        h = await self.start(ext)
        r = await h.response(await h.tool("typed"))
        self.assertEqual(r["result"]["structured_content"], {"method": "tool/call"})
        self.assertEqual((await h.response(await h.tool("typed", {"bad": 1})))["error"]["code"], -32602)
        self.assertEqual(text_of(await h.response(await h.tool("atyped"))), "async ok")


if __name__ == "__main__":
    unittest.main()
