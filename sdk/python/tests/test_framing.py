"""The bounded line reader and the envelope checks (FRAME rows as the SDK reads the host)."""
import json
import unittest

from octet_extension._bounds import MAX_FRAME_BYTES
from octet_extension.framing import FrameDecoder, FrameTooLarge, encode_frame, parse_envelope


def frame_of_size(n: int) -> bytes:
    """A JSON object line of exactly n bytes (without LF)."""
    head = b'{"jsonrpc":"2.0","method":"x","params":{"p":"'
    tail = b'"}}'
    return head + b"a" * (n - len(head) - len(tail)) + tail


class ReaderTest(unittest.TestCase):
    def test_PY_07_frame_at_the_1_MiB_limit_is_read_whole(self):
        """PY-07: a frame of exactly MAX_FRAME_BYTES (1 MiB, far over asyncio's 64 KiB line limit) is read."""
        line = frame_of_size(MAX_FRAME_BYTES)
        d = FrameDecoder()
        out = []
        for i in range(0, len(line), 65536):  # dripped in chunks
            out += d.push(line[i:i + 65536])
        out += d.push(b"\n")
        self.assertEqual(len(out), 1)
        value, error = out[0]
        self.assertIsNone(error)
        self.assertEqual(len(value["params"]["p"]), MAX_FRAME_BYTES - 48)

    def test_PY_07_one_byte_past_the_limit_is_fatal_before_the_LF(self):
        """PY-07: one byte past MAX_FRAME_BYTES is refused as frame_too_large at once, and the stream ends."""
        d = FrameDecoder()
        out = d.push(frame_of_size(MAX_FRAME_BYTES + 1))
        self.assertEqual(len(out), 1)
        self.assertEqual(out[0][1].code, "frame_too_large")
        self.assertTrue(out[0][1].fatal)
        self.assertIn(str(MAX_FRAME_BYTES), out[0][1].message)
        self.assertEqual(d.push(b'{"a":1}\n'), [])

    def test_PY_07_cr_blank_utf8_json_refused_per_line(self):
        """PY-07: CRLF, blank lines, invalid UTF-8 and invalid JSON are refused line by line; reading goes on."""
        d = FrameDecoder()
        out = d.push(b'{"a":1}\r\n\n\xff\xfe\n{bad\n{"ok":true}\n')
        codes = [e.code if e else v for v, e in out]
        self.assertEqual(codes, ["carriage_return", "blank_line", "invalid_utf8", "invalid_json", {"ok": True}])
        self.assertFalse(any(e.fatal for _, e in out if e))

    def test_PY_07_nan_and_truncated_input(self):
        """PY-07: NaN is not JSON; input ending inside a frame is a fatal truncated frame."""
        d = FrameDecoder()
        self.assertEqual(d.push(b'{"a":NaN}\n')[0][1].code, "invalid_json")
        d.push(b'{"a":')
        self.assertEqual(d.end()[0][1].code, "truncated_frame")

    def test_the_direct_scan_reads_and_refuses_as_the_full_decoder_does(self):
        """decode_line's direct call of the C scanner gives decode()'s value or error for every
        shape a line can take: one value, surrounding whitespace, extra data, nothing, bad JSON,
        duplicate members (marked either way), NaN and deep nesting."""
        from octet_extension.framing import _decoder, decode_line
        texts = ['{"a":1}', ' {"a":1}', '{"a":1} ', '{"a":1}\t', '{"a":1}{"b":2}', '{"a":1} x', '[1,2]', '3',
                 '"s"', 'null', ' ', '{bad', '{"a":}', '{"a":1,"a":2}', '{"a":NaN}', '{"a":Infinity}',
                 '[' * 5000 + ']' * 5000, '{"id":1,"\\u0069d":2}', '\u00a0{"a":1}']
        for text in texts:
            try:
                expected = ("ok", _decoder.decode(text))
            except (ValueError, RecursionError) as err:
                expected = ("error", f"frame is not valid JSON ({str(err)[:120]})")
            value, error = decode_line(text.encode("utf-8"))
            got = ("ok", value) if error is None else ("error", error.message)
            self.assertEqual(got, expected, text[:40])
            if got[0] == "ok" and isinstance(value, dict):
                self.assertEqual(getattr(value, "duplicate", None), getattr(expected[1], "duplicate", None), text)

    def test_PY_07_closed_envelopes(self):
        """PY-07: unknown members, batches, bad ids and duplicate members are refused; valid kinds are classified."""
        self.assertEqual(parse_envelope({"jsonrpc": "2.0", "id": 1, "method": "m"})[0], "request")
        self.assertEqual(parse_envelope({"jsonrpc": "2.0", "method": "m"})[0], "notification")
        self.assertEqual(parse_envelope({"jsonrpc": "2.0", "id": 1, "result": None})[0], "response")
        self.assertEqual(
            parse_envelope({"jsonrpc": "2.0", "id": 1, "method": "m", "extra": 1})[:2],
            (None, 'unknown envelope member "extra"'),
        )
        self.assertEqual(parse_envelope([])[0], None)
        self.assertIn("2^53-1", parse_envelope({"jsonrpc": "2.0", "id": 2 ** 53, "method": "m"})[1])
        self.assertIn("257 bytes", parse_envelope({"jsonrpc": "2.0", "id": "x" * 257, "method": "m"})[1])
        value, _ = FrameDecoder().push(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}\n')[0]
        self.assertEqual(parse_envelope(value), (None, 'member "id" appears more than once', None))

    def test_PY_07_encode_checks_the_bound_before_writing(self):
        """PY-07: an outbound frame at the limit is encoded; one byte past it raises FrameTooLarge naming both sizes."""
        overhead = len(encode_frame({"s": ""})) - 1
        self.assertEqual(len(encode_frame({"s": "a" * (MAX_FRAME_BYTES - overhead)})), MAX_FRAME_BYTES + 1)
        with self.assertRaises(FrameTooLarge) as caught:
            encode_frame({"s": "a" * (MAX_FRAME_BYTES - overhead + 1)})
        self.assertIn(f"{MAX_FRAME_BYTES + 1} bytes, over the {MAX_FRAME_BYTES}-byte limit", str(caught.exception))
        self.assertEqual(json.loads(encode_frame({"s": "\ud800"})), {"s": "\ud800"})


if __name__ == "__main__":
    unittest.main()
