"""The single stdout writer and the stdout takeover (FRAME-03, FRAME-07, FRAME-08)."""
import os
import subprocess
import sys
import threading
import unittest

from octet_extension.writer import FrameWriter

SDK = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class WriterTest(unittest.TestCase):
    def test_PY_07_frames_from_many_threads_are_whole_and_in_order_per_thread(self):
        """PY-07: one writer: frames sent from 8 threads at once arrive whole, each thread's in order."""
        written = []
        w = FrameWriter(written.append)

        def produce(t):
            for i in range(200):
                w.send(f'{{"t":{t},"i":{i}}}\n'.encode())
        threads = [threading.Thread(target=produce, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertTrue(w.wait_idle(5))
        self.assertEqual(len(written), 1600)
        for t in range(8):
            mine = [f for f in written if f.startswith(f'{{"t":{t},'.encode())]
            self.assertEqual(mine, [f'{{"t":{t},"i":{i}}}\n'.encode() for i in range(200)])

    def test_PY_07_a_queued_frame_can_be_withdrawn_a_written_one_cannot(self):
        """PY-07: cancel before write sends nothing; a frame once started is finished."""
        gate = threading.Event()
        written = []
        w = FrameWriter(lambda d: (gate.wait(5), written.append(d)))
        first = w.send(b"1\n")
        second = w.send(b"2\n")
        self.assertTrue(w.withdraw(second))
        gate.set()
        self.assertTrue(w.wait_idle(5))
        self.assertFalse(w.withdraw(first))
        self.assertEqual(written, [b"1\n"])

    def test_PY_07_a_broken_stdout_settles_wait_idle(self):
        """PY-07: EPIPE stops the writer; wait_idle returns instead of hanging, later frames are dropped."""
        def sink(_):
            raise BrokenPipeError()
        w = FrameWriter(sink)
        w.send(b"1\n")
        self.assertTrue(w.wait_idle(5))
        self.assertIsInstance(w.broken, BrokenPipeError)
        self.assertEqual(w.send(b"2\n").state, "withdrawn")

    def test_PY_07_prints_and_direct_writes_never_reach_stdout(self):
        """PY-07: after Extension() print(), sys.stdout.write, sys.__stdout__ and a child process all land on stderr."""
        code = (
            "import os, subprocess, sys\nfrom octet_extension import Extension\next = Extension(api_version='0.2')\n"
            "print('p1')\nsys.stdout.write('p2\\n')\nsys.__stdout__.write('p3\\n'); sys.__stdout__.flush()\n"
            "subprocess.run(['echo', 'p4'])\nos.write(ext._stdout_fd, b'frame\\n')\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, env={**os.environ, "PYTHONPATH": SDK}, timeout=30
        )
        self.assertEqual(r.stdout, b"frame\n")
        for p in (b"p1", b"p2", b"p3", b"p4"):
            self.assertIn(p, r.stderr)


if __name__ == "__main__":
    unittest.main()
