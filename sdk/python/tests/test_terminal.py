"""ctx.terminal's local checks and terminal/grant-lost handling (W 2.24, TERM-06/07/10): before
initialize nothing is sent; a grant-lost names the held grant to set its event; a grant id over
128 bytes or a reason over 1 KiB is not a valid loss."""
import os
import tempfile
import unittest

from octet_extension.terminal import HeldTerminal, Terminal, TerminalGrants, open_terminal


class TerminalLocal(unittest.TestCase):
    def test_refused_before_initialize(self):
        t = Terminal(lambda: None, lambda: None, TerminalGrants())
        self.assertFalse(t.available)
        with self.assertRaisesRegex(RuntimeError, r"^terminal\.acquire\(\) is available only after the host"):
            t.acquire()
        with self.assertRaisesRegex(RuntimeError, r"^terminal\.release\(\) is available only after the host"):
            t.release()

    def test_grant_lost_sets_the_held_grant_event_only_for_its_id(self):
        grants = TerminalGrants()
        held = HeldTerminal("g" * 128, 80, 24)
        grants.held = held
        self.assertEqual(grants.lost({"grant_id": "other", "reason": "x"}), {"grant_id": "other", "reason": "x"})
        self.assertFalse(held.lost.is_set())
        self.assertEqual(grants.lost({"grant_id": "g" * 128, "reason": "r" * 1024})["reason"], "r" * 1024)
        self.assertTrue(held.lost.is_set())
        self.assertIsNone(grants.held)

    def test_invalid_losses_are_ignored(self):
        grants = TerminalGrants()
        held = HeldTerminal("g", 1, 1)
        grants.held = held
        for bad in (
            {"grant_id": "g" * 129, "reason": "x"},
            {"grant_id": "g", "reason": "r" * 1025},
            {"grant_id": "g", "reason": ""},
            {"grant_id": "g"},
            {"grant_id": "g", "reason": "x", "extra": 1},
            "g",
        ):
            self.assertIsNone(grants.lost(bad), bad)
        self.assertFalse(held.lost.is_set())

    def test_open_terminal_needs_octet_tty(self):
        with self.assertRaisesRegex(RuntimeError, "OCTET_TTY is not set"):
            open_terminal({})
        # Any readable and writable path opens (a real tty is what the host names).
        with tempfile.NamedTemporaryFile() as f:
            term = open_terminal({"OCTET_TTY": f.name})
            term.output.write(b"x")
            term.close()
            self.assertEqual(os.path.getsize(f.name), 1)


if __name__ == "__main__":
    unittest.main()
