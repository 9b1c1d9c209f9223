"""The threads `def` handlers run on: a pool that hands a job to the thread that went idle last.

Why not concurrent.futures.ThreadPoolExecutor: its idle threads all wait on one queue, so after
a burst (64 calls in flight start 64 threads) each job lands on an arbitrary one of them, with
cold caches and its own malloc arena: a 512 KiB result then costs fresh pages on every call
(measured: 2 -> 9 ms of CPU per call, most of it page faults). The most recently idle thread is
the warm one. A job that needs no Future (the direct tool/call path, which answers from the
thread itself) costs one lock release to start; `submit` gives a Future for run_in_executor.
"""
import concurrent.futures
import threading
from collections import deque
from typing import Any, Callable, Deque, List, Optional, Tuple

__all__ = ["WorkerPool"]

_Job = Tuple[Callable[..., Any], tuple]


class _Worker:
    __slots__ = ("wake", "job")

    def __init__(self) -> None:
        self.wake = threading.Lock()
        self.wake.acquire()  # released to hand this worker a job (or None: exit)
        self.job: Optional[_Job] = None


class WorkerPool(concurrent.futures.Executor):
    def __init__(self, max_workers: int, thread_name_prefix: str = "octet-handler") -> None:
        self._max = max_workers
        self._prefix = thread_name_prefix
        self._lock = threading.Lock()
        self._idle: List[_Worker] = []  # a stack: the last one to go idle is taken first
        self._backlog: Deque[_Job] = deque()
        self._count = 0
        self._closed = False

    def run(self, fn: Callable[..., Any], *args: Any) -> None:
        """Runs fn(*args) on a worker thread, without a Future; what it raises is its own
        business (the caller wraps it). Raises RuntimeError after shutdown."""
        job = (fn, args)
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot run a handler after the pool was shut down")
            if self._idle:
                worker = self._idle.pop()
                worker.job = job
                worker.wake.release()
                return
            if self._count >= self._max:
                self._backlog.append(job)
                return
            self._count += 1
            worker = _Worker()
            worker.job = job
        threading.Thread(target=self._work, args=(worker,), name=f"{self._prefix}_{self._count}", daemon=True).start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> "concurrent.futures.Future[Any]":
        future: "concurrent.futures.Future[Any]" = concurrent.futures.Future()

        def call() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as err:
                future.set_exception(err)
            else:
                future.set_result(result)
        self.run(call)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Idle threads leave now, busy ones after their job; queued jobs still run. Never waits
        for a running handler (shutdown does not wait for requests in flight)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.job = None
            worker.wake.release()

    def _work(self, worker: _Worker) -> None:
        while True:
            job = worker.job
            if job is None:
                return
            worker.job = None
            try:
                job[0](*job[1])
            except BaseException:  # a job reports its own errors; the thread lives on
                pass
            with self._lock:
                if self._backlog:
                    worker.job = self._backlog.popleft()
                    continue
                if self._closed:
                    self._count -= 1
                    return
                self._idle.append(worker)
            worker.wake.acquire()
