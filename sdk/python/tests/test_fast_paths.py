"""The per-call fast paths (issue 19): inline tools on the event loop, def tools answered from
their worker thread, the loop reading a descriptor itself, and the writer's direct and batched
writes, each still keeping its guarantee (the request's scope, whole frames in order, a queued
frame withdrawable, a started one finished)."""
import asyncio
import json
import os
import socket
import tempfile
import threading
import unittest

from harness import CONTEXT, OFFER, FakeHost
from octet_extension import Extension
from octet_extension.writer import FrameWriter


def text_of(frame):
    return frame["result"]["content"][0]["text"]


class InlineToolTest(unittest.IsolatedAsyncioTestCase):
    async def test_an_inline_tool_runs_on_the_loop_in_its_request(self):
        """An inline=True def tool runs on the event loop's thread, sees its own request (ctx and
        ext.cancellation) and maps its value and its errors as any tool."""
        ext = Extension(api_version="0.4")
        seen = {}

        @ext.tool(name="fast", description="fast", inline=True)
        def fast(args, ctx):
            seen["thread"] = threading.current_thread()
            seen["request"] = ctx.request_id
            seen["cancelled"] = ext.cancellation.cancelled
            return f"got {args['n']}"

        @ext.tool(name="bad", description="bad", inline=True)
        def bad(args):
            raise ValueError("nope")

        @ext.tool(name="slow", description="slow")
        def slow(args):
            seen["worker"] = threading.current_thread()
            return "slow"

        h = FakeHost(ext)
        await h.start()
        try:
            rid = await h.tool("fast", {"n": 1})
            self.assertEqual(text_of(await h.response(rid)), "got 1")
            self.assertIs(seen["thread"], threading.current_thread())
            self.assertEqual(seen["request"], rid)
            self.assertFalse(seen["cancelled"])
            r = await h.response(await h.tool("bad"))
            self.assertEqual(r["result"], {"content": [{"type": "text", "text": "Error: nope"}], "is_error": True})
            self.assertEqual(text_of(await h.response(await h.tool("slow"))), "slow")
            self.assertIsNot(seen["worker"], threading.current_thread())
            # Params are still checked before any handler runs.
            bad_params = await h.response(h.request("tool/call", {"name": "fast", "arguments": [], "context": CONTEXT}))
            self.assertEqual(bad_params["error"]["code"], -32602)
        finally:
            await h.stop()

    def test_inline_is_for_def_handlers(self):
        """inline=True on an async def handler fails at registration; inline must be a bool."""
        ext = Extension(api_version="0.4")
        with self.assertRaises(ValueError):
            @ext.tool(name="a", description="a", inline=True)
            async def a(args):
                return "a"
        with self.assertRaises(TypeError):
            @ext.tool(name="b", description="b", inline="yes")
            def b(args):
                return "b"

    async def test_a_def_tool_returning_an_awaitable_is_awaited(self):
        """A def tool (worker thread or inline) that returns a coroutine has it awaited on the loop."""
        ext = Extension(api_version="0.4")

        async def later(text):
            await asyncio.sleep(0)
            return text

        @ext.tool(name="w", description="w")
        def w(args):
            return later("from a worker")

        @ext.tool(name="i", description="i", inline=True)
        def i(args):
            return later("inline")

        h = FakeHost(ext)
        await h.start()
        try:
            self.assertEqual(text_of(await h.response(await h.tool("w"))), "from a worker")
            self.assertEqual(text_of(await h.response(await h.tool("i"))), "inline")
        finally:
            await h.stop()


class DescriptorServingTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_loop_reads_a_socket_and_answers_through_the_direct_writer(self):
        """_serve with a socket as stdin and a socket writer: requests read by the loop itself,
        answers whole, one per request, EOF ends with code 0."""
        ext = Extension(api_version="0.4")

        @ext.tool(name="echo", description="echo", inline=True)
        def echo(args):
            return args["text"]

        @ext.tool(name="threaded", description="threaded")
        def threaded(args):
            return args["text"].upper()

        host_in, ext_in = socket.socketpair()
        ext_out, host_out = socket.socketpair()
        host_out.setblocking(False)
        writer = FrameWriter.for_fd(ext_out.fileno())

        async def never() -> bytes:
            raise AssertionError("the descriptor is read by the loop, not through next_chunk")

        task = asyncio.ensure_future(ext._serve(never, writer, ext_in.fileno()))
        frames = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"api_version": "0.4", "contributes": {}, "protocol": OFFER}}]
        for n in range(1, 41):
            frames.append({"jsonrpc": "2.0", "id": n, "method": "tool/call", "params": {
                "name": "echo" if n % 2 else "threaded", "arguments": {"text": f"t{n}"}, "context": CONTEXT}})
        host_in.sendall(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
        got = {}
        buf = b""
        loop = asyncio.get_running_loop()
        while len(got) < 41:
            chunk = await asyncio.wait_for(loop.sock_recv(host_out, 65536), 5)
            self.assertTrue(chunk)
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                frame = json.loads(line)
                got[frame["id"]] = frame
        for n in range(1, 41):
            self.assertEqual(text_of(got[n]), f"t{n}" if n % 2 else f"T{n}")
        host_in.shutdown(socket.SHUT_WR)
        self.assertEqual(await asyncio.wait_for(task, 5), 0)
        for s in (host_in, ext_in, ext_out, host_out):
            s.close()

    async def test_a_regular_file_is_read_through_next_chunk(self):
        """A descriptor the loop cannot wait on (a regular file) falls back to next_chunk."""
        ext = Extension(api_version="0.4")
        out = []
        writer = FrameWriter(out.append)
        chunks = [b""]

        async def next_chunk() -> bytes:
            return chunks.pop(0)

        with tempfile.TemporaryFile() as f:
            code = await asyncio.wait_for(ext._serve(next_chunk, writer, f.fileno()), 5)
        self.assertEqual(code, 0)
        self.assertEqual(chunks, [])


class DirectWriterTest(unittest.TestCase):
    def _reader(self, sock, into, stop_at):
        def run():
            buf = b""
            while len(into) < stop_at:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buf += chunk
                *lines, buf = buf.split(b"\n")
                into.extend(lines)
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t

    def test_frames_from_many_threads_stay_whole_and_in_order_through_a_small_socket_buffer(self):
        """Direct writes that the socket takes only in part finish on the writer thread before
        any other frame: every frame whole, each thread's in order (FRAME-08)."""
        a, b = socket.socketpair()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        w = FrameWriter.for_fd(a.fileno())
        lines = []
        reader = self._reader(b, lines, 4 * 150)

        def produce(t):
            for i in range(150):
                pad = "x" * (i * 97 % 20000)
                w.send(json.dumps({"t": t, "i": i, "pad": pad}).encode() + b"\n")
        threads = [threading.Thread(target=produce, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertTrue(w.wait_idle(10))
        reader.join(10)
        frames = [json.loads(line) for line in lines]
        self.assertEqual(len(frames), 600)
        for t in range(4):
            self.assertEqual([f["i"] for f in frames if f["t"] == t], list(range(150)))
        a.close()
        b.close()

    def test_corked_frames_leave_together_and_a_withdrawn_one_not_at_all(self):
        """While corked, the loop thread's frames are held (still withdrawable) and leave in
        order at uncork; other threads' frames are not held."""
        written = []
        w = FrameWriter(written.append)
        w.never_wait_on(threading.current_thread())
        w.cork()
        w.send(b"1\n")
        second = w.send(b"2\n")
        w.send(b"3\n")
        other = threading.Thread(target=lambda: w.send(b"other\n"))
        other.start()
        other.join()
        self.assertTrue(w.wait_idle(5))
        self.assertEqual(written, [b"other\n"])
        self.assertTrue(w.withdraw(second))
        w.uncork()
        self.assertTrue(w.wait_idle(5))
        self.assertEqual(b"".join(written), b"other\n1\n3\n")
        self.assertEqual(second.state, "withdrawn")

    def test_the_first_large_frame_runs_the_hook_once(self):
        """for_fd's on_first_large_frame runs once, before the first frame over 64 KiB."""
        a, b = socket.socketpair()
        calls = []
        w = FrameWriter.for_fd(a.fileno(), on_first_large_frame=lambda: calls.append(1))
        lines = []
        reader = self._reader(b, lines, 3)
        w.send(b"small\n")
        self.assertEqual(calls, [])
        w.send(b"y" * 70000 + b"\n")
        w.send(b"z" * 70000 + b"\n")
        self.assertEqual(calls, [1])
        self.assertTrue(w.wait_idle(5))
        reader.join(5)
        self.assertEqual([len(x) for x in lines], [5, 70000, 70000])
        a.close()
        b.close()


if __name__ == "__main__":
    unittest.main()
