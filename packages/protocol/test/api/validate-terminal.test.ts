// terminal/acquire, terminal/release and terminal/grant-lost shapes (W 2.24): each bound at its
// limit and one past, closed answers, and the refusal names.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_TERMINAL_GRANT_ID_BYTES,
  MAX_TERMINAL_REASON_BYTES,
  terminalRefusal,
  validateTerminalGrant,
  validateTerminalGrantLost,
  validateTerminalParams,
} from "../../src/index.js";

const problems = (c: { ok: boolean; problems?: readonly string[] }): string => (c.ok ? "" : c.problems!.join("; "));

test("TERM-01: the params are {parent_request_id}, an integer >= 0; other members are left open", () => {
  assert.deepEqual(validateTerminalParams({ parent_request_id: 7, extra: 1 }), {
    ok: true,
    value: { parent_request_id: 7 },
  });
  for (const bad of [{}, { parent_request_id: "7" }, { parent_request_id: -1 }, { parent_request_id: 1.5 }, null]) {
    const c = validateTerminalParams(bad);
    assert.equal(c.ok, false, JSON.stringify(bad));
    assert.equal(terminalRefusal(c.ok ? [] : c.problems), "invalid_request");
  }
});

test("TERM-06: grant_id of 128 UTF-8 bytes passes, 129 is bounds_exceeded; columns and rows are u16", () => {
  const id = "é".repeat(MAX_TERMINAL_GRANT_ID_BYTES / 2);
  assert.ok(validateTerminalGrant({ grant_id: id, columns: 65_535, rows: 0 }).ok);
  const long = validateTerminalGrant({ grant_id: `${id}x`, columns: 80, rows: 24 });
  assert.match(problems(long), /grant_id: .*over the 128-byte limit/);
  assert.equal(terminalRefusal(long.ok ? [] : long.problems), "bounds_exceeded");
  assert.match(problems(validateTerminalGrant({ grant_id: "g", columns: 65_536, rows: 1 })), /columns: 65536 is over/);
  assert.match(problems(validateTerminalGrant({ grant_id: "g", columns: 1, rows: -1 })), /rows/);
  assert.match(problems(validateTerminalGrant({ grant_id: "", columns: 1, rows: 1 })), /grant_id: must not be empty/);
  assert.match(problems(validateTerminalGrant({ grant_id: "g", columns: 1, rows: 1, tty: "/dev/pts/1" })), /tty/);
});

test("TERM-10: grant-lost is exactly {grant_id, reason}; a reason of 1 KiB passes, 1025 bytes does not", () => {
  const reason = "r".repeat(MAX_TERMINAL_REASON_BYTES);
  assert.deepEqual(validateTerminalGrantLost({ grant_id: "g", reason }), {
    ok: true,
    value: { grant_id: "g", reason },
  });
  assert.match(problems(validateTerminalGrantLost({ grant_id: "g", reason: `${reason}r` })), /over the 1024-byte/);
  assert.match(problems(validateTerminalGrantLost({ grant_id: "g", reason: "a\u001b[2J" })), /reason/);
  assert.match(problems(validateTerminalGrantLost({ grant_id: "g" })), /reason: missing/);
});
