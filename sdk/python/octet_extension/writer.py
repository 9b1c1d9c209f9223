"""Sole ownership of the extension's stdout (FRAME-03, FRAME-07, FRAME-08).

take_stdout() runs when the Extension is created, before author code can print: it keeps a
private duplicate of file descriptor 1 for the SDK, points descriptor 1 at stderr (so print(),
sys.__stdout__, C extensions and child processes that inherit stdout all land on stderr), and
replaces sys.stdout with a line-buffered forwarder to sys.stderr. The private descriptor is then
the only way to the host.

FrameWriter is the one writer of that descriptor: a single thread drains one FIFO queue, writing
each frame whole, so frames from the event loop and from handler threads never interleave. A
frame not yet started can be withdrawn (cancel before write sends nothing); a frame once started
is always finished. Producers on handler threads wait while more than MAX_WRITER_QUEUE_BYTES are
queued (backpressure); the event loop never waits.

Two shortcuts keep the common case to one system call and no thread switch, without giving up
any of that: a frame sent while nothing is queued or being written is written at once by the
sending thread, if the descriptor takes it without blocking (a socket, sent with MSG_DONTWAIT;
whatever it does not take goes to the writer thread as a started frame, finished before any
other); and while the event loop is corked (handling one chunk of input) its frames are
gathered and written together when it uncorks, one write per batch instead of one per frame.
"""
import io
import os
import socket
import stat
import sys
import threading
from collections import deque
from typing import Callable, Deque, List, Optional

from ._bounds import MAX_WRITER_QUEUE_BYTES

__all__ = ["take_stdout", "FrameWriter", "Ticket"]

_taken_fd: Optional[int] = None
#: The largest frame the sending thread writes itself. A larger one goes to the writer thread:
#: a non-blocking send of 512 KiB into a socket that takes part of it and the copy of the rest
#: cost 4-5 ms of CPU (measured, mostly system time), against under 2 ms for the thread's write.
_DIRECT_MAX_BYTES = 65536
_lock = threading.Lock()


