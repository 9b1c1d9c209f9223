"""A fake host for driving an Extension in-process: frames in through _serve's chunk source,
frames out through a FrameWriter whose sink records them. Every wait has a deadline."""
import asyncio
import json
import queue
from typing import Any, Callable, Dict, List, Optional

from octet_extension.writer import FrameWriter

OFFER = {
    "required_features": ["request_cancellation", "content_parts"],
    "optional_features": [
        "request_progress",
        "progress_decoration",
        "artifacts",
        "lifecycle_events",
        "policy_intents",
        "approvals",
        "secrets",
        "dynamic_tools",
        "tool_prompt_metadata_v1",
        "cache_warming_decision",
        "compaction_strategy",
    ],
    "limits": {"max_concurrent_requests": 64},
}
CONTEXT = {
    "workspace": "/w",
    "execution_scope": None,
    "host": {"session_id": "s", "session_name": None, "model": None, "reasoning": None, "active_skills": []},
    "resource_owner": {"session_id": "s", "extension_instance_id": "i", "process_generation": 1},
}


class FakeHost:
    def __init__(self, ext: Any) -> None:
        self.ext = ext
        self.inbox: "asyncio.Queue[bytes]" = asyncio.Queue()
        self.out: "queue.Queue[dict]" = queue.Queue()
        self.seen: List[dict] = []
        self.writer = FrameWriter(lambda data: self.out.put(json.loads(data)))
        self.task: Optional[asyncio.Task] = None
        self.next_id = 1

    async def start(self, api: Optional[str] = None, offer: Any = OFFER, contributes: Optional[dict] = None) -> dict:
        self.task = asyncio.ensure_future(self.ext._serve(self.inbox.get, self.writer))
        params: Dict[str, Any] = {"api_version": api or self.ext.api_version, "contributes": contributes or {}}
        if (api or self.ext.api_version) != "0.1":
            params["protocol"] = offer
        return await self.call("initialize", params)

    def send_raw(self, data: bytes) -> None:
        self.inbox.put_nowait(data)

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: Any = None) -> int:
        rid = self.next_id
        self.next_id += 1
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def respond(self, rid: Any, result: Any = None, error: Optional[dict] = None) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, **({"error": error} if error else {"result": result})})

    async def expect(self, predicate: Callable[[dict], bool], timeout: float = 5.0) -> dict:
        """The first frame (earlier unconsumed ones included) matching predicate; consumed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for frame in self.seen:
                if predicate(frame):
                    self.seen.remove(frame)
                    return frame
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no matching frame within {timeout}s; unconsumed: {self.seen}")
            try:
                self.seen.append(await loop.run_in_executor(None, self.out.get, True, min(remaining, 0.2)))
            except queue.Empty:
                pass

    async def response(self, rid: Any, timeout: float = 5.0) -> dict:
        return await self.expect(lambda f: f.get("id") == rid and "method" not in f, timeout)

    async def call(self, method: str, params: Any = None) -> Any:
        frame = await self.response(self.request(method, params))
        if "error" in frame:
            raise AssertionError(f"{method} failed: {frame['error']}")
        return frame["result"]

    async def tool(self, name: str, arguments: Optional[dict] = None, **extra: Any) -> int:
        return self.request("tool/call", {"name": name, "arguments": arguments or {}, "context": CONTEXT, **extra})

    async def stop(self) -> int:
        if self.task is None:
            return 0
        if not self.task.done():
            self.send_raw(b"")
        return await asyncio.wait_for(self.task, 5)
