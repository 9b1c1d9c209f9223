"""glibc's heap tuned for a process that sends large frames: called by the stdout writer of
Extension.run() when the first frame over 64 KiB is sent (never on import: it is a setting of
the whole process, which only run() owns; and importing ctypes costs 5-20 ms of start-up that
a process that never sends a large frame should not pay).

A 512 KiB result is built and dropped several times per call (the JSON text, its UTF-8 bytes,
the frame with its LF). glibc serves blocks that large from fresh mmap()s or returns the top of
its heap to the system as soon as they are freed (its thresholds adapt, but where they settle
depends on the order of unrelated small allocations), so the next call pays page faults again:
measured 1.4 ms of CPU per 512 KiB call with the memory kept, 4 ms (half of it system time)
without, from one unrelated change to the order of allocations. Blocks below 4 MiB (a frame is
at most 1 MiB) come from the heap, and up to 8 MiB free at its top is kept rather than trimmed.
"""
import os

__all__ = ["keep_frame_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_frame_memory() -> None:
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return
        import ctypes  # here: only a glibc process pays for importing it

        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, 4 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 8 << 20)
    except (OSError, ValueError, AttributeError, ImportError):  # no mallopt: the defaults stay, only slower
        pass