class _StderrForward(io.TextIOBase):
    """What sys.stdout becomes: every write goes to the current sys.stderr, flushed per line."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        err = sys.stderr
        err.write(text)
        if "\n" in text:
            err.flush()
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()

    @property
    def buffer(self):  # sys.stdout.buffer.write(b"...") also goes to stderr
        return getattr(sys.stderr, "buffer", None)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(sys.stderr, "encoding", "utf-8")

    def fileno(self) -> int:
        return sys.stderr.fileno()

    def isatty(self) -> bool:
        return False


def take_stdout() -> int:
    """The SDK's private stdout descriptor; idempotent. Afterwards nothing else reaches fd 1's
    original target."""
    global _taken_fd
    with _lock:
        if _taken_fd is not None:
            return _taken_fd
        try:
            sys.stdout.flush()
        except Exception:  # a closed or replaced stdout: nothing to keep
            pass
        fd = os.dup(1)
        os.set_inheritable(fd, False)  # children never get the protocol stream
        os.dup2(2, 1)
        sys.stdout = _StderrForward()
        _taken_fd = fd
        return fd


class Ticket:
    __slots__ = ("data", "state")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.state = "queued"  # queued -> writing -> done, or queued -> withdrawn


class FrameWriter:
    """One writer thread, one queue. `sink(data)` must write all of data or raise."""

    def __init__(self, sink: Callable[[bytes], None], max_queued_bytes: int = MAX_WRITER_QUEUE_BYTES,
                 try_write: Optional[Callable[[memoryview], int]] = None) -> None:
        self._sink = sink
        self._try_write = try_write  # writes what it can without blocking; the count written
        self._max = max_queued_bytes
        self._queue: Deque[Ticket] = deque()
        self._queued_bytes = 0
        self._busy = False
        self._cond = threading.Condition()
        self.broken: Optional[BaseException] = None
        self._closed = False
        self._no_wait_ident: Optional[int] = None  # the event loop's thread (compared per frame)
        self._corked: Optional[List[Ticket]] = None  # the event loop's frames while it is corked
        self._on_large: Optional[Callable[[], None]] = None
        self._thread = threading.Thread(target=self._run, name="octet-stdout-writer", daemon=True)
        self._thread.start()

    @classmethod
    def for_fd(cls, fd: int, on_first_large_frame: Optional[Callable[[], None]] = None) -> "FrameWriter":
        """The writer of descriptor `fd`; `on_first_large_frame()` runs (once, on the sending
        thread) before the first frame over 64 KiB is queued."""
        def sink(data: bytes) -> None:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        writer = cls(sink, try_write=_nonblocking_send(fd))
        writer._on_large = on_first_large_frame
        return writer

    def never_wait_on(self, thread: threading.Thread) -> None:
        """The event loop's thread: sends from it never block on backpressure."""
        self._no_wait_ident = thread.ident

    def cork(self) -> None:
        """From the event loop's thread only: its frames are held until uncork()."""
        if self._corked is None and threading.get_ident() == self._no_wait_ident:
            self._corked = []

    def uncork(self) -> None:
        """Writes the frames held since cork() as one batch (each still whole, in order)."""
        held, self._corked = self._corked, None
        if not held:
            return
        with self._cond:
            live = [t for t in held if t.state == "queued"]
            # Counted while held (withdraw() took its own out); _enqueue counts what it queues.
            self._queued_bytes -= sum(len(t.data) for t in live)
            if not live or self.broken is not None:
                return
            if len(live) == 1:
                batch = live[0]
            else:
                # One ticket for the batch: its frames are started together (none can be withdrawn
                # any more), and the batch is finished whole like any frame.
                batch = Ticket(b"".join([t.data for t in live]))
                for t in live:
                    t.state = "writing"
            self._enqueue(batch)

    def send(self, data: bytes) -> Ticket:
        if len(data) > _DIRECT_MAX_BYTES and self._on_large is not None:
            on_large, self._on_large = self._on_large, None
            on_large()  # before any lock is taken: it may import
        ticket = Ticket(data)
        corked = self._corked
        if corked is not None and threading.get_ident() == self._no_wait_ident:
            with self._cond:
                if self.broken is not None or self._closed:
                    ticket.state = "withdrawn"
                else:
                    corked.append(ticket)
                    self._queued_bytes += len(data)
            return ticket
        with self._cond:
            if self.broken is not None or self._closed:
                ticket.state = "withdrawn"
                return ticket
            if threading.get_ident() != self._no_wait_ident:
                while self._queued_bytes > self._max and self.broken is None and not self._closed:
                    self._cond.wait(0.5)
            self._enqueue(ticket)
        return ticket

    def _enqueue(self, ticket: Ticket) -> None:
        """With the lock held: writes the frame at once when the stream is idle and takes it
        without blocking; otherwise (or for the rest of it) queues it for the writer thread."""
        data = ticket.data
        if (self._try_write is not None and len(data) <= _DIRECT_MAX_BYTES and not self._queue and not self._busy
                and self.broken is None):
            try:
                n = self._try_write(memoryview(data))
            except (BlockingIOError, InterruptedError):
                n = 0
            except BaseException as err:  # EPIPE: the host is gone, as in _run
                self._fail(err)
                return
            if n >= len(data):
                # Nobody to wake: the stream was idle before and is idle after (a notify here
                # would wake the writer thread for nothing, and it takes the GIL from the sender).
                ticket.state = "done"
                return
            if n > 0:
                # Started: the rest goes first, and this frame can no longer be withdrawn.
                ticket.state = "writing"
                ticket = Ticket(data[n:])
                ticket.state = "writing"
        self._queue.append(ticket)
        self._queued_bytes += len(ticket.data)
        self._cond.notify_all()

    def _fail(self, err: BaseException) -> None:
        self.broken = err
        self._queue.clear()
        self._queued_bytes = 0
        self._busy = False
        self._cond.notify_all()

    def withdraw(self, ticket: Ticket) -> bool:
        """Removes a frame no byte of which was written; True when it was withdrawn."""
        with self._cond:
            if ticket.state != "queued":
                return ticket.state == "withdrawn"
            ticket.state = "withdrawn"
            self._queued_bytes -= len(ticket.data)
            return True

    def wait_idle(self, timeout: Optional[float] = None) -> bool:
        """Blocks until every queued frame was handed to the OS (or the stream broke)."""
        with self._cond:
            return self._cond.wait_for(lambda: self.broken is not None or (not self._queue and not self._busy), timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                ticket = self._queue.popleft()
                if ticket.state == "withdrawn":
                    self._cond.notify_all()
                    continue
                ticket.state = "writing"
                self._queued_bytes -= len(ticket.data)
                self._busy = True
            try:
                self._sink(ticket.data)
            except BaseException as err:  # EPIPE: the host is gone; nobody can read the rest
                with self._cond:
                    self._fail(err)
                return
            with self._cond:
                ticket.state = "done"
                self._busy = False
                self._cond.notify_all()


def _nonblocking_send(fd: int) -> Optional[Callable[[memoryview], int]]:
    """A write that never blocks, for a socket descriptor (what the octet host gives its
    extensions): send() with MSG_DONTWAIT, so the descriptor itself stays blocking for the
    writer thread. None for anything else (a pipe, a file): those go through the writer thread."""
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode) or not hasattr(socket, "MSG_DONTWAIT"):
            return None
        sock = socket.socket(fileno=os.dup(fd))
    except OSError:
        return None
    flags = socket.MSG_DONTWAIT | getattr(socket, "MSG_NOSIGNAL", 0)
    return lambda data: sock.send(data, flags)
